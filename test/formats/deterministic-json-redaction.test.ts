/**
 * deterministicJson with `redactPII` (plugins/formats/deterministic-json.ts, llm/deterministic/extract.ts,
 * redact/json-strings.ts), through the API with the fake LLM and the real browser: what goes to the model (the
 * markdown, the HTML outline, the extractor's askLlm prompts) carries no PII, and neither does the `json` the
 * extractor reads from the page as served, also when a kept extractor runs with no model asked, nor a failure's
 * warning. Before, the model read the page's e-mail and phone in the outline and `json` returned them, with no warning.
 * Set-up in deterministic-json-setup.ts.
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

const CONTACT = `<!doctype html><html><head><title>Contact</title></head><body><h1>Contact</h1><p class="email">ada.lovelace@example.org</p><p class="phone">+44 20 7946 0958</p><p class="card">Card on file: <span>4111 1111 1111 1111</span></p></body></html>`;
const SCHEMA = { type: "object", properties: { email: { type: "string" }, phone: { type: "string" }, contact: { type: "string" }, who: { type: "string" }, cards: { type: "array", items: { type: "number" } } } };
/** Reads the values from the DOM, joins two of them, asks the model about one, and returns a card as a number. */
const EXTRACTOR = `async function extract(doc, askLlm) {
  const email = doc.querySelector(".email").textContent.trim();
  const phone = doc.querySelector(".phone").textContent.trim();
  const who = await askLlm("Whose address is " + email + "?");
  const card = Number(doc.querySelector(".card span").textContent.replace(/\\D/g, ""));
  return { email, phone, contact: email + " / " + phone, who, cards: [card, 42] };
}`;
const FAILING = `async function extract(doc, askLlm) {
  throw new Error("no name next to " + doc.querySelector(".email").textContent.trim());
}`;

const text = (r: LlmRequestLog) => r.messages.map((m) => m.content).join("\n");
/** A model redaction's request (redact/model.ts), and its answer quoting the page's addresses it was shown. */
const isPii = (r: LlmRequestLog) => r.messages[1]?.content.startsWith("List every piece of PII") === true;
const quoteAddresses = (r: LlmRequestLog) => ({ content: JSON.stringify({ spans: (r.messages[1]!.content.match(/[a-z0-9.]+@example\.org/g) ?? []).map((t) => ({ text: t, type: "EMAIL" })) }) });
/** What a request sends, its schema too. */
const sent = (r: LlmRequestLog) => `${text(r)}\n${JSON.stringify(r.schema ?? null)}`;
/** The fake server's token count of a request and its answer (test/llm/fake-llm.ts: a token per 4 characters). */
const tokensOf = (r: LlmRequestLog, answer: string) => Math.ceil(r.messages.map((m) => m.content).join("\n").length / 4) + Math.ceil(answer.length / 4);
const PII = ["ada.lovelace@example.org", "7946 0958", "4111"];

describe("deterministicJson with redactPII", () => {
  test("the model sees no PII (markdown, outline, askLlm), the json holds none, a kept extractor's neither", async () => {
    site.set("/contact", CONTACT);
    llm.reset();
    llm.respond = (req) => (isCodegen(req) ? { content: EXTRACTOR } : { content: "Ada's" });
    const r = await scrape("/contact", { schema: SCHEMA }, { redactPII: { mode: "fast" }, formats: ["markdown", { type: "deterministicJson", schema: SCHEMA }] });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain("<EMAIL>");
    expect(r.body.data.json).toEqual({ email: "<EMAIL>", phone: "<PHONE>", contact: "<EMAIL> / <PHONE>", who: "Ada's", cards: ["<FINANCIAL>", 42] });
    expect(r.body.data.warning).toBeUndefined();
    const chats = llm.chats();
    expect(chats.map((c) => (isCodegen(c) ? "codegen" : "askLlm"))).toEqual(["codegen", "askLlm"]);
    // The outline is there, redacted; the system prompts are crawlbox's own, as they were.
    expect(text(chats[0]!)).toMatch(/class="email"[^\n]*<EMAIL>/);
    expect(text(chats[1]!)).toContain("Whose address is <EMAIL>?");
    for (const c of chats) for (const pii of PII) expect(text(c)).not.toContain(pii);

    // The kept extractor runs on the page as served, with no model asked but askLlm's: its json is redacted too.
    llm.reset();
    const again = await scrape("/contact", { schema: SCHEMA }, { redactPII: { mode: "fast" }, formats: [{ type: "deterministicJson", schema: SCHEMA }] });
    expect(again.body.data.json.contact).toBe("<EMAIL> / <PHONE>");
    expect(llm.chats().filter(isCodegen)).toHaveLength(0);
    for (const c of llm.chats()) for (const pii of PII) expect(text(c)).not.toContain(pii);
  });

  test("a failure's warning, which quotes what the extractor read, is redacted", async () => {
    site.set("/contact-fails", CONTACT);
    llm.reset();
    llm.respond = () => ({ content: FAILING });
    const r = await scrape("/contact-fails", { schema: SCHEMA }, { redactPII: { mode: "fast" } });
    expect(r.status).toBe(200);
    expect(r.body.data.json).toBeUndefined();
    expect(r.body.data.warning).toContain("no name next to <EMAIL>");
    expect(r.body.data.warning).not.toContain("ada.lovelace@example.org");
    for (const c of llm.chats()) for (const pii of PII) expect(text(c)).not.toContain(pii);
  });

  test("the caller's schema and prompt reach the model as written; the page's PII does not, nor a retry's quote of it", async () => {
    site.set("/contact-own", CONTACT);
    llm.reset();
    const schema = { type: "object", properties: { email: { type: "string", description: "e.g. help@caller.example", enum: ["help@caller.example", "ada.lovelace@example.org"] } } };
    const prompt = "Return the address; ours is +1 415 555 0100, ignore it";
    let codegens = 0;
    llm.respond = (req) => (isCodegen(req) ? { content: codegens++ === 0 ? FAILING : EXTRACTOR } : { content: "Ada's" });
    const r = await scrape("/contact-own", { schema, prompt }, { redactPII: { mode: "fast" } });
    expect(r.status).toBe(200);
    const chats = llm.chats().filter(isCodegen);
    expect(chats).toHaveLength(2);
    for (const c of chats) {
      expect(text(c)).toContain(JSON.stringify(schema));
      expect(text(c)).toContain(prompt);
      // The page's own address appears only where the caller wrote it (the schema's enum), never from the page.
      expect(text(c).split("ada.lovelace@example.org")).toHaveLength(2);
      expect(text(c)).not.toContain("7946 0958");
      expect(text(c)).toMatch(/class="email"[^\n]*<EMAIL>/);
    }
    expect(text(chats[1]!)).toContain("no name next to <EMAIL>");
  });

  test("an extractor written from redacted text is kept apart: not reused without redaction, nor the other way round", async () => {
    site.set("/contact-keyed", CONTACT);
    llm.reset();
    llm.respond = (req) => (isCodegen(req) ? { content: EXTRACTOR } : { content: "Ada's" });
    const codegens = () => llm.chats().filter(isCodegen).length;
    await scrape("/contact-keyed", { schema: SCHEMA }, { redactPII: { mode: "fast" } });
    expect(codegens()).toBe(1);
    const plain = await scrape("/contact-keyed", { schema: SCHEMA });
    expect(plain.body.data.json.email).toBe("ada.lovelace@example.org");
    expect(codegens()).toBe(2);
    // Each is reused under its own redaction; another redaction's options are another key.
    await scrape("/contact-keyed", { schema: SCHEMA }, { redactPII: { mode: "fast" } });
    await scrape("/contact-keyed", { schema: SCHEMA });
    expect(codegens()).toBe(2);
    await scrape("/contact-keyed", { schema: SCHEMA }, { redactPII: { mode: "fast", entities: ["EMAIL"] } });
    expect(codegens()).toBe(3);
  });

  test("an askLlm schema built from the page (enum, description, title, property names) reaches the model redacted", async () => {
    const people = `<!doctype html><html><body><ul>${["ada", "bob", "cy"].map((n) => `<li class="p"><span class="e">${n}.person@example.org</span> writes</li>`).join("")}</ul></body></html>`;
    const picks = `async function extract(doc, askLlm) {
  const emails = [...doc.querySelectorAll(".e")].map((e) => e.textContent.trim());
  const pick = await askLlm("Who writes?", { type: "string", enum: emails, description: "one of " + emails.join(", "), title: emails[0] });
  const props = {};
  for (const e of emails) props[e] = { type: "string", description: "about " + e };
  const byName = await askLlm("Describe each", { type: "object", properties: props, required: [emails[1]] });
  return { pick, byName };
}`;
    site.set("/people", people);
    llm.reset();
    llm.respond = (req) =>
      isCodegen(req) ? { content: picks } : JSON.stringify(req.schema).includes('"enum"') ? { content: '"<EMAIL>"' } : { content: JSON.stringify({ "<EMAIL> (2)": "the second" }) };
    const schema = { type: "object", properties: { pick: { type: "string" }, byName: { type: "object" } } };
    const r = await scrape("/people", { schema }, { redactPII: { mode: "fast" } });
    expect(r.status).toBe(200);
    for (const c of llm.chats()) expect(sent(c)).not.toMatch(/[a-z]+\.person@example\.org/);
    expect(r.body.data.warning).toBeUndefined();
    const asks = llm.chats().filter((c) => !isCodegen(c));
    expect(asks).toHaveLength(2);
    // The schemas as sent: the addresses redacted (the enum's three one choice), names kept apart, required renamed.
    expect(asks[0]!.schema).toEqual({ type: "string", enum: ["<EMAIL>"], description: "one of <EMAIL>, <EMAIL>, <EMAIL>", title: "<EMAIL>" });
    expect(asks[1]!.schema).toEqual({
      type: "object",
      properties: { "<EMAIL>": { type: "string", description: "about <EMAIL>" }, "<EMAIL> (2)": { type: "string", description: "about <EMAIL>" }, "<EMAIL> (3)": { type: "string", description: "about <EMAIL>" } },
      required: ["<EMAIL> (2)"],
    });
    // The answers are checked against the schemas as sent: an enum choice comes back redacted.
    expect(r.body.data.json).toEqual({ pick: "<EMAIL>", byName: { "<EMAIL> (2)": "the second" } });
  }, 60_000);

  test("an address the outline shortens is redacted whole, not sent as a fragment", async () => {
    const long = `<!doctype html><html><body><p class="bio">${"x".repeat(150)} carol.smith@example.org writes</p><a title="${"y".repeat(90)} dave.jones@example.org" href="/d">Dave</a></body></html>`;
    site.set("/long", long);
    llm.reset();
    llm.respond = () => ({ content: FAILING });
    await scrape("/long", { schema: SCHEMA }, { redactPII: { mode: "fast" } });
    const codegens = llm.chats().filter(isCodegen);
    expect(codegens.length).toBeGreaterThan(0);
    for (const c of codegens) {
      expect(text(c)).not.toContain("carol");
      expect(text(c)).not.toContain("dave");
      // Redacted, then shortened: the text at 160 characters; the attribute, redacted, fits its 100.
      expect(text(c)).toContain(`${"x".repeat(150)} <EMAIL> w…`);
      expect(text(c)).toContain(`title="${"y".repeat(90)} <EMAIL>"`);
    }
  }, 60_000);

  test("the redaction of what the format sends its model draws on the format's token budget", async () => {
    const BUDGET = 8_000;
    const small = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model", browserConcurrency: 2, llmTokenBudget: BUDGET });
    try {
      const page = `<!doctype html><html><body><ul>${Array.from({ length: 12 }, (_, i) => `<li class="c">person${i}@example.org writes</li>`).join("")}</ul></body></html>`;
      // Twelve long questions, each quoting an entry (its address): about 1,000 tokens each, twice with redaction.
      const asks = `async function extract(doc, askLlm) {
  const out = [];
  let i = 0;
  for (const li of doc.querySelectorAll("li.c")) {
    const q = "Q" + i++ + ": classify " + (li.textContent + " ").repeat(160);
    try { out.push(String(await askLlm(q))); } catch (e) { out.push("err " + String(e && e.message)); }
  }
  return { kinds: out };
}`;
      site.set("/budget", page);
      llm.reset();
      let tokens = 0;
      llm.respond = (req) => {
        const reply = isCodegen(req) ? { content: asks } : isPii(req) ? quoteAddresses(req) : { content: "a writer" };
        tokens += tokensOf(req, reply.content);
        return reply;
      };
      const res = await small.request("/v2/scrape", {
        method: "POST",
        json: { url: `${site.url}/budget`, formats: [{ type: "deterministicJson", schema: { type: "object", properties: { kinds: { type: "array" } } } }], maxAge: 0, redactPII: { mode: "accurate" } },
      });
      const body = (await res.json()) as any;
      expect(res.status).toBe(200);
      const kinds = body.data.json.kinds as string[];
      const refused = kinds.findIndex((k) => k.startsWith("err ") && k.includes("budget"));
      expect(refused).toBeGreaterThan(0);
      const chats = llm.chats();
      // The first request is the markdown's redaction, on the scrape's own budget, as for every format.
      expect(isPii(chats[0]!)).toBe(true);
      const markdownTokens = tokensOf(chats[0]!, quoteAddresses(chats[0]!).content);
      // The format's calls, its redactions too: within its budget, give or take one call's estimate.
      expect(tokens - markdownTokens).toBeLessThanOrEqual(BUDGET + 1_500);
      // Once an askLlm was refused for the budget, no later question is redacted (nor sent).
      const redactedQuestions = chats.filter(isPii).map((c) => Number(/Q(\d+):/.exec(c.messages[1]!.content)?.[1] ?? -1));
      expect(Math.max(...redactedQuestions)).toBeLessThanOrEqual(refused);
      expect(kinds.slice(refused).every((k) => k.startsWith("err "))).toBe(true);
      console.log(`budget ${BUDGET}: the format's calls took ${tokens - markdownTokens} tokens in ${chats.length - 1} requests; ${chats.filter(isPii).length - 1} redactions; first refusal at question ${refused}, last question redacted ${Math.max(...redactedQuestions)}`);
    } finally {
      await closeAndAssertNoChromium(small);
    }
  }, 120_000);
});
