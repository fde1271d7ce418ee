/**
 * An extractor's `askLlm` schemas under `redactPII` (llm/deterministic/ask-schema.ts), through the API with the fake
 * LLM and the real browser: an `enum` of objects built from the page (`[{name, email}]`) is redacted member by member,
 * strings, numbers and keys; a `description` or `title` that is not a string (a list of the page's addresses) is
 * refused, with or without redaction, as JSON Schema has them text; and a number choice redacted to `"<FINANCIAL>"`
 * widens the schema's `type` to take it, so the model's answer can be that choice. Before, the objects and lists went
 * to the model as the page has them, and `{type: "integer", enum: ["<FINANCIAL>", 42]}` matched no answer (null).
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

/** What a request sends, its schema too. */
const sent = (r: LlmRequestLog) => `${r.messages.map((m) => m.content).join("\n")}\n${JSON.stringify(r.schema ?? null)}`;

const PAGE = `<!doctype html><html><body><ul>
<li class="p" data-name="Ada"><span class="e">ada.lovelace@example.org</span></li>
<li class="p" data-name="Bob"><span class="e">bob.babbage@example.org</span></li>
</ul><p>Paid with <span class="card">4111 1111 1111 1111</span></p></body></html>`;

const ASKS = `async function extract(doc, askLlm) {
  const people = [...doc.querySelectorAll("li.p")].map((li) => ({ name: li.dataset.name, email: li.querySelector(".e").textContent.trim() }));
  const who = await askLlm("Who?", { type: "object", enum: people });
  let described;
  try {
    described = await askLlm("Which?", { type: "string", description: people.map((p) => p.email), title: [people[0].email] });
  } catch (e) {
    described = "refused: " + e.message;
  }
  const card = Number(doc.querySelector(".card").textContent.replace(/\\D/g, ""));
  const paid = await askLlm("Which card paid?", { type: "integer", enum: [card, 42] });
  return { who, described, paid };
}`;

const SCHEMA = { type: "object", properties: { who: {}, described: { type: "string" }, paid: {} } };

describe("deterministicJson's askLlm schemas with redactPII", () => {
  test("an enum of objects is redacted member by member; a description or title that is not text is refused", async () => {
    site.set("/people", PAGE);
    llm.reset();
    llm.respond = (req) => {
      if (isCodegen(req)) return { content: ASKS };
      const enumOf = JSON.stringify((req.schema as { enum?: unknown } | undefined)?.enum ?? null);
      return { content: enumOf.includes("FINANCIAL") ? '"<FINANCIAL>"' : JSON.stringify({ name: "Ada", email: "<EMAIL>" }) };
    };
    const r = await scrape("/people", { schema: SCHEMA }, { redactPII: { mode: "fast" } });
    expect(r.status).toBe(200);
    for (const c of llm.chats()) for (const pii of ["lovelace", "babbage", "example.org", "4111"]) expect(sent(c)).not.toContain(pii);
    expect(r.body.data.warning).toBeUndefined();
    const asks = llm.chats().filter((c) => !isCodegen(c));
    // The refused call never reached the model.
    expect(asks).toHaveLength(2);
    expect(asks[0]!.schema).toEqual({ type: "object", enum: [{ name: "Ada", email: "<EMAIL>" }, { name: "Bob", email: "<EMAIL>" }] });
    expect(r.body.data.json.who).toEqual({ name: "Ada", email: "<EMAIL>" });
    expect(r.body.data.json.described).toContain("askLlm's schema: description must be a string");
  }, 60_000);

  test("a number choice redacted to text widens the type, so the answer can be that choice", async () => {
    site.set("/paid", PAGE);
    const firstChoice = (req: LlmRequestLog) => (isCodegen(req) ? { content: ASKS } : { content: JSON.stringify((req.schema as { enum?: unknown[] }).enum?.[0] ?? null) });
    llm.reset();
    llm.respond = firstChoice;
    const r = await scrape("/paid", { schema: SCHEMA }, { redactPII: { mode: "fast" } });
    expect(r.status).toBe(200);
    const cardAsk = () => llm.chats().find((c) => sent(c).includes("Which card paid?"))!;
    expect(cardAsk().schema).toEqual({ type: ["integer", "string"], enum: ["<FINANCIAL>", 42] });
    expect(r.body.data.json.paid).toBe("<FINANCIAL>");
    // Without redaction the schema goes as written (and the card comes back as the page has it).
    llm.reset();
    llm.respond = firstChoice;
    const plain = await scrape("/paid", { schema: SCHEMA });
    expect(cardAsk().schema).toEqual({ type: "integer", enum: [4111111111111111, 42] });
    expect(plain.body.data.json.paid).toBe(4111111111111111);
    expect(plain.body.data.json.described).toContain("description must be a string");
  }, 60_000);
});
