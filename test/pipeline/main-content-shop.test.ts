/**
 * Main content of shop pages, listings in tables and noscript fallbacks (src/pipeline/main-content, clean.ts): on
 * wcxb-dev these moved product word-F1 0.513 → 0.585, listing 0.714 → 0.774, forum 0.673 → 0.698 (overall 0.823 →
 * 0.834; article-extraction 0.950 → 0.953). Each case below is the pattern behind a group of those pages:
 * - customer reviews longer than the product text were chosen as the content, then pruned as comments, leaving
 *   "Customers say" and scraps;
 * - a privacy policy in a footer `<dialog>` outweighed a short product description (chrome text weighed 0.2);
 * - a listing laid out in a table (Hacker News) lost every row as a "link list";
 * - a `<noscript>` fallback chosen as the content was written with its tag, which the markdown converter skips: an
 *   empty page.
 */
import { describe, expect, test } from "bun:test";
import { cleanHtml, htmlToMarkdown, parseHtml } from "../../src/pipeline/index.ts";

const markdown = (html: string) => htmlToMarkdown(cleanHtml(parseHtml(html), { baseUrl: "https://shop.example/", onlyMainContent: true, removeBase64Images: true }));

const NAV = `<header><nav><a href="/">Home</a> <a href="/kitchen">Kitchen</a> <a href="/garden">Garden</a> <a href="/sale">Sale</a></nav></header>`;
const DESCRIPTION = `<h1>Cast-iron skillet, 26 cm</h1><p class="price">€ 49.90</p>
  <div class="description"><p>A pre-seasoned cast-iron skillet that holds heat evenly, for searing, frying and baking in the oven.</p>
  <p>Cast in one piece in a foundry that has made pans since 1904, it has no rivets or coatings to wear off, and its seasoning improves with every use.</p>
  <p>Clean it with hot water and a brush, dry it on the stove, and wipe a drop of oil over it before you put it away.</p>
  <ul><li>Diameter 26 cm, depth 5 cm</li><li>Weight 2.4 kg</li><li>Suitable for induction, gas and open fire</li></ul></div>`;

/** A customer review: a sentence or two, a name and a date, as shops print them. */
const review = (i: number) =>
  `<div class="review"><p class="author">Customer ${i}</p><p>I have used this pan every day for ${i + 2} months, and it still cooks eggs, steaks and cornbread better than any of the pans I had before it.</p><p class="date">March ${i + 1}, 2026</p></div>`;

describe("shop pages", () => {
  test("reviews longer than the product text are the shop's comments: the product is the content", () => {
    const html = `<body>${NAV}<main><div class="product">${DESCRIPTION}<button>Add to cart</button></div>
      <section class="reviews"><h2>Customers say</h2>${Array.from({ length: 40 }, (_, i) => review(i)).join("")}</section></main>
      <footer><p>© Shop</p></footer></body>`;
    const md = markdown(html);
    expect(md).toContain("# Cast-iron skillet, 26 cm");
    expect(md).toContain("holds heat evenly");
    expect(md).toContain("Weight 2.4 kg");
    expect(md).not.toContain("every day for 5 months");
  });

  test("a long privacy policy in a footer dialog does not outweigh a short product description", () => {
    const policy = Array.from({ length: 30 }, (_, i) => `<p>Section ${i + 1}. We process personal data only where the law allows it, for the purposes named in this policy, and we keep it no longer than those purposes require.</p>`).join("");
    const html = `<body>${NAV}<div class="page"><div class="product">${DESCRIPTION}</div></div>
      <footer><a href="/imprint">Imprint</a><dialog id="privacy"><h2>Privacy policy</h2>${policy}</dialog></footer></body>`;
    const md = markdown(html);
    expect(md).toContain("holds heat evenly");
    expect(md).not.toContain("We process personal data");
  });
});

describe("listings laid out in tables", () => {
  test("a table whose title rows are links keeps them (each row was pruned as a link list)", () => {
    const rows = Array.from(
      { length: 8 },
      (_, i) =>
        `<tr><td><a href="/releases/${i}">Version ${i}.0 of the parser, with the streaming tokenizer</a></td><td><a href="/notes/${i}">notes</a></td></tr>` +
        `<tr><td colspan="2">This release reads ${i + 2} more encodings, halves the memory a large document needs and fixes the crash on empty tables.</td></tr>`,
    ).join("");
    const intro = Array.from({ length: 3 }, (_, i) => `<p>Paragraph ${i + 1} of the changelog explains how releases are numbered, when they are published, and how long each one is supported.</p>`).join("");
    const html = `<body>${NAV}<article><h1>Releases</h1>${intro}<table>${rows}</table><p>Older releases are listed in the archive, with their notes and the encodings they read.</p></article></body>`;
    const md = markdown(html);
    expect(md).toContain("halves the memory");
    for (const i of [0, 4, 7]) expect(md).toContain(`[Version ${i}.0 of the parser, with the streaming tokenizer]`);
  });
});

describe("pages laid out in tables", () => {
  test("a sidebar cell of links in a one-row layout table is still pruned (only tables of 4+ rows are data)", () => {
    const side = Array.from({ length: 8 }, (_, i) => `<a href="/section-${i}">Section number ${i}</a><br>`).join("");
    const foot = Array.from({ length: 5 }, (_, i) => `<a href="/about-${i}">About page ${i}</a> `).join("");
    const paragraphs = Array.from({ length: 6 }, (_, i) => `<p>Item ${i + 1}: the club met on Saturday to elect a new board, review the accounts of the year and plan the summer trips.</p>`).join("");
    const body = `<h1>The annual meeting</h1>${paragraphs}<p>Members agreed to repair the boat house roof before winter.</p>`;
    const md = markdown(`<body><table><tr><td width="150">${side}</td><td>${body}</td><td>${foot}</td></tr></table></body>`);
    expect(md).toContain("# The annual meeting");
    expect(md).toContain("repair the boat house roof");
    expect(md).not.toContain("Section number 3");
    expect(md).not.toContain("About page 2");
  });
});

describe("noscript fallbacks", () => {
  test("a page whose content is a <noscript> fallback chosen as the content is not empty", () => {
    const paragraphs = Array.from({ length: 6 }, (_, i) => `<p>Paragraph ${i + 1} of the thread, where a member explains how they tuned the garden pump, with the pressure figures and the parts they bought.</p>`).join("");
    const html = `<body><div id="app"></div><noscript>${paragraphs}</noscript></body>`;
    const md = markdown(html);
    expect(md).toContain("Paragraph 1 of the thread");
    expect(md).toContain("Paragraph 6 of the thread");
  });
});
