/**
 * onlyMainContent on short marked pages and in described lists (pipeline/main-content/select.ts `markedRegionOf`,
 * prune.ts `isItemAmongItems`). A short press release in `<main>` came out as its one long paragraph, headline and
 * date gone (the scorer weighed too few blocks; upstream keeps all but the chrome); a glossary's bare linked entries
 * were dropped from the middle of their list. Menus and link lists still go.
 */
import { describe, expect, test } from "bun:test";
import { cleanHtml, htmlToMarkdown, parseHtml } from "../../src/pipeline/index.ts";
import { PARAGRAPHS } from "./fixtures.ts";

const mainContent = (html: string): string =>
  htmlToMarkdown(cleanHtml(parseHtml(html), { baseUrl: "https://acme.example/news/berlin", onlyMainContent: true, removeBase64Images: true }));
const chrome = (inner: string) =>
  `<html><body><header><a href="/">Acme</a><nav><a href="/news">News</a> <a href="/about">About</a> <a href="/careers">Careers</a></nav></header>${inner}<footer><a href="/privacy">Privacy</a> © Acme</footer></body></html>`;

describe("a short page that marks its content", () => {
  test("a press release in <main>: headline, date and text, not the one paragraph", () => {
    const md = mainContent(
      chrome(`<main><h1>Acme opens Berlin office</h1><p>March 3, 2026</p><p>Acme Corp. today announced the opening of its first European office in Berlin, which will host forty engineers working on the company's logistics platform by the end of the year.</p><p>Press contact: <a href="mailto:press@acme.example">press@acme.example</a></p></main>`),
    );
    expect(md).toStartWith("# Acme opens Berlin office\n\nMarch 3, 2026\n\nAcme Corp. today announced");
    expect(md).not.toContain("Careers");
    expect(md).not.toContain("Privacy");
  });

  test("an article's headline stays over a link line and its text", () => {
    const md = mainContent(chrome(`<article><h1>Two base elements, first in body</h1><p><a href="/x">page link</a><img src="/i.png" alt=""></p><p>${PARAGRAPHS[0]}</p></article>`));
    expect(md).toStartWith("# Two base elements, first in body\n\n");
    expect(md).toEndWith(PARAGRAPHS[0]!);
  });

  test("a long page is still read by the scorer: the teaser box inside <main> goes", () => {
    const md = mainContent(
      chrome(`<main><article><h1>Plan approved</h1>${PARAGRAPHS.map((p) => `<p>${p}</p>`).join("")}</article><div class="related"><h3>Related</h3><ul><li><a href="/n/1">Ferry fares rise again</a></li><li><a href="/n/2">Tunnel study shelved</a></li></ul></div></main>`),
    );
    expect(md).toContain(PARAGRAPHS[PARAGRAPHS.length - 1]!);
    expect(md).not.toContain("Ferry fares");
  });
});

describe("list items among described items", () => {
  const glossary = (items: string) =>
    chrome(`<main><h1>Glossary</h1><p>${PARAGRAPHS[0]}</p><p>${PARAGRAPHS[1]}</p><ul>${items}</ul><p>${PARAGRAPHS[2]}</p></main>`);
  const described = (term: string, text: string) => `<li><a href="/g/${term}">${term}</a> – ${text}</li>`;

  test("a bare linked entry between described entries is kept", () => {
    const md = mainContent(
      glossary(
        [
          described("Idempotency key", "a client-chosen token that makes a retried request safe to send twice."),
          `<li><a href="/g/webhook">Webhook</a></li>`,
          described("Rate limit", "how many requests a key may send in a minute before it is told to wait."),
          `<li><a href="/g/api-key">API key</a></li>`,
          `<li><a href="/g/token">Token</a></li>`,
          described("Pagination cursor", "an opaque string pointing at the next page of a long listing of results."),
        ].join(""),
      ),
    );
    for (const term of ["Idempotency key", "Webhook", "Rate limit", "API key", "Token", "Pagination cursor"]) expect(md).toContain(`[${term}](https://acme.example/g/`);
  });

  test("a menu of bare links inside the content still goes", () => {
    const md = mainContent(glossary(["Home", "Docs", "Blog", "Pricing", "Login"].map((t) => `<li><a href="/${t}">${t}</a></li>`).join("")));
    expect(md).toContain(PARAGRAPHS[2]!);
    expect(md).not.toContain("Pricing");
  });
});
