/**
 * The deterministicJson outline under redactPII reads a block's text nodes together and, those glued to a neighbour
 * (no white space between them on the page), each on its own too (llm/deterministic/outline-cover.ts): PII that a
 * node holds whole is redacted as when each node was redacted alone, though the joined text glues a label or another
 * address to it; PII split across nodes stays redacted; a text taken out in the remove style leaves the others in
 * their own elements; and a block of any length is redacted in runs of bounded length (the redaction's work on a
 * text may grow faster than its length).
 */
import { expect, test } from "bun:test";
import { htmlOutline } from "../../src/llm/deterministic/outline.ts";
import { RUN_CHARS } from "../../src/llm/deterministic/outline-runs.ts";
import { READ_PAST_CUT_CHARS } from "../../src/llm/deterministic/outline-slots.ts";
import { redactJsonStrings } from "../../src/redact/json-strings.ts";
import { patternRedactor, piiOptions } from "../../src/redact/redactor.ts";

/** The outline's texts redacted as extract.ts has them, in `replaceStyle`. */
const redactor = (replaceStyle: "tag" | "mask" | "remove") => {
  const o = piiOptions({ mode: "fast", replaceStyle })!;
  return async (texts: string[]) => (await redactJsonStrings(texts, (t) => patternRedactor.redact(t, o, { deadline: Date.now() + 60_000 }))) as string[];
};

/** Pages whose PII is glued to the text before or after it, and the pieces of it none of which may be shown. */
const GLUED: [string, string[]][] = [
  [`<p><span>Phone</span><a href="tel:x">020 7946 0958</a></p>`, ["7946", "0958"]],
  [`<div class="card"><span class="n">Jane Doe</span><span class="e">jane@x.org</span><span class="p">020 7946 0958</span></div>`, ["jane@", "x.org", "7946", "0958"]],
  [`<table><tr><td><span>jane.doe@example.org</span><span>+44 20 7946 0958</span></td></tr></table>`, ["jane.doe", "example.org", "7946", "0958"]],
  [`<ul><li><b>Card:</b><span>4111 1111 1111 1111</span><span>4242424242424242</span></li></ul>`, ["4111", "1111", "4242"]],
  [`<p><span>+44 20 7946 0958</span><span>+44 20 7946 0959</span></p>`, ["7946", "0958", "0959"]],
  [`<p><span>IBAN</span><span>GB82 WEST 1234 5698 7654 32</span></p>`, ["GB82", "WEST", "5698", "7654"]],
  [`<p><span>ID12</span><span>4111111111111111</span></p>`, ["41111111"]],
  [`<p>Ref 2<span>020 7946 0958</span></p>`, ["7946", "0958"]],
  [`<p><a href="mailto:jane@x.org">jane@x.org</a><a href="mailto:bob.smith@corp.com">bob.smith@corp.com</a></p>`, ["jane@", "x.org", "bob.smith", "corp.com"]],
  [`<p><span>a@b.co</span><span>c@d.co</span></p>`, ["a@b", "b.co", "c@d", "d.co"]],
  // Split across nodes, and glued: both kinds in one block.
  [`<p>Mail jane.doe<!-- -->@<!-- -->example.org <span>Phone</span><b>020 7946 0958</b></p>`, ["jane.doe", "example.org", "7946", "0958"]],
  [`<p>Card <span>4111 1111</span> <span>1111 1111</span><span>ID12</span><span>4242424242424242</span></p>`, ["4111", "1111", "4242"]],
];

test("PII a node holds whole is redacted though the block's joined text glues it to its neighbours, in every style", async () => {
  for (const style of ["tag", "mask", "remove"] as const) {
    const redact = redactor(style);
    for (const [page, parts] of GLUED) {
      // Attributes are redacted apart (hrefs hold the addresses too): only the texts are checked here.
      const outline = (await htmlOutline(`<body>${page}</body>`, 100_000, redact)).replace(/ href="[^"]*"/g, "");
      for (const part of parts) {
        if (outline.includes(part)) throw new Error(`"${part}" shown (${style}):\n${outline}`);
      }
      if (style === "tag") expect(outline).toMatch(/<(EMAIL|PHONE|FINANCIAL)>/);
    }
  }
  expect(await htmlOutline(`<body>${GLUED[0]![0]}</body>`, 100_000, redactor("tag"))).toBe(`<p>\n <span>Phone</span>\n <a href="tel:x"><PHONE></a>\n</p>`);
});

test("in the remove style each text stays in its own element", async () => {
  const page = `<body><p>Write to <a href="/m1">jane@x.org</a>, <a href="/m2">bob@y.org</a> or call <a href="/c">the office</a> <b>today</b>.</p></body>`;
  expect(await htmlOutline(page, 100_000, redactor("remove"))).toBe(
    `<p>\n Write to\n <a href="/m1"></a>\n ,\n <a href="/m2"></a>\n or call\n <a href="/c">the office</a>\n <b>today</b>\n .\n</p>`,
  );
});

test("a long block is redacted in runs of bounded length, PII at their splits included", async () => {
  // 100,000 emphasis marks in one paragraph: a run of all of them cost the redaction 41 s (its reading of `*` runs).
  const stars = `<body><p>${"<i>**</i>".repeat(100_000)}</p></body>`;
  let longest = 0;
  let sent = 0;
  const tag = redactor("tag");
  const counting = async (texts: string[]) => {
    for (const t of texts) longest = Math.max(longest, t.length);
    sent += texts.reduce((n, t) => n + t.length, 0);
    return tag(texts);
  };
  await htmlOutline(stars, 1_000_000, counting);
  console.log(`${stars.length.toLocaleString()} characters of page: longest text redacted ${longest.toLocaleString()}, ${sent.toLocaleString()} sent`);
  expect(longest).toBeLessThanOrEqual(RUN_CHARS + 2 * READ_PAST_CUT_CHARS + 400);
  // Addresses split across nodes everywhere along a block longer than a run: none shown, every one tagged.
  const users = Array.from({ length: 400 }, (_, i) => `<a href="/u/${i}">user${i}.name</a>@<b>example.org</b>; `).join("");
  const outline = await htmlOutline(`<body><p>${users}</p></body>`, 1_000_000, tag);
  expect(outline).not.toContain("example.org");
  expect(outline).not.toContain(".name");
  expect(outline.match(/<EMAIL>/g)?.length).toBe(400);
});
