/**
 * The shared set-up of the `/v2/monitor` API tests (monitor-checks, monitor-updates, monitor-judge-limits): a local
 * site whose pages a test sets and changes (`pages`), a webhook receiver, the fake LLM speaking Ollama's protocol, and
 * the official SDK on an in-process crawlbox.
 */
import { afterAll, beforeAll } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startHookReceiver, type HookReceiver } from "../fixtures/hook-receiver.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";
import { untilCheckEnds } from "../helpers/monitor-checks.ts";

/** A page with `title` as its title and heading, and `body` as its one paragraph. */
export const html = (title: string, body: string) => `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`;

/** A page of the site: what it answers, after how long. */
export interface SitePage {
  html: string;
  status: number;
  delayMs?: number;
  contentType?: string;
}

/** What a test file gets: filled in by the file's first `beforeAll`. */
export interface MonitorSite {
  h: Harness;
  /** The SDK with the harness's key. */
  app: Firecrawl;
  /** The site's origin. */
  base: string;
  hooks: HookReceiver;
  llm: FakeLlm;
  /** The site's pages by path; a path not here is a 404. */
  pages: Map<string, SitePage>;
  /** Polls a check until it has ended (no longer queued or running). */
  settled(monitorId: string, checkId: string, client?: Firecrawl): Promise<any>;
}

/** Registers the file's set-up and tear-down; the returned object is filled in before the first test. */
export function useMonitorSite(): MonitorSite {
  let site: ReturnType<typeof Bun.serve>;
  const ctx = { pages: new Map<string, SitePage>() } as MonitorSite;
  const { pages } = ctx;
  ctx.settled = (monitorId, checkId, client = ctx.app) => untilCheckEnds(() => client.getMonitorCheck(monitorId, checkId) as Promise<any>);
  beforeAll(async () => {
    site = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        const p = pages.get(new URL(req.url).pathname);
        if (!p) return new Response("not found", { status: 404 });
        if (p.delayMs) await Bun.sleep(p.delayMs);
        return new Response(p.html, { status: p.status, headers: { "content-type": p.contentType ?? "text/html" } });
      },
    });
    ctx.base = `http://127.0.0.1:${site.port}`;
    ctx.hooks = startHookReceiver();
    ctx.llm = startFakeLlm();
    ctx.h = await createHarness({ ollamaBaseUrl: ctx.llm.url, modelName: "test-model", allowPrivateWebhooks: true });
    ctx.app = new Firecrawl({ apiKey: ctx.h.key, apiUrl: ctx.h.listen() });
  });
  afterAll(async () => {
    await ctx.h.close();
    site.stop(true);
    ctx.hooks.stop();
    ctx.llm.stop();
  });
  return ctx;
}
