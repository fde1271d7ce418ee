/**
 * The deterministicJson outline's cuts (llm/deterministic/outline.ts, outline-slots.ts) under the real pattern
 * redaction, redacted as the format does (redact/json-strings.ts): for every position of a card, an IBAN, a phone
 * or an address around a text's cut, after addresses the redaction shortens (`<EMAIL>`) or not, in a text node and
 * an attribute, and inside a run without spaces, no part of the PII is shown. Before, a card straddling the window's
 * end lost only its last group and the first three were shown (`4111 1111 1111 …`). And the scan that ends a window
 * costs a bounded number of characters however long a run without spaces is (it was a regular expression,
 * quadratic in such a run). The format through the API: test/formats/deterministic-json-outline.test.ts.
 */
import { expect, test } from "bun:test";
import { htmlOutline } from "../../src/llm/deterministic/outline.ts";
import { redactJsonStrings } from "../../src/redact/json-strings.ts";
import { patternRedactor, piiOptions } from "../../src/redact/redactor.ts";

const fast = piiOptions({ mode: "fast" })!;
/** The outline's texts redacted as extract.ts has them: together, by the scrape's own redactor. */
const redact = async (texts: string[]) => (await redactJsonStrings(texts, (t) => patternRedactor.redact(t, fast, { deadline: Date.now() + 60_000 }))) as string[];
const email = (who: string) => `${who}.${"x".repeat(50)}@example.org`;

/** PII and the pieces of it none of which may be shown. */
const CASES = [
  { pii: "4111 1111 1111 1111", parts: ["4111", "1111"] },
  { pii: "4111-1111-1111-1111", parts: ["4111", "1111"] },
  { pii: "GB82 WEST 1234 5698 7654 32", parts: ["GB82", "WEST", "1234", "5698", "7654"] },
  { pii: "+44 20 7946 0958", parts: ["+44", "7946", "0958"] },
  { pii: "carol.smith@example.org", parts: ["carol", "smith", "example.org"] },
];

/** `pii` at `at` characters into a long text, after `lead` (addresses that redact shorter, or none). */
const textWith = (lead: string, at: number, pii: string) => {
  const pad = at - lead.length;
  const filler = pad <= 0 ? "" : `${"pad ".repeat(Math.floor((pad - 1) / 4))}${"q".repeat((pad - 1) % 4)} `;
  return `${lead}${filler}${pii} then more words${" and so on".repeat(60)}`;
};

test("no part of a card, an IBAN, a phone or an address around a cut is shown, whatever redaction shortened before it", async () => {
  const leads = ["", `Write to ${email("ada")} or ${email("bob")}, `, `${Array.from({ length: 12 }, (_, i) => email(`p${i}`)).join(" ")} `];
  let outlines = 0;
  let shortest = Infinity;
  for (const { pii, parts } of CASES) {
    for (const lead of leads) {
      // A text node is cut at 160 (its window at 260), an attribute value at 100 (200): every position around both.
      for (let at = Math.max(lead.length, 80); at <= lead.length + 300; at += 1) {
        const text = textWith(lead, at, pii);
        const outline = await htmlOutline(`<body><p class="t">${text}</p><a title="${text}" href="/x">x</a></body>`, 100_000, redact);
        outlines++;
        for (const part of parts) {
          if (outline.includes(part)) throw new Error(`"${part}" of ${pii} shown, at ${at} after ${lead.length} characters:\n${outline}`);
        }
        if (lead.length < 200) shortest = Math.min(shortest, /<p class="t">(.*)<\/p>/.exec(outline)![1]!.length);
      }
    }
  }
  expect(outlines).toBeGreaterThan(3_000);
  // A redaction that shortened the text has it read further: a text node still shows its 160 characters (and `…`).
  expect(shortest).toBe(161);
});

test("inside a run without spaces (minified JSON, a long URL), PII the window cuts is not shown either", async () => {
  for (const lead of ["", `${Array.from({ length: 12 }, (_, i) => email(`p${i}`)).join(" ")} `]) {
    for (let at = 0; at <= 420; at += 1) {
      const text = `${lead}${"k".repeat(at)}/4111111111111111/carol.smith@example.org/${"k".repeat(600)}`;
      const outline = await htmlOutline(`<body><p>${text}</p><img alt="${text}"></body>`, 100_000, redact);
      for (const part of ["4111", "1111", "carol", "smith"]) {
        if (outline.includes(part)) throw new Error(`"${part}" shown, at ${at}:\n${outline}`);
      }
      // PII-free runs show their full length, as before the outline was redacted.
      if (lead === "" && at >= 160) expect(outline).toContain(`<p>${"k".repeat(160)}…</p>`);
    }
  }
});

test("a long run without spaces shows its first characters, with or without redaction", async () => {
  const ld = `{"@context":"https://schema.org","@type":"Product","name":"Blue kettle","offers":[${Array.from({ length: 75 }, (_, i) => `{"@type":"Offer","price":"${i}.99","priceCurrency":"EUR","sku":"kettle-${i}"}`).join(",")}]}`;
  const src = `https://cdn.example.net/${"img/".repeat(60)}kettle.jpg`;
  const html = `<html><head><script type="application/ld+json">${ld}</script></head><body><img class="hero" src="${src}"></body></html>`;
  for (const r of [undefined, redact, async (t: string[]) => t]) {
    const outline = await htmlOutline(html, 100_000, r);
    expect(outline).toContain(`<script type="application/ld+json">${ld.slice(0, 4_000)}…</script>`);
    expect(outline).toContain(`src="${src.slice(0, 100)}…"`);
  }
});

test("the scan that ends a window is bounded: runs without spaces cost a fixed number of characters each", async () => {
  const { READ_PAST_CUT_CHARS, READ_ROUNDS, slotScanWork } = await import("../../src/llm/deterministic/outline-slots.ts");
  // The worst case of the old regular expression (a window ending in a run of 4,099 characters and a space), and
  // runs the window cuts (the scan looks ahead for their end); under the 1,000,000 characters outlined.
  const run = (i: number) => (i % 2 === 0 ? `${"j".repeat(4_099)} x${"j".repeat(10_000)}` : "j".repeat(14_101));
  const scripts = Array.from({ length: 50 }, (_, i) => `<script type="application/ld+json">${run(i)}</script>`).join("");
  const attrs = Array.from({ length: 40 }, () => `<a title="${"t".repeat(5_000)}" href="/${"u".repeat(199)} x">x</a>`).join("");
  slotScanWork.chars = 0;
  const identity = async (t: string[]) => t;
  const outline = await htmlOutline(`<html><head>${scripts}</head><body>${attrs}</body></html>`, 1_000_000, identity);
  expect(outline.split("\n").length).toBe(50 + 40);
  const slots = 50 + 40 * 2;
  console.log(`window scans: ${slotScanWork.chars} characters for ${slots} long texts (${(50 * 14_101 + 40 * 5_203).toLocaleString()} characters of them)`);
  expect(slotScanWork.chars).toBeLessThanOrEqual(slots * READ_ROUNDS * READ_PAST_CUT_CHARS);
});
