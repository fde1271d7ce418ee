/**
 * `redactPII` through the API (redact/redactor.ts): the three modes against a local page and the fake LLM, the
 * replacement styles and entity buckets, what is charged, that only markdown is redacted and that the stored copy
 * is the redacted one; without an LLM the model modes are a 400 that names the fast mode.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";
import { buildPdf } from "../fixtures/documents/pdf-builder.ts";
import { page, startPageSite, type PageSite } from "../formats/pages.ts";

let site: PageSite;
let llm: FakeLlm;
let withLlm: Harness;
let without: Harness;

const CONTACT = page(
  "Contact",
  "Ada Lovelace answers at ada@example.org or +44 20 7946 0958.",
  "Visit us at 12 Baker Street, London NW1 6XE.",
  "Pay to DE89 3704 0044 0532 0130 00; the staging key is sk-test-abcdefghijklmnopqrstuvwx.",
);

beforeAll(async () => {
  site = startPageSite();
  site.set("/contact", CONTACT);
  llm = startFakeLlm();
  withLlm = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model" });
  without = await createHarness();
});
afterAll(async () => {
  await withLlm.close();
  await without.close();
  site.stop();
  llm.stop();
});

async function scrape(h: Harness, body: Record<string, unknown>) {
  const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/contact`, maxAge: 0, ...body } });
  return { status: res.status, body: (await res.json()) as any };
}

const MODEL_SPANS = JSON.stringify({
  spans: [
    { text: "Ada Lovelace", type: "PERSON" },
    { text: "12 Baker Street, London NW1 6XE", type: "LOCATION" },
    { text: "a name the page does not contain", type: "PERSON" },
  ],
});

describe("redactPII", () => {
  test("fast: patterns only, no model call; tags in markdown, html untouched, 1 + 4 credits", async () => {
    llm.reset();
    const r = await scrape(withLlm, { formats: ["markdown", "html"], redactPII: { mode: "fast" } });
    expect(r.status).toBe(200);
    const md: string = r.body.data.markdown;
    expect(md).toContain("answers at <EMAIL> or <PHONE>.");
    expect(md).toContain("Pay to <FINANCIAL>; the staging key is <SECRET>.");
    expect(md).toContain("Ada Lovelace"); // names need the model
    expect(r.body.data.html).toContain("ada@example.org");
    expect(r.body.data.warning).toBe("redactPII redacts the markdown (and what is built from it) only; html still holds the page as served.");
    expect(r.body.data.metadata.creditsUsed).toBe(5);
    expect(llm.chats()).toHaveLength(0);
    // The stored copy (GET /v2/scrape/{id}) is the redacted one.
    const stored = (await (await withLlm.request(`/v2/scrape/${r.body.data.metadata.scrapeId}`)).json()) as any;
    expect(stored.data.markdown).not.toContain("ada@example.org");
  });

  test("accurate (the default): the model's quotes only; aggressive: the model and the patterns", async () => {
    llm.reset();
    llm.script([{ content: MODEL_SPANS }]);
    const accurate = await scrape(withLlm, { redactPII: true });
    expect(accurate.status).toBe(200);
    expect(accurate.body.data.markdown).toContain("<PERSON> answers at ada@example.org");
    expect(accurate.body.data.markdown).toContain("Visit us at <LOCATION>.");
    const sent = llm.chats()[0]!;
    expect(sent.messages[1]!.content).toContain("PERSON: names of people");
    expect((sent.schema as any).properties.spans.items.properties.type.enum).toEqual(["PERSON", "EMAIL", "PHONE", "LOCATION", "FINANCIAL", "SECRET"]);

    llm.reset();
    llm.script([{ content: MODEL_SPANS }]);
    const aggressive = await scrape(withLlm, { redactPII: { mode: "aggressive", replaceStyle: "mask" } });
    expect(aggressive.body.data.markdown).toContain("************ answers at *************** or ****************.");
    expect(aggressive.body.data.markdown).not.toContain("Baker Street");
  });

  test("entities limit the buckets, for the model too; remove deletes the spans", async () => {
    llm.reset();
    llm.script([{ content: JSON.stringify({ spans: [{ text: "Ada Lovelace", type: "PERSON" }] }) }]);
    const r = await scrape(withLlm, { redactPII: { mode: "aggressive", entities: ["PERSON", "EMAIL"], replaceStyle: "remove" } });
    expect(r.body.data.markdown).toContain(" answers at  or +44 20 7946 0958.");
    expect((llm.chats()[0]!.schema as any).properties.spans.items.properties.type.enum).toEqual(["PERSON", "EMAIL"]);
  });

  test("without an LLM the model modes are refused before fetching, naming the fast mode; fast works", async () => {
    const before = site.hits.get("/contact") ?? 0;
    const r = await scrape(without, { redactPII: true });
    expect([r.status, r.body.code]).toEqual([400, "LLM_NOT_CONFIGURED"]);
    expect(r.body.error).toContain('{"mode": "fast"}');
    expect(site.hits.get("/contact") ?? 0).toBe(before);
    const fast = await scrape(without, { redactPII: { mode: "fast" } });
    expect(fast.body.data.markdown).toContain("<EMAIL>");
  });

  test("every format built from the markdown reads the redacted copy: changeTracking's diff and history carry no PII", async () => {
    site.set("/changing", page("Team", "Reach the team at team@example.org."));
    const track = (extra = {}) =>
      without.request("/v2/scrape", {
        method: "POST",
        json: { url: `${site.url}/changing`, maxAge: 0, formats: ["markdown", { type: "changeTracking", modes: ["git-diff"] }], redactPII: { mode: "fast" }, ...extra },
      });
    expect((await track()).status).toBe(200);
    site.set("/changing", page("Team", "Reach the team at team@example.org.", "New: call +44 20 7946 0958 or write to boss@example.org."));
    const second = (await (await track()).json()) as any;
    expect(second.data.changeTracking.changeStatus).toBe("changed");
    const diff = JSON.stringify(second.data.changeTracking);
    expect(diff).toContain("<PHONE>");
    expect(diff).not.toContain("boss@example.org");
    expect(diff).not.toContain("7946");
  });

  test("changeTracking compares with a redacted copy of a previous snapshot stored without redaction", async () => {
    site.set("/earlier", page("Contact", "Write to ada@example.org today."));
    const formats = [{ type: "changeTracking", modes: ["git-diff"] }, "markdown"];
    await without.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/earlier`, maxAge: 0, formats } });
    site.set("/earlier", page("Contact", "Write to ada@example.org tomorrow."));
    const res = await without.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/earlier`, maxAge: 0, formats, redactPII: { mode: "fast" } } });
    const body = (await res.json()) as any;
    expect(body.data.changeTracking.changeStatus).toBe("changed");
    expect(JSON.stringify(body.data.changeTracking)).not.toContain("ada@example.org");
    expect(body.data.changeTracking.diff.text).toContain("<EMAIL>");
  });

  test("a parsed PDF's per-page markdown (pages: true) is redacted like the document's", async () => {
    const pdf = await buildPdf([{ runs: [{ text: "Contact ada@example.org for the report.", x: 72, y: 100, size: 12 }] }]);
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(pdf.slice().buffer, { headers: { "content-type": "application/pdf" } }) });
    try {
      const res = await without.request("/v2/scrape", {
        method: "POST",
        json: { url: `http://127.0.0.1:${server.port}/r.pdf`, maxAge: 0, parsers: [{ type: "pdf", pages: true }], redactPII: { mode: "fast" } },
      });
      const body = (await res.json()) as any;
      expect(body.data.markdown).toContain("Contact <EMAIL> for the report.");
      expect(body.data.pages[0].markdown).toContain("Contact <EMAIL> for the report.");
      expect(body.data.metadata.creditsUsed).toBe(5);
    } finally {
      server.stop(true);
    }
  });

  test("a batch's pages are redacted and charged like a scrape's", async () => {
    const res = await without.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${site.url}/contact`], maxAge: 0, redactPII: { mode: "fast" } } });
    const { id } = (await res.json()) as any;
    let status: any;
    for (let i = 0; i < 200; i++) {
      status = await (await without.request(`/v2/batch/scrape/${id}`)).json();
      if (status.status !== "scraping") break;
      await Bun.sleep(25);
    }
    expect(status.status).toBe("completed");
    expect(status.data[0].markdown).toContain("<EMAIL>");
    expect(status.creditsUsed).toBe(5);
  });
});
