/**
 * A browser scrape behind a redirect keeps its whole timeout for a document that is slow to arrive: the share of the
 * time left that a page waiting on its head gets (engines/browser/document-wait.ts) starts when the final document
 * has arrived, not when the redirect's hop has.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Harness } from "../helpers/harness.ts";
import { browserHarness, closeAndAssertNoChromium, scrape } from "./helpers.ts";

const TIMEOUT_MS = 8_000;
/** How long the final document takes to arrive: past half the timeout, well within all of it. */
const SLOW_BODY_MS = 5_000;

let server: ReturnType<typeof Bun.serve>;
let base: string;
let h: Harness;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/go") return new Response(null, { status: 302, headers: { location: "/slow" } });
      if (path !== "/slow") return new Response("not found", { status: 404 });
      const body = new ReadableStream<Uint8Array>({
        async start(c) {
          const enc = new TextEncoder();
          c.enqueue(enc.encode("<!doctype html><html><head><title>Slow</title></head><body><h1>Start of the document</h1>"));
          await Bun.sleep(SLOW_BODY_MS);
          c.enqueue(enc.encode("<p>End of the document, sent last.</p></body></html>"));
          c.close();
        },
      });
      return new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
    },
  });
  base = server.url.href.replace(/\/$/, "");
  h = await browserHarness();
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  server.stop(true);
});

test("a 302 to a document sent slowly: the whole page, no 'cut short' warning", async () => {
  const { status, body } = await scrape(h, { url: `${base}/go`, formats: ["markdown"], waitFor: 100, maxAge: 0, timeout: TIMEOUT_MS });
  expect({ status, code: body.code }).toEqual({ status: 200, code: undefined });
  expect(body.data.markdown).toContain("End of the document, sent last.");
  expect(body.data.warning ?? "").not.toContain("was not fully parsed");
}, 60_000);
