/**
 * The official JS SDK (@mendable/firecrawl-js) against a listening crawlbox with the browser engine:
 * `scrape` with `actions` and a `screenshot` format.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { startJsSite, type JsSite } from "../fixtures/js-pages.ts";
import type { Harness } from "../helpers/harness.ts";
import { browserHarness, closeAndAssertNoChromium, imageSize } from "./helpers.ts";

let site: JsSite;
let h: Harness;
let apiUrl: string;

beforeAll(async () => {
  site = startJsSite();
  h = await browserHarness();
  apiUrl = h.listen();
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  site.stop();
});

describe("@mendable/firecrawl-js with the browser engine", () => {
  test("scrape with actions and a screenshot format", async () => {
    const app = new Firecrawl({ apiKey: h.key, apiUrl });
    const doc = await app.scrape(`${site.url}/actions`, {
      formats: ["markdown", { type: "screenshot", fullPage: false, viewport: { width: 1024, height: 768 } }],
      onlyMainContent: false,
      actions: [
        { type: "click", selector: "#reveal" },
        { type: "wait", milliseconds: 50 },
        { type: "screenshot", fullPage: true },
        { type: "executeJavascript", script: "document.querySelector('h1').textContent" },
        { type: "scrape" },
      ],
    });
    expect(doc.markdown).toContain("Secret revealed by click");
    expect(doc.screenshot).toStartWith(`${apiUrl}/v2/files/`);
    const shot = await fetch(doc.screenshot!);
    expect(shot.status).toBe(200);
    expect(imageSize(new Uint8Array(await shot.arrayBuffer()))).toEqual({ width: 1024, height: 768, type: "png" });
    const actions = (doc as any).actions;
    expect(actions.screenshots).toHaveLength(1);
    expect((await fetch(actions.screenshots[0])).status).toBe(200);
    expect(actions.javascriptReturns).toEqual([{ type: "string", value: "Action playground" }]);
    expect(actions.scrapes[0].html).toContain("Secret revealed by click");
    expect(doc.metadata?.statusCode).toBe(200);
    expect((doc.metadata as any)?.engine).toBe("browser");
  });

  test("a batch's screenshots belong to the batch (they live as long as its results)", async () => {
    const app = new Firecrawl({ apiKey: h.key, apiUrl });
    const job = await app.batchScrape([`${site.url}/actions`], { options: { formats: [{ type: "screenshot" }] }, pollInterval: 1 });
    const shot = job.data[0]!.screenshot!;
    expect((await fetch(shot)).status).toBe(200);
    const id = shot.split("/v2/files/")[1]!;
    const row = h.services.db.query("SELECT job_id FROM files WHERE id = ?").get(id) as { job_id: string | null };
    expect(row.job_id).toEqual(expect.any(String));
    expect(h.services.db.query("SELECT kind FROM jobs WHERE id = ?").get(row.job_id!)).toEqual({ kind: "batch" });
  });

  test("a failing action surfaces as an SDK error with SCRAPE_ACTION_ERROR", async () => {
    const app = new Firecrawl({ apiKey: h.key, apiUrl });
    const err = await app.scrape(`${site.url}/actions`, { actions: [{ type: "click", selector: "#nope" }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(String((err as Error).message)).toContain("Action 0 (click)");
  });
});
