/**
 * The HTML outline deterministicJson shows its model (llm/deterministic/outline.ts, outline-slots.ts), through the API
 * with the fake LLM and the real browser: a text that fits is shown as it fits (minified JSON-LD, a long URL: their
 * first 4,000 and 100 characters, as before the outline was redacted text by text, not nothing); under `redactPII` no
 * part of a card or IBAN that straddles a cut is shown after addresses the redaction shortened; attribute names are
 * redacted as their values are; and the format's budget counts the outline as shown, not the windows the redaction
 * reads past its cuts; PII split across a block's text nodes (`{user}@{domain}`, a card in groups) and in custom element
 * names is redacted. The cut positions one by one, without the API: test/llm/deterministic-outline-cuts.test.ts.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { closeAndAssertNoChromium } from "../browser/helpers.ts";
import { createHarness } from "../helpers/harness.ts";
import type { FakeLlm, LlmRequestLog } from "../llm/fake-llm.ts";
import type { PageSite } from "./pages.ts";
import { isCodegen, useDeterministicJson } from "./deterministic-json-setup.ts";

const ctx = useDeterministicJson();
let site: PageSite;
let llm: FakeLlm;
beforeAll(() => ({ site, llm } = ctx));
const { scrape } = ctx;

const text = (r: LlmRequestLog) => r.messages.map((m) => m.content).join("\n");
const NAME = `async function extract(doc) { return { name: doc.querySelector("h1, p, div").textContent.trim().slice(0, 20) }; }`;
const SCHEMA = { type: "object", properties: { name: { type: "string" } } };
/** The code-writing requests of a scrape of `path` (`html`), whose extractor answers at once. */
const codegens = async (path: string, html: string, extra: Record<string, unknown> = {}) => {
  site.set(path, html);
  llm.reset();
  llm.respond = () => ({ content: NAME });
  const r = await scrape(path, { schema: SCHEMA }, extra);
  expect(r.status).toBe(200);
  expect(r.body.data.warning).toBeUndefined();
  const chats = llm.chats().filter(isCodegen);
  expect(chats).toHaveLength(1);
  return text(chats[0]!);
};

describe("deterministicJson's outline", () => {
  test("minified JSON-LD and a long URL show their first 4,000 and 100 characters, with redactPII or without", async () => {
    const offers = Array.from({ length: 75 }, (_, i) => `{"@type":"Offer","price":"${(19 + i / 100).toFixed(2)}","priceCurrency":"EUR","sku":"kettle-${i}"}`);
    const ld = `{"@context":"https://schema.org","@type":"Product","name":"Blue kettle","offers":[${offers.join(",")}]}`;
    const src = `https://cdn.example.net/images/${"a1b2c3d4e5".repeat(21)}/kettle-blue-larger.jpg`;
    expect(ld.length).toBeGreaterThan(4_800);
    expect(src.length).toBe(264);
    const page = `<!doctype html><html><head><script type="application/ld+json">${ld}</script></head><body><h1>Blue kettle</h1><img class="hero" src="${src}"></body></html>`;
    for (const extra of [{}, { redactPII: { mode: "fast" } }]) {
      const sent = await codegens(`/kettle-${Object.keys(extra).length}`, page, extra);
      expect(sent).toContain(`<script type="application/ld+json">${ld.slice(0, 4_000)}…</script>`);
      expect(sent).toContain(`src="${src.slice(0, 100)}…"`);
    }
  }, 60_000);

  test("a card or an IBAN straddling a cut after addresses the redaction shortened: no part of it is sent", async () => {
    const lead = `Write to ada.${"x".repeat(50)}@example.org or bob.${"x".repeat(50)}@example.org, `;
    // Padded so that the number's last group straddles character 260, the end of the text's first window.
    const paragraph = (pii: string, lastGroupAt: number) => {
      const start = lastGroupAt - pii.lastIndexOf(" ") - 1;
      return `${`${lead}${"pad ".repeat(Math.floor((start - 1 - lead.length) / 4))}`.padEnd(start - 1, "q")} ${pii} then more${" words".repeat(80)}`;
    };
    const card = paragraph("4111 1111 1111 1111", 258);
    const iban = paragraph("GB82 WEST 1234 5698 7654 32", 259);
    expect(card.indexOf("1111 then")).toBe(258);
    expect(iban.indexOf("32 then")).toBe(259);
    const sent = await codegens("/numbers", `<!doctype html><html><body><p>${card}</p><div>${iban}</div></body></html>`, { redactPII: { mode: "fast" } });
    for (const part of ["4111", "1111", "GB82", "WEST", "5698", "7654", "example.org"]) expect(sent).not.toContain(part);
    // The outline's texts show what they can: the numbers redacted, the words after them.
    expect(sent).toMatch(/<p>Write to <EMAIL> or <EMAIL>, pad [^\n]*<FINANCIAL> then more words[^\n]*…<\/p>/);
    expect(sent).toMatch(/<div>Write to <EMAIL> or <EMAIL>, pad [^\n]*<FINANCIAL> then more words[^\n]*…<\/div>/);
  }, 60_000);

  test("attribute names are redacted as their values are", async () => {
    const page = `<!doctype html><html><body><div data-contact-ada.lovelace@example.org aria-ada.lovelace@example.org="x" data-phone="+44 20 7946 0958">Ada</div></body></html>`;
    const sent = await codegens("/named", page, { redactPII: { mode: "fast" } });
    expect(sent).not.toContain("lovelace");
    expect(sent).not.toContain("7946");
    expect(sent).toContain(`<div <EMAIL> <EMAIL>="x" data-phone="<PHONE>">Ada</div>`);
    // Without redactPII the names are shown as written.
    expect(await codegens("/named-plain", page)).toContain(`<div data-contact-ada.lovelace@example.org aria-ada.lovelace@example.org="x"`);
  }, 60_000);

  test("PII split across text nodes and in custom element names is redacted as the markdown's is", async () => {
    // JSX interpolation leaves comments between the parts; a card rendered in groups of four.
    const page = `<!doctype html><html><body><p class="who">Contact: <!-- -->jane.doe<!-- -->@<!-- -->example.org</p><p>Card <span>4111 1111</span> <span>1111 1111</span></p><x-jane.doe@example.org class="c">hi</x-jane.doe@example.org><contact-4111111111111111></contact-4111111111111111></body></html>`;
    const sent = await codegens("/split", page, { redactPII: { mode: "fast" } });
    for (const part of ["jane", "example.org", "4111", "1111"]) expect(sent).not.toContain(part);
    // The tag in the first text the match spans, the rest of it gone from the texts after.
    expect(sent).toContain(`<p class="who">\n Contact:\n <EMAIL>\n</p>\n<p>\n Card\n <span><FINANCIAL></span>\n <span></span>\n</p>`);
    expect(sent).toContain(`<x-<EMAIL> class="c">hi</x-<EMAIL>>\n<contact-<FINANCIAL>>`);
    // Without redactPII the outline is as it was: a line per text node, the names as written.
    const plain = await codegens("/split-plain", page);
    expect(plain).toContain(`<p class="who">\n Contact:\n jane.doe\n @\n example.org\n</p>\n<p>\n Card\n <span>4111 1111</span>\n <span>1111 1111</span>\n</p>`);
    expect(plain).toContain(`<x-jane.doe@example.org class="c">hi</x-jane.doe@example.org>\n<contact-4111111111111111>`);
  }, 60_000);

  test("the format's budget counts the outline as shown, not the windows read past its cuts", async () => {
    // 40 rows of four 300-character attributes: the outline shows 100 of each, the redaction reads 200.
    const small = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model", browserConcurrency: 2, llmContextTokens: 32_768, llmTokenBudget: 7_623 });
    try {
      const value = (k: number) => `${"lorem ipsum ".repeat(25)}${k}`;
      const rows = Array.from({ length: 40 }, (_, i) => `<div class="r" data-a="${value(i)}" data-b="${value(i + 1)}" data-c="${value(i + 2)}" data-d="${value(i + 3)}"></div>`);
      site.set("/rows", `<!doctype html><html><body>${rows.join("")}</body></html>`);
      const count = `async function extract(doc) { return { n: doc.querySelectorAll("div.r").length }; }`;
      const sent: number[] = [];
      for (const extra of [{}, { redactPII: { mode: "fast" } }]) {
        llm.reset();
        llm.respond = () => ({ content: count });
        const res = await small.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/rows`, formats: [{ type: "deterministicJson", schema: { type: "object", properties: { n: { type: "number" } } } }], maxAge: 0, ...extra } });
        const body = (await res.json()) as any;
        expect(body.data.warning).toBeUndefined();
        expect(body.data.json).toEqual({ n: 40 });
        sent.push(Math.ceil(text(llm.chats().find(isCodegen)!).length / 4));
      }
      console.log(`code-writing request: ${sent[0]} tokens without redactPII, ${sent[1]} with (budget 7,623)`);
    } finally {
      await closeAndAssertNoChromium(small);
    }
  }, 120_000);
});
