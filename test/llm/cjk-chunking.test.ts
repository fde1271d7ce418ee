/**
 * Chunks are sized by estimated tokens, not characters (src/llm/chunk.ts): a Chinese page's requests fit the model's
 * context, through the real API against the local fake LLM (both protocols), and an ASCII page is cut exactly where
 * it was cut before.
 *
 * "Fits" is judged by a worst-case count written out here, independent of crawlbox's estimate: each character outside
 * ASCII is 1.5 tokens (GPT-4's cl100k, the costliest common tokenizer for Chinese, spends 0.93 a character on
 * Simplified and 1.48 on Traditional Chinese; o200k, Llama 3 and Qwen spend less) but CJK and fullwidth punctuation
 * (，。、：), one token each in cl100k; each ASCII character a third of a token (crawlbox's own assumption; ASCII is
 * not what this file tests). Before, chunks were 3 characters a token: a
 * 60 KB Chinese page's summary requests were ~17,000 characters, ~25,000 tokens by this count with a context of
 * 8,192, which vLLM and LM Studio refuse (400, context length) and Ollama cuts from the start.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Config } from "../../src/config.ts";
import { chunkText, estimateTokens } from "../../src/llm/chunk.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { page, startPageSite, type PageSite } from "../formats/pages.ts";
import { startFakeLlm, type FakeLlm, type LlmRequestLog } from "./fake-llm.ts";

/** CRAWLBOX_LLM_CONTEXT_TOKENS' default. */
const CONTEXT_TOKENS = 8192;

/** Worst-case tokens of `text` (see the module comment). */
function worstCaseTokens(text: string): number {
  let tokens = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    const punctuation = (code >= 0x3000 && code < 0x3040) || (code >= 0xff00 && code < 0xfff0);
    tokens += code <= 0x7f ? 1 / 3 : punctuation ? 1 : 1.5;
  }
  return Math.ceil(tokens);
}

/** Prompt tokens (worst case) plus the answer the request reserves, within the context. */
function fitsContext(r: LlmRequestLog): { worst: number; fits: boolean } {
  const reserved = r.protocol === "ollama" ? r.body.options.num_predict : (r.body.max_tokens ?? r.body.max_completion_tokens);
  const worst = worstCaseTokens(r.messages.map((m) => m.content).join("\n")) + reserved;
  return { worst, fits: worst <= CONTEXT_TOKENS };
}

const SENTENCES = [
  "本店位于城市中心，营业时间为每天上午九点至晚上十点。",
  "我们提供各种茶具、水壶和厨房用品，所有商品均可在线订购。",
  "顾客可以通过电话或电子邮件联系客服，我们会在二十四小时内回复。",
  "每逢节假日，店内会举办促销活动，部分商品享受八折优惠。",
  "我们的水壶采用不锈钢材质，经久耐用，适合日常使用。",
  "如需退换货，请在收到商品后七天内与我们联系，并保留原始包装。",
  "會員可以累積積分，積分可用於兌換禮品或抵扣現金。",
  "本店自二零零五年開業以來，一直致力於為顧客提供優質的產品和服務。",
];
/** About 60 KB of UTF-8: ~20,000 Chinese characters in 100 paragraphs. */
const CHINESE_PARAGRAPHS = Array.from({ length: 100 }, (_, i) => Array.from({ length: 8 }, (_, j) => SENTENCES[(i + j) % SENTENCES.length]).join(""));

let site: PageSite;
let llm: FakeLlm;

beforeAll(() => {
  site = startPageSite();
  site.set("/zh", page("水壶商店", ...CHINESE_PARAGRAPHS));
  llm = startFakeLlm();
});
afterAll(() => {
  site.stop();
  llm.stop();
});

const PROVIDERS: { name: string; config: () => Partial<Config> }[] = [
  { name: "ollama", config: () => ({ ollamaBaseUrl: llm.url, modelName: "test-model" }) },
  { name: "openai", config: () => ({ openaiBaseUrl: llm.openaiUrl, modelName: "test-model" }) },
];

for (const p of PROVIDERS) {
  describe(`a 60 KB Chinese page, ${p.name} provider, context ${CONTEXT_TOKENS}`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await createHarness({ ...p.config(), llmContextTokens: CONTEXT_TOKENS });
    });
    afterAll(() => h.close());

    test("summary: every chunk request and every merge request fits the context", async () => {
      llm.reset();
      // Each chunk's summary is ~1,000 Chinese characters, so the merge requests are big too.
      llm.respond = () => ({ content: SENTENCES.join("").repeat(4) });
      const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/zh`, formats: ["summary"], maxAge: 0 } });
      const body = (await res.json()) as any;
      expect({ status: res.status, code: body.code }).toEqual({ status: 200, code: undefined });
      const chats = llm.chats();
      expect(chats.length).toBeGreaterThan(2);
      const over = chats.map(fitsContext).filter((x) => !x.fits);
      expect(over).toEqual([]);
      // The whole page was read: the last paragraph's text reached the model.
      expect(chats.some((c) => c.messages.some((m) => m.content.includes(CHINESE_PARAGRAPHS.at(-1)!)))).toBe(true);
    }, 30_000);

    test("json: every chunk request fits the context", async () => {
      llm.reset();
      llm.respond = () => ({ content: JSON.stringify({ hours: "上午九点至晚上十点" }) });
      const schema = { type: "object", properties: { hours: { type: ["string", "null"] } } };
      const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/zh`, formats: [{ type: "json", schema }], maxAge: 0 } });
      expect(res.status).toBe(200);
      expect(llm.chats().length).toBeGreaterThan(1);
      expect(llm.chats().map(fitsContext).filter((x) => !x.fits)).toEqual([]);
    }, 30_000);
  });
}

describe("chunkText and estimateTokens", () => {
  test("a Chinese text: estimated at no less than the worst-case count; chunks within the size in tokens", () => {
    const text = CHINESE_PARAGRAPHS.join("\n\n");
    expect(estimateTokens(text)).toBeGreaterThanOrEqual(worstCaseTokens(text));
    const maxChars = 3000; // 1,000 tokens at 3 ASCII characters a token
    const chunks = chunkText(text, maxChars);
    for (const c of chunks) expect(worstCaseTokens(c)).toBeLessThanOrEqual(1000);
    expect(chunks.join("\n\n")).toBe(text);
  });

  test("one long line without breaks is cut by tokens, never between the halves of an emoji", () => {
    const line = "价格😀".repeat(2000);
    const chunks = chunkText(line, 300);
    for (const c of chunks) {
      expect(worstCaseTokens(c)).toBeLessThanOrEqual(100);
      expect(c).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/);
    }
    expect(chunks.join("")).toBe(line);
  });

  /** The character-based chunker as it was (3 characters a token for every script), for ASCII input. */
  function chunkByCharacters(text: string, maxChars: number): string[] {
    if (text.length <= maxChars) return [text];
    const chunks: string[] = [];
    let cur = "";
    const flush = () => {
      if (cur.trim() !== "") chunks.push(cur);
      cur = "";
    };
    const push = (piece: string, sep: string) => {
      if (cur === "") cur = piece;
      else if (cur.length + sep.length + piece.length <= maxChars) cur += sep + piece;
      else (flush(), (cur = piece));
    };
    for (const block of text.split(/\n{2,}/)) {
      if (block.length <= maxChars) push(block, "\n\n");
      else for (const line of block.split("\n")) {
        if (line.length <= maxChars) push(line, "\n");
        else for (let i = 0; i < line.length; i += maxChars) push(line.slice(i, i + maxChars), "");
      }
    }
    flush();
    return chunks.length > 0 ? chunks : [text.slice(0, maxChars)];
  }

  test("an ASCII text is cut exactly where the character-based chunker cut it", () => {
    const words = ["kettle", "price", "EUR", "https://shop.example/items?id=42", "#", "-", "|", "Opening hours: 9-17."];
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const paragraphs = Array.from({ length: 400 }, () => Array.from({ length: 5 + rand(60) }, () => words[rand(words.length)]).join(rand(5) === 0 ? "\n" : " "));
    const text = paragraphs.join("\n\n") + "\n\n" + "x".repeat(5000);
    for (const maxChars of [1, 50, 256, 1000, 16_896]) expect(chunkText(text, maxChars)).toEqual(chunkByCharacters(text, maxChars));
    expect(estimateTokens(text)).toBe(Math.ceil(text.length / 3));
  });
});
