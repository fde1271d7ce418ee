/**
 * deterministicJson with `redactPII` (plugins/formats/deterministic-json.ts, llm/deterministic/extract.ts,
 * redact/json-strings.ts), through the API with the fake LLM and the real browser: what goes to the model (the
 * markdown, the HTML outline, the extractor's askLlm prompts) carries no PII, and neither does the `json` the
 * extractor reads from the page as served, also when a kept extractor runs with no model asked, nor a failure's
 * warning. Before, the model read the page's e-mail and phone in the outline and `json` returned them, with no warning.
 * Set-up in deterministic-json-setup.ts.
 */
import { beforeAll, describe, expect, test } from "bun:test";
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
});
