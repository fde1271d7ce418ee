/**
 * A model server that is rate limiting (429) or overloaded (5xx) (llm/errors.ts, plugins/llm/*.ts): the request
 * that needed the LLM ends with a typed error of its own class, never a 500. Provider 429 → our 429
 * `LLM_RATE_LIMITED` (the provider's `Retry-After` in `details.retryAfterSeconds`); provider 5xx → our 503
 * `LLM_UNAVAILABLE` (not 502: the official SDKs retry a 502 three times). In batches both stay retryable LLM
 * failures that do not count against the site's host. Through the real API and both real providers, against the
 * local fake LLM.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Config } from "../../src/config.ts";
import { MAX_PAGE_ATTEMPTS } from "../../src/jobs/retry-policy.ts";
import { llmHttpError, retryAfterSeconds } from "../../src/llm/errors.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { page, startPageSite, type PageSite } from "../formats/pages.ts";
import { startFakeLlm, type FakeLlm } from "./fake-llm.ts";

const SCHEMA = { type: "object", properties: { title: { type: "string" } }, required: ["title"] };
const FORMATS = [[{ type: "json", schema: SCHEMA }], ["summary"]];

let site: PageSite;
let llm: FakeLlm;

beforeAll(() => {
  site = startPageSite();
  site.set("/product", page("Blue Kettle", "The Blue Kettle costs 24.50 euros."));
  for (let i = 0; i < 12; i++) site.set(`/p${i}`, page(`Page ${i}`, `Text of page ${i}.`));
  llm = startFakeLlm();
});
afterAll(() => {
  site.stop();
  llm.stop();
});

const PROVIDERS: { name: "ollama" | "openai"; config: () => Partial<Config>; address: () => string }[] = [
  { name: "ollama", config: () => ({ ollamaBaseUrl: llm.url, modelName: "test-model" }), address: () => llm.url },
  { name: "openai", config: () => ({ openaiBaseUrl: llm.openaiUrl, modelName: "test-model" }), address: () => llm.openaiUrl },
];

for (const p of PROVIDERS) {
  describe(`${p.name}: a rate-limited or overloaded model server`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await createHarness({ ...p.config(), retryBaseDelayMs: 10 });
    });
    afterAll(() => h.close());
    const scrape = async (body: Record<string, unknown>) => {
      const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/product`, maxAge: 0, ...body } });
      return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (await res.json()) as any };
    };

    test("429 with Retry-After: our 429 LLM_RATE_LIMITED, the provider's message and Retry-After in the envelope", async () => {
      for (const formats of FORMATS) {
        llm.reset();
        llm.script([{ status: 429, error: "Rate limit reached for test-model", headers: { "retry-after": "7" } }]);
        const { status, body, retryAfter } = await scrape({ formats });
        expect({ formats, status, code: body.code, success: body.success }).toEqual({ formats, status: 429, code: "LLM_RATE_LIMITED", success: false });
        expect(retryAfter).toBe("7");
        expect(body.error).toContain(`${p.name} provider at ${p.address()}`);
        expect(body.error).toContain("Rate limit reached for test-model");
        expect(body.details).toEqual({ provider: p.name, address: p.address(), model: "test-model", retryAfterSeconds: 7 });
        expect(Object.keys(body).sort()).toEqual(["code", "details", "error", "success"]);
      }
    });

    test("429 as a proxy's HTML page, Retry-After as an HTTP date or absent: still LLM_RATE_LIMITED", async () => {
      llm.reset();
      llm.script([{ status: 429, htmlError: true, error: "Too Many Requests", headers: { "retry-after": new Date(Date.now() + 30_000).toUTCString() } }]);
      const dated = await scrape({ formats: ["summary"] });
      expect([dated.status, dated.body.code]).toEqual([429, "LLM_RATE_LIMITED"]);
      expect(dated.body.details.retryAfterSeconds).toBeGreaterThanOrEqual(28);
      expect(dated.body.details.retryAfterSeconds).toBeLessThanOrEqual(31);

      llm.reset();
      llm.script([{ status: 429, error: "slow down" }]);
      const bare = await scrape({ formats: ["summary"] });
      expect([bare.status, bare.body.code]).toEqual([429, "LLM_RATE_LIMITED"]);
      expect(bare.body.details).toEqual({ provider: p.name, address: p.address(), model: "test-model" });
    });

    test("503, 500 and a proxy's 502 page: our 503 LLM_UNAVAILABLE with the server's reason, never a 500", async () => {
      const replies = [
        { status: 503, error: "server busy, please try again.  maximum pending requests exceeded", headers: { "retry-after": "2" } },
        { status: 500, error: "CUDA out of memory" },
        { status: 502, htmlError: true, error: "Bad Gateway" },
      ];
      for (const reply of replies) {
        for (const formats of FORMATS) {
          llm.reset();
          llm.script([reply]);
          const { status, body } = await scrape({ formats });
          expect({ reply: reply.status, formats, status, code: body.code }).toEqual({ reply: reply.status, formats, status: 503, code: "LLM_UNAVAILABLE" });
          expect(body.error).toContain(`HTTP ${reply.status}`);
          expect(body.details.provider).toBe(p.name);
          if (reply.headers) expect(body.details.retryAfterSeconds).toBe(2);
        }
      }
    });

    test("in a batch, a page retried after a 429 waits the provider's Retry-After; a spent quota is not retried", async () => {
      const runBatch = async (url: string) => {
        const started = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [url], formats: ["summary"], maxAge: 0 } })).json()) as any;
        let status: any;
        for (let i = 0; i < 400; i++) {
          status = await (await h.request(`/v2/batch/scrape/${started.id}`)).json();
          if (status.status === "completed") break;
          await Bun.sleep(25);
        }
        return { status, errors: ((await (await h.request(`/v2/batch/scrape/${started.id}/errors`)).json()) as any).errors };
      };
      llm.reset();
      const times: number[] = [];
      llm.respond = (_req, i) => {
        times.push(performance.now());
        return i === 0 ? { status: 429, error: "Rate limit reached", headers: { "retry-after": "3" } } : { content: "A kettle page." };
      };
      const waited = await runBatch(`${site.url}/p0`);
      expect(waited.status.data[0].summary).toBe("A kettle page.");
      expect(times).toHaveLength(2);
      expect(times[1]! - times[0]!).toBeGreaterThan(2_800); // not the 10 ms backoff this harness is configured with

      // OpenAI marks a spent quota with the code insufficient_quota: not retried. The same words without that code
      // (Gemini's per-minute limit says "You exceeded your current quota" too) are an ordinary, retried 429.
      const quota = "You exceeded your current quota, please check your plan and billing details.";
      llm.reset();
      llm.script([{ status: 429, error: quota, ...(p.name === "openai" ? { errorCode: "insufficient_quota" } : {}) }]);
      const spent = await runBatch(`${site.url}/p1`);
      expect(spent.errors.map((e: any) => e.code)).toEqual(["LLM_RATE_LIMITED"]);
      expect(llm.chats()).toHaveLength(p.name === "openai" ? 1 : MAX_PAGE_ATTEMPTS);
    }, 30_000);

    test("in a batch, a rate-limited model fails each page with LLM_RATE_LIMITED after its retries; the site's host is not given up on", async () => {
      llm.reset();
      llm.script([{ status: 429, error: "Rate limit reached", headers: { "retry-after": "0" } }]);
      const urls = Array.from({ length: 12 }, (_, i) => `${site.url}/p${i}`);
      const started = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls, formats: ["summary"], maxAge: 0 } })).json()) as any;
      let status: any;
      for (let i = 0; i < 400; i++) {
        status = await (await h.request(`/v2/batch/scrape/${started.id}`)).json();
        if (status.status === "completed") break;
        await Bun.sleep(50);
      }
      expect(status.status).toBe("completed");
      const errors = ((await (await h.request(`/v2/batch/scrape/${started.id}/errors`)).json()) as any).errors;
      expect(errors.length).toBe(12);
      expect(new Set(errors.map((e: { code: string }) => e.code))).toEqual(new Set(["LLM_RATE_LIMITED"]));
      // Retryable: every page was tried as often as a failing page is.
      expect(llm.chats().length).toBe(12 * MAX_PAGE_ATTEMPTS);
    }, 30_000);
  });
}

test("Retry-After is read as seconds or a date and capped at a day; a spent quota is told by its code, not its words", () => {
  expect(retryAfterSeconds("9".repeat(400))).toBe(86_400);
  expect(retryAfterSeconds(new Date(Date.now() + 10 * 86_400_000).toUTCString())).toBe(86_400);
  expect(retryAfterSeconds("7")).toBe(7);
  const p = { name: "openai", address: "http://127.0.0.1:1/v1", model: "m" };
  expect(llmHttpError(p, 429, "HTTP 429: You exceeded your current quota (insufficient_quota)").retryable).toBe(false);
  expect(llmHttpError(p, 429, "HTTP 429: You exceeded your current quota, please retry in 20s").retryable).toBe(true);
});
