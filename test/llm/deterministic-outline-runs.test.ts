/**
 * The deterministicJson outline under redactPII reads a block's text nodes together (llm/deterministic/outline-runs.ts,
 * outline-read.ts), under the real pattern redaction as the format has it (redact/json-strings.ts): PII split across
 * nodes (comments, inline elements, groups of a card) at every split position is redacted, in every replace style,
 * its tag in the first text it spans and nothing of it in the texts after; PII that starts in the unshown part of a
 * cut text and ends in the next node is not shown either; the outline without redaction keeps a line per node; and
 * what is sent to the redaction stays proportional to the page however many nodes a block has.
 * Through the API: test/formats/deterministic-json-outline.test.ts.
 */
import { expect, test } from "bun:test";
import { htmlOutline } from "../../src/llm/deterministic/outline.ts";
import { redactJsonStrings } from "../../src/redact/json-strings.ts";
import { patternRedactor, piiOptions } from "../../src/redact/redactor.ts";

/** The outline's texts redacted as extract.ts has them, in `replaceStyle`. */
const redactor = (replaceStyle: "tag" | "mask" | "remove") => {
  const o = piiOptions({ mode: "fast", replaceStyle })!;
  return async (texts: string[]) => (await redactJsonStrings(texts, (t) => patternRedactor.redact(t, o, { deadline: Date.now() + 60_000 }))) as string[];
};
const tag = redactor("tag");

/** PII, the pieces none of which may be shown, and its tag. */
const CASES = [
  { pii: "jane.doe@example.org", parts: ["jane", "doe@", "example.org"], tag: "<EMAIL>" },
  { pii: "4111 1111 1111 1111", parts: ["4111", "1111"], tag: "<FINANCIAL>" },
  { pii: "+44 20 7946 0958", parts: ["+44", "7946", "0958"], tag: "<PHONE>" },
];
/** Ways a page splits a text into nodes of one block. */
const JOINS = [(a: string, b: string) => `${a}<!-- -->${b}`, (a: string, b: string) => `${a}<span>${b}</span>`, (a: string, b: string) => `<b>${a}</b><i>${b}</i>`];

test("PII split across a block's text nodes, at every split, is redacted whole: its tag in the first node", async () => {
  let outlines = 0;
  for (const { pii, parts, tag: name } of CASES) {
    for (const join of JOINS) {
      for (let at = 1; at < pii.length; at++) {
        if (pii[at - 1] === " " || pii[at] === " ") continue; // white space at a split reads as one space anyway
        const html = `<body><p class="t">Contact: ${join(pii.slice(0, at), pii.slice(at))} today</p></body>`;
        for (const style of ["tag", "mask", "remove"] as const) {
          const outline = await htmlOutline(html, 100_000, style === "tag" ? tag : redactor(style));
          outlines++;
          for (const part of parts) {
            if (outline.includes(part)) throw new Error(`"${part}" of ${pii} shown (${style}, split at ${at}):\n${outline}`);
          }
          if (style === "tag") expect(outline).toContain(name);
        }
      }
    }
  }
  expect(outlines).toBeGreaterThan(100);
  // The match spans three nodes: its tag where it starts, nothing of it in the others, whose lines go.
  const split = `<p class="who">Contact: <!-- -->jane.doe<!-- -->@<!-- -->example.org</p><p>Card <span>4111 1111</span> <span>1111 1111</span> and <em>more</em></p>`;
  expect(await htmlOutline(split, 100_000, tag)).toBe(`<p class="who">\n Contact:\n <EMAIL>\n</p>\n<p>\n Card\n <span><FINANCIAL></span>\n <span></span>\n and\n <em>more</em>\n</p>`);
  // Without redaction, a line per node as before.
  expect(await htmlOutline(split, 100_000)).toBe(`<p class="who">\n Contact:\n jane.doe\n @\n example.org\n</p>\n<p>\n Card\n <span>4111 1111</span>\n <span>1111 1111</span>\n and\n <em>more</em>\n</p>`);
});

test("blocks are read apart: text in two paragraphs or list items is not joined", async () => {
  const html = `<ul><li>Mail me at</li><li>jane.doe@example.org</li></ul><p>4111 1111</p><p>Call 020 7946 0958</p>`;
  expect(await htmlOutline(html, 100_000, tag)).toBe(`<ul>\n <li>Mail me at</li>\n <li><EMAIL></li>\n</ul>\n<p>4111 1111</p>\n<p>Call <PHONE></p>`);
});

test("PII starting in a cut text's unshown part and ending in the next node is not shown", async () => {
  for (let pad = 150; pad <= 420; pad += 3) {
    const long = `${"word ".repeat(Math.ceil(pad / 5))}`.slice(0, pad);
    for (const { pii, parts } of CASES) {
      for (const cut of [4, 9]) {
        const html = `<body><p>${long} ${pii.slice(0, cut)}<span>${pii.slice(cut)}</span> done</p></body>`;
        const outline = await htmlOutline(html, 100_000, tag);
        for (const part of parts) {
          if (outline.includes(part)) throw new Error(`"${part}" of ${pii} shown (text of ${pad}, split at ${cut}):\n${outline}`);
        }
        expect(outline).toContain(" done");
      }
    }
  }
});

test("what a block of many nodes sends to the redaction is proportional to the page", async () => {
  const users = Array.from({ length: 3_000 }, (_, i) => `<a href="/u/${i}">user${i}</a>@<b>example.org</b>, `).join("");
  const html = `<body><p>${users}</p></body>`;
  let sent = 0;
  const counting = async (texts: string[]) => {
    sent += texts.reduce((n, t) => n + t.length, 0);
    return tag(texts);
  };
  const outline = await htmlOutline(html, 1_000_000, counting);
  expect(outline).not.toContain("example.org");
  expect(outline.match(/<EMAIL>/g)?.length).toBe(3_000);
  console.log(`${html.length.toLocaleString()} characters of page, ${sent.toLocaleString()} sent to the redaction`);
  // Each glued text is read twice, in its run and on its own (llm/deterministic/outline-cover.ts): still linear.
  expect(sent).toBeLessThan(2 * html.length);
});
