/**
 * A model server that cannot be reached, through the real API and both real providers, against a closed local port
 * and the local fake LLM started on it (llm/server-down.ts, llm/render-call.ts, llm/retry.ts): a crawl or batch page
 * leaves a refused connection to its job's retry instead of retrying it in the call, and such a page's call within a
 * second of a refusal is not sent at all; a server that answered (one 503 "server busy") is still retried in the
 * call, a lone scrape (even right after a refusal) and a page's last attempt still retry a refusal themselves, and a
 * long page's later part too. The parts: server-down.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Config } from "../../src/config.ts";
import { DOWN_MEMO_MS } from "../../src/llm/server-down.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { page, startPageSite, type PageSite } from "../formats/pages.ts";
import { startFakeLlm, type FakeLlm } from "./fake-llm.ts";

let site: PageSite;
beforeAll(() => {
  site = startPageSite();
  for (let i = 0; i < 12; i++) site.set(`/p${i}`, page(`Kettle ${i}`, `The kettle number ${i} costs ${20 + i}.50 euros.`));
  const long = Array.from({ length: 4 }, (_, i) => `Part ${i}: the kettle's ${["name is Blue Kettle", "price is 24.50 euros", "colour is blue", "maker is Acme"][i]}, ${"and more words about it ".repeat(6)}.`);
  site.set("/long", page("Blue Kettle", ...long));
});
afterAll(() => site.stop());

/** A local port nothing listens on (the fake LLM may be started on it later). */
function closedPort(): number {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = s.port!;
  s.stop(true);
  return port;
}

/** The model server's address, as the counting fetch sees it: every connection attempt crawlbox makes to it. */
interface Llm {
  attempts: number[];
  /** Chat attempts refused. */
  refusals: number;
  fake?: FakeLlm;
}

/** A counting fetch for the LLM provider; `onRefused` may start the fake on the closed port. */
function countingFetch(llm: Llm, hooks: { before?: (n: number) => void; onRefused?: (n: number) => void } = {}): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const n = llm.attempts.push(performance.now());
    hooks.before?.(n);
    try {
      return await fetch(input, init);
    } catch (err) {
      llm.refusals++;
      hooks.onRefused?.(n);
      throw err;
    }
  }) as typeof fetch;
}

const PROVIDERS: { name: "ollama" | "openai"; config: (port: number) => Partial<Config> }[] = [
  { name: "ollama", config: (port) => ({ ollamaBaseUrl: `http://127.0.0.1:${port}`, modelName: "test-model" }) },
  { name: "openai", config: (port) => ({ openaiBaseUrl: `http://127.0.0.1:${port}/v1`, modelName: "test-model" }) },
];

async function runBatch(h: Harness, urls: string[], formats: unknown[]): Promise<{ status: any; errors: any[] }> {
  const started = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls, formats, maxAge: 0 } })).json()) as any;
  expect(started.success).toBe(true);
  let status: any;
  const until = Date.now() + 30_000;
  do {
    await Bun.sleep(20);
    status = await (await h.request(`/v2/batch/scrape/${started.id}`)).json();
  } while (status.status === "scraping" && Date.now() < until);
  return { status, errors: ((await (await h.request(`/v2/batch/scrape/${started.id}/errors`)).json()) as any).errors };
}

const JSON_FORMAT = [{ type: "json", prompt: "The kettle's name and price" }];

for (const p of PROVIDERS) {
  describe(`${p.name}: a model server that cannot be reached`, () => {
    test("a batch fails every page with LLM_UNAVAILABLE in a few connection attempts, none charged (it made 9 a page)", async () => {
      const port = closedPort();
      const llm: Llm = { attempts: [], refusals: 0 };
      const h = await createHarness({ ...p.config(port), retryBaseDelayMs: 10 }, { llmFetch: countingFetch(llm) });
      try {
        const urls = Array.from({ length: 12 }, (_, i) => `${site.url}/p${i}`);
        const started = performance.now();
        const { status, errors } = await runBatch(h, urls, JSON_FORMAT);
        const wallMs = performance.now() - started;
        expect(status.status).toBe("completed");
        expect(status.data).toEqual([]);
        expect(errors.map((e: any) => e.code)).toEqual(Array(12).fill("LLM_UNAVAILABLE"));
        for (const e of errors) expect(e.error).toContain("ECONNREFUSED");
        // At most one connection per page attempt before its last, three in its last (it was 9 a page, 108); the memo
        // turns most away (typically 4-12 in all), but how many depends on the machine's pace against its second.
        expect(llm.attempts.length).toBeLessThanOrEqual(12 * (1 + 1 + 3));
        expect(wallMs).toBeLessThan(30_000);
        expect(status.creditsUsed).toBe(0);
        const usage = (await (await h.request("/v2/team/credit-usage")).json()) as any;
        expect(usage.data.creditsUsed).toBe(0);
      } finally {
        await h.close();
      }
    }, 40_000);

    test("a page's refused connection is retried by its job past the memo, even with a short base delay, and meets the server back", async () => {
      const port = closedPort();
      const llm: Llm = { attempts: [], refusals: 0 };
      // The fake comes up at once after the refusal: an in-call retry would reach it within 0.5 s.
      const fetcher = countingFetch(llm, { onRefused: () => void (llm.fake ??= startFakeLlm({ port })) });
      const h = await createHarness({ ...p.config(port), retryBaseDelayMs: 10 }, { llmFetch: fetcher });
      try {
        const before = site.hits.get("/p0") ?? 0;
        const { status, errors } = await runBatch(h, [`${site.url}/p0`], JSON_FORMAT);
        expect(errors).toEqual([]);
        expect(status.data[0].json).toEqual({});
        expect(llm.refusals).toBe(1);
        expect(llm.attempts).toHaveLength(2);
        // The job's wait, at least the memo whatever the base delay, not the call's 0-0.5 s.
        expect(llm.attempts[1]! - llm.attempts[0]!).toBeGreaterThan(DOWN_MEMO_MS);
        expect((site.hits.get("/p0") ?? 0) - before).toBe(2);
      } finally {
        llm.fake?.stop();
        await h.close();
      }
    }, 40_000);

    test("a page's last attempt retries a refused connection in the call: one refusal there does not fail the page", async () => {
      const port = closedPort();
      const llm: Llm = { attempts: [], refusals: 0 };
      // Down through the page's first two attempts (one connection each); back as soon as the third is refused.
      const fetcher = countingFetch(llm, { onRefused: (n) => void (n === 3 && (llm.fake ??= startFakeLlm({ port }))) });
      const h = await createHarness({ ...p.config(port), retryBaseDelayMs: 10 }, { llmFetch: fetcher });
      try {
        const before = site.hits.get("/p4") ?? 0;
        const { status, errors } = await runBatch(h, [`${site.url}/p4`], JSON_FORMAT);
        expect(errors).toEqual([]);
        expect(status.data[0].json).toEqual({});
        expect([llm.refusals, llm.attempts.length]).toEqual([3, 4]);
        expect((site.hits.get("/p4") ?? 0) - before).toBe(3);
      } finally {
        llm.fake?.stop();
        await h.close();
      }
    }, 40_000);

    test("a lone scrape retries a refused connection in the call, right after another's refusal too: the memo is not for it", async () => {
      const port = closedPort();
      const llm: Llm = { attempts: [], refusals: 0 };
      let upOnRefusal = true;
      const fetcher = countingFetch(llm, { onRefused: () => void (upOnRefusal && (llm.fake ??= startFakeLlm({ port }))) });
      const h = await createHarness(p.config(port), { llmFetch: fetcher });
      const scrape = async () => {
        const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/p1`, formats: JSON_FORMAT, maxAge: 0 } });
        return { status: res.status, body: (await res.json()) as any };
      };
      try {
        const recovered = await scrape();
        expect([recovered.status, recovered.body.data?.json]).toEqual([200, {}]);
        expect([llm.refusals, llm.attempts.length]).toEqual([1, 2]);
        const charged = ((await (await h.request("/v2/team/credit-usage")).json()) as any).data.creditsUsed;
        expect(charged).toBeGreaterThan(0);

        // Down for good: the scrape's own three tries, then a scrape sent at once is turned away without a connection.
        llm.fake!.stop();
        llm.fake = undefined;
        upOnRefusal = false;
        llm.attempts.length = 0;
        const down = await scrape();
        expect([down.status, down.body.code]).toEqual([503, "LLM_UNAVAILABLE"]);
        expect(llm.attempts).toHaveLength(3);
        const again = await scrape();
        expect([again.status, again.body.code]).toEqual([503, "LLM_UNAVAILABLE"]);
        expect(again.body.error).not.toContain("not sent");
        expect(llm.attempts).toHaveLength(6);
        // Only the scrape that got its json was charged.
        const usage = (await (await h.request("/v2/team/credit-usage")).json()) as any;
        expect(usage.data.creditsUsed).toBe(charged);
      } finally {
        llm.fake?.stop();
        await h.close();
      }
    }, 40_000);

    test("a long page's later part refused in a batch page is retried in the call: the page keeps every part", async () => {
      const port = closedPort();
      const llm: Llm = { attempts: [], refusals: 0 };
      const answer = (req: { messages: { content: string }[] }) => {
        const text = req.messages.map((m) => m.content).join("\n");
        return { content: JSON.stringify({ parts: [...text.matchAll(/Part (\d)/g)].map((m) => Number(m[1])) }) };
      };
      const up = () => {
        llm.fake = startFakeLlm({ port });
        llm.fake.respond = answer;
      };
      up();
      // The model server goes away just before the second part, and is back as soon as that connection is refused.
      const fetcher = countingFetch(llm, {
        before: (n) => {
          if (n === 2) llm.fake!.stop();
        },
        onRefused: up,
      });
      const h = await createHarness({ ...p.config(port), llmContextTokens: 1024, retryBaseDelayMs: 10 }, { llmFetch: fetcher });
      try {
        const before = site.hits.get("/long") ?? 0;
        const { status, errors } = await runBatch(h, [`${site.url}/long`], JSON_FORMAT);
        expect(errors).toEqual([]);
        const doc = status.data[0];
        expect(doc.warning).toBeUndefined();
        expect([...new Set(doc.json.parts)].sort()).toEqual([0, 1, 2, 3]);
        expect(llm.refusals).toBe(1);
        expect((site.hits.get("/long") ?? 0) - before).toBe(1);
      } finally {
        llm.fake?.stop();
        await h.close();
      }
    }, 40_000);
  });

  describe(`${p.name}: one 503 "server busy"`, () => {
    let llm: FakeLlm;
    let h: Harness;
    beforeAll(async () => {
      llm = startFakeLlm();
      h = await createHarness({ ...p.config(Number(new URL(llm.url).port)), retryBaseDelayMs: 10 });
    });
    afterAll(async () => {
      await h.close();
      llm.stop();
    });
    const blip = () => {
      llm.reset();
      llm.script([{ status: 503, error: "server busy, please try again.  maximum pending requests exceeded" }, { content: JSON.stringify({ name: "Kettle" }) }]);
    };

    test("recovers inside a lone scrape", async () => {
      blip();
      const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/p2`, formats: JSON_FORMAT, maxAge: 0 } });
      const body = (await res.json()) as any;
      expect([res.status, body.data?.json]).toEqual([200, { name: "Kettle" }]);
      expect(llm.chats()).toHaveLength(2);
    });

    test("recovers inside a batch page's attempt: not fetched again", async () => {
      blip();
      const before = site.hits.get("/p3") ?? 0;
      const { status, errors } = await runBatch(h, [`${site.url}/p3`], JSON_FORMAT);
      expect(errors).toEqual([]);
      expect(status.data[0].json).toEqual({ name: "Kettle" });
      expect(llm.chats()).toHaveLength(2);
      expect((site.hits.get("/p3") ?? 0) - before).toBe(1);
    });
  });
}
