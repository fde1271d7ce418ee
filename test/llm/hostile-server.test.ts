/**
 * A model server that misbehaves (llm/answer.ts, llm/errors.ts, llm/prompts.ts, auth/credits.ts, jobs/worker-pool.ts):
 * content that is not text, token counts that are not counts, a reasoning model's `<think>` block, megabytes of
 * error text or of invalid answer, and failures in a batch. Through the real API and both real providers, against
 * the local fake LLM scripted to misbehave.
 */
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import type { Config } from "../../src/config.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { page, startPageSite, type PageSite } from "../formats/pages.ts";
import { startFakeLlm, type FakeLlm } from "./fake-llm.ts";

const SCHEMA = { type: "object", properties: { title: { type: "string" } }, required: ["title"] };

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

const PROVIDERS: { name: "ollama" | "openai"; config: () => Partial<Config> }[] = [
  { name: "ollama", config: () => ({ ollamaBaseUrl: llm.url, modelName: "test-model" }) },
  { name: "openai", config: () => ({ openaiBaseUrl: llm.openaiUrl, modelName: "test-model" }) },
];

for (const p of PROVIDERS) {
  describe(`${p.name}: a misbehaving model server`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await createHarness({ ...p.config(), retryBaseDelayMs: 10 });
    });
    afterAll(() => h.close());
    const scrape = async (body: Record<string, unknown>) => {
      const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/product`, maxAge: 0, ...body } });
      return { status: res.status, body: (await res.json()) as any };
    };
    const tokensUsed = async () => ((await (await h.request("/v2/team/token-usage")).json()) as any).data.tokensUsed;

    test("content that is not text is LLM_UNAVAILABLE, not a crash", async () => {
      for (const rawContent of [42, { title: "x" }, [{ type: "image_url", image_url: { url: "data:," } }]]) {
        llm.script([{ rawContent }]);
        for (const formats of [[{ type: "json", schema: SCHEMA }], ["summary"]]) {
          const { status, body } = await scrape({ formats });
          expect({ rawContent, formats, status, code: body.code }).toEqual({ rawContent, formats, status: 503, code: "LLM_UNAVAILABLE" });
          expect(body.error).toContain("not text");
        }
      }
    });

    test("token counts that are not counts are replaced by estimates: usage stays a finite, growing total", async () => {
      let before = await tokensUsed();
      for (const usage of [{ prompt: -1_000_000, completion: -5 }, { prompt: 1e308, completion: 1e308 }, { prompt: "12", completion: "34" }, { prompt: Number.NaN, completion: null }]) {
        llm.script([{ content: '{"title":"Blue Kettle"}', usage }]);
        const { status, body } = await scrape({ formats: [{ type: "json", schema: SCHEMA }] });
        expect(status).toBe(200);
        expect(body.data.json).toEqual({ title: "Blue Kettle" });
        const after = await tokensUsed();
        expect(Number.isFinite(after)).toBe(true);
        expect(after).toBeGreaterThan(before);
        expect(after - before).toBeLessThan(100_000);
        before = after;
      }
    });

    test("a reasoning model's <think> block before the JSON is skipped", async () => {
      llm.script([{ content: '<think>The title is in the h1. {"not": "this"}</think>\n{"title":"Blue Kettle"}' }]);
      const { status, body } = await scrape({ formats: [{ type: "json", schema: SCHEMA }] });
      expect(status).toBe(200);
      expect(body.data.json).toEqual({ title: "Blue Kettle" });
    });

    test("megabytes of error text are cut in the error; a megabyte of invalid answer is quoted only in part", async () => {
      llm.script([{ status: 500, error: "E".repeat(1_000_000) }]);
      const failed = await scrape({ formats: ["summary"] });
      expect(failed.body.code).toBe("LLM_UNAVAILABLE");
      expect(failed.body.error.length).toBeLessThan(1_000);
      llm.reset();
      llm.script([{ content: "not json " + "z".repeat(1_000_000) }, { content: '{"title":"Blue Kettle"}' }]);
      const repaired = await scrape({ formats: [{ type: "json", schema: SCHEMA }] });
      expect(repaired.status).toBe(200);
      const repairTurn = llm.chats()[1]!.messages.find((m) => m.role === "assistant")!;
      expect(repairTurn.content.length).toBeLessThan(50_000);
    });

    test("an HTML error page from a proxy in front of the model is LLM_UNAVAILABLE, and nothing is printed on stdout", async () => {
      llm.reset();
      llm.script([{ status: 502, htmlError: true, error: "Bad Gateway" }]);
      const printed = spyOn(console, "log");
      try {
        const { status, body } = await scrape({ formats: ["summary"] });
        expect([status, body.code]).toEqual([503, "LLM_UNAVAILABLE"]);
        expect(body.error).toContain("502");
        expect(printed).not.toHaveBeenCalled();
      } finally {
        printed.mockRestore();
      }
    });

    test("in a batch, a failing model fails the pages with its own code; the site's host is not given up on", async () => {
      llm.reset();
      llm.script([{ status: 500, error: "model crashed" }]);
      const urls = Array.from({ length: 12 }, (_, i) => `${site.url}/p${i}`);
      const started = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls, formats: [{ type: "json", schema: SCHEMA }], maxAge: 0 } })).json()) as any;
      let status: any;
      for (let i = 0; i < 300; i++) {
        status = await (await h.request(`/v2/batch/scrape/${started.id}`)).json();
        if (status.status === "completed") break;
        await Bun.sleep(50);
      }
      expect(status.status).toBe("completed");
      const errors = ((await (await h.request(`/v2/batch/scrape/${started.id}/errors`)).json()) as any).errors;
      expect(errors.length).toBe(12);
      expect(new Set(errors.map((e: { code: string }) => e.code))).toEqual(new Set(["LLM_UNAVAILABLE"]));
    }, 30_000);
  });
}

test("OpenAI content given as text parts is joined", async () => {
  const h = await createHarness({ openaiBaseUrl: llm.openaiUrl, modelName: "test-model" });
  try {
    llm.reset();
    llm.script([{ rawContent: [{ type: "text", text: '{"title":' }, { type: "refusal", refusal: "" }, { type: "text", text: '"Blue Kettle"}' }] }]);
    const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/product`, maxAge: 0, formats: [{ type: "json", schema: SCHEMA }] } });
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(body.data.json).toEqual({ title: "Blue Kettle" });
  } finally {
    await h.close();
  }
});
