/**
 * Formats that keep an LLM failure as a warning rather than fail the page (changeTracking's `json` mode,
 * deterministicJson) retry a refused connection in the call even inside a crawl or batch page its job would try
 * again (llm/retry.ts retriedInCall): the job's retry never comes for them, so one refusal would lose the json while
 * the page is still charged. The model server is down at the first connection and back as soon as it is refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Config } from "../../src/config.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";
import { closeAndAssertNoChromium } from "../browser/helpers.ts";
import { GOOD, SCHEMA, shopPage } from "./deterministic-json-setup.ts";
import { page, startPageSite, type PageSite } from "./pages.ts";

let site: PageSite;
beforeAll(() => {
  site = startPageSite();
});
afterAll(() => site.stop());

/** A local port nothing listens on (the fake LLM is started on it at the first refusal). */
function closedPort(): number {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = s.port!;
  s.stop(true);
  return port;
}

/** The LLM side: a fetch counting connection attempts that brings the fake up, answering `respond`, on a refusal. */
function flakyLlm(port: number, respond: FakeLlm["respond"]) {
  const llm = { attempts: 0, refusals: 0, fake: undefined as FakeLlm | undefined, armed: true };
  const fetcher = (async (input: string | URL | Request, init?: RequestInit) => {
    llm.attempts++;
    try {
      return await fetch(input, init);
    } catch (err) {
      llm.refusals++;
      if (llm.armed && !llm.fake) {
        llm.fake = startFakeLlm({ port });
        llm.fake.respond = respond;
      }
      throw err;
    }
  }) as typeof fetch;
  return { llm, fetcher };
}

async function batch(h: Harness, url: string, formats: unknown[]): Promise<{ doc: any; errors: any[] }> {
  const started = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [url], formats, maxAge: 0 } })).json()) as any;
  let status: any;
  const until = Date.now() + 30_000;
  do {
    await Bun.sleep(20);
    status = await (await h.request(`/v2/batch/scrape/${started.id}`)).json();
  } while (status.status === "scraping" && Date.now() < until);
  const errors = ((await (await h.request(`/v2/batch/scrape/${started.id}/errors`)).json()) as any).errors;
  return { doc: status.data[0], errors };
}

const ollama = (port: number): Partial<Config> => ({ ollamaBaseUrl: `http://127.0.0.1:${port}`, modelName: "test-model", retryBaseDelayMs: 10 });

describe("one refused connection inside a batch page", () => {
  test("changeTracking json mode still gives its json", async () => {
    const port = closedPort();
    const { llm, fetcher } = flakyLlm(port, () => ({ content: JSON.stringify({ price: { previous: "20 EUR", current: "25 EUR" } }) }));
    const h = await createHarness(ollama(port), { llmFetch: fetcher });
    try {
      const f = ["markdown", { type: "changeTracking", modes: ["json"], tag: "refusal" }];
      site.set("/ct", page("Prices", "Kettle: 20 EUR"));
      // The baseline: a new page asks no model.
      const first = await batch(h, `${site.url}/ct`, f);
      expect(first.doc.changeTracking.changeStatus).toBe("new");
      expect(llm.attempts).toBe(0);
      site.set("/ct", page("Prices", "Kettle: 25 EUR"));
      const { doc, errors } = await batch(h, `${site.url}/ct`, f);
      expect(errors).toEqual([]);
      expect(doc.changeTracking.changeStatus).toBe("changed");
      expect(doc.warning).toBeUndefined();
      expect(doc.changeTracking.json).toEqual({ price: { previous: "20 EUR", current: "25 EUR" } });
      expect([llm.refusals, llm.attempts]).toEqual([1, 2]);
    } finally {
      llm.fake?.stop();
      await h.close();
    }
  }, 40_000);

  test("deterministicJson still gives its json", async () => {
    const port = closedPort();
    const { llm, fetcher } = flakyLlm(port, () => ({ content: GOOD }));
    const h = await createHarness({ ...ollama(port), browserConcurrency: 2 }, { llmFetch: fetcher });
    try {
      site.set("/shop", shopPage("Kettle Shop", [["Blue Kettle", 19.5]]));
      const { doc, errors } = await batch(h, `${site.url}/shop`, [{ type: "deterministicJson", schema: SCHEMA, prompt: "The shop." }]);
      expect(errors).toEqual([]);
      expect(doc.warning).toBeUndefined();
      expect(doc.json).toEqual({ shop: "Kettle Shop", products: [{ name: "Blue Kettle", price: 19.5, url: `${site.url}/p/0` }] });
      expect([llm.refusals, llm.attempts]).toEqual([1, 2]);
    } finally {
      llm.fake?.stop();
      await closeAndAssertNoChromium(h);
    }
  }, 60_000);
});
