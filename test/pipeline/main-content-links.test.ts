/**
 * onlyMainContent keeps link-bearing content of the article: a sentence with links, the lists under the article's
 * headings, a post's author link. Upstream's main-content mode strips only chrome (nav, header, footer, asides,
 * ads), so losing these is a regression on docs pages, READMEs and "awesome" lists; real boilerplate (menus,
 * related-links boxes, tag clouds, share bars, a link farm after the article) still goes.
 */
import { describe, expect, test } from "bun:test";
import { cleanHtml, htmlToMarkdown, parseHtml } from "../../src/pipeline/index.ts";
import { PARAGRAPHS } from "./fixtures.ts";

const BASE = "https://acme.dev/docs/install";
const mainContent = (html: string): string =>
  htmlToMarkdown(cleanHtml(parseHtml(html), { baseUrl: BASE, onlyMainContent: true, removeBase64Images: true }));

const page = (inner: string) =>
  `<html><body><header class="site-header"><a href="/">Acme</a><nav><a href="/">Home</a> <a href="/docs">Docs</a> <a href="/blog">Blog</a> <a href="/pricing">Pricing</a></nav></header>${inner}<footer><p>Copyright 2024 Acme Inc.</p><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer></body></html>`;

const INSTALL = page(`<main><article><h1>Install</h1>
<p>${PARAGRAPHS[0]}</p><p>${PARAGRAPHS[1]}</p>
<p>Binaries are on <a href="https://github.com/acme/acme/releases">GitHub Releases</a> and <a href="https://dl.acme.dev/">dl.acme.dev</a>.</p>
<h2>Client libraries</h2>
<ul><li><a href="https://github.com/acme/acme-py">acme for Python</a></li><li><a href="https://github.com/acme/acme-go">acme for Go</a></li><li><a href="https://github.com/acme/acme-rs">acme for Rust</a></li></ul>
<h2>See also</h2>
<ul><li><a href="/docs/configure">Configuration</a></li><li><a href="/docs/upgrade">Upgrading</a></li></ul>
</article></main>`);

describe("onlyMainContent keeps link-bearing content of the article", () => {
  test("a sentence whose words are mostly links is kept between the article's paragraphs", () => {
    const md = mainContent(INSTALL);
    expect(md).toContain("Binaries are on [GitHub Releases](https://github.com/acme/acme/releases) and [dl.acme.dev](https://dl.acme.dev/).");
    expect(md).toContain(PARAGRAPHS[1]!);
  });

  test("a list of links under a heading of the article is kept (its section is not left empty)", () => {
    const md = mainContent(INSTALL);
    expect(md).toContain("## Client libraries\n\n- [acme for Python](https://github.com/acme/acme-py)");
    expect(md).toContain("- [acme for Rust](https://github.com/acme/acme-rs)");
  });

  test("a 'See also' list of links closing the article is kept", () => {
    const md = mainContent(INSTALL);
    expect(md).toContain("## See also\n\n- [Configuration](https://acme.dev/docs/configure)\n- [Upgrading](https://acme.dev/docs/upgrade)");
  });

  test("the page chrome around such an article is still stripped", () => {
    const md = mainContent(INSTALL);
    for (const chrome of ["Pricing", "Blog", "Copyright", "Privacy", "Terms"]) expect(md).not.toContain(chrome);
  });

  test("a long docs page (the article selected as prose) keeps the sentence and both lists", () => {
    const md = mainContent(
      page(`<main><article><h1>Install</h1>${PARAGRAPHS.map((p) => `<p>${p}</p>`).join("")}
<p>Binaries are on <a href="https://github.com/acme/acme/releases">GitHub Releases</a> and <a href="https://dl.acme.dev/">dl.acme.dev</a>.</p>
<h2>Client libraries</h2><ul><li><a href="https://github.com/acme/acme-py">acme for Python</a></li><li><a href="https://github.com/acme/acme-go">acme for Go</a></li></ul>
<h2>Verify</h2>${PARAGRAPHS.slice(0, 3).map((p) => `<p>${p}</p>`).join("")}
<h2>See also</h2><ul><li><a href="/docs/configure">Configuration</a></li><li><a href="/docs/upgrade">Upgrading</a></li></ul></article></main>`),
    );
    expect(md).toContain("Binaries are on [GitHub Releases]");
    expect(md).toContain("## Client libraries\n\n- [acme for Python](https://github.com/acme/acme-py)\n- [acme for Go](https://github.com/acme/acme-go)\n\n## Verify");
    expect(md).toContain("## See also\n\n- [Configuration](https://acme.dev/docs/configure)\n- [Upgrading](https://acme.dev/docs/upgrade)");
    expect(md).not.toContain("Pricing");
  });

  test("a short page keeps its closing sentence of links", () => {
    const md = mainContent(
      page(`<main><h1>Get acme</h1><p>${PARAGRAPHS[0]}</p><p>Download it from the <a href="/downloads">downloads page</a>, <a href="https://github.com/acme/acme">GitHub</a> or a <a href="https://mirror.example.org/acme">mirror</a>.</p></main>`),
    );
    expect(md).toContain("# Get acme");
    expect(md).toContain("Download it from the [downloads page](https://acme.dev/downloads), [GitHub](https://github.com/acme/acme) or a [mirror](https://mirror.example.org/acme).");
    expect(md).not.toContain("Pricing");
  });

  test("each forum post keeps its author link", () => {
    const posts = [
      ["alice", PARAGRAPHS[0]],
      ["bob", PARAGRAPHS[1]],
      ["carol", PARAGRAPHS[2]],
    ] as const;
    const md = mainContent(
      page(`<main><h1>Bridge replacement thread</h1>${posts
        .map(([who, text]) => `<div class="post"><div class="author"><a href="/u/${who}">${who}</a></div><div class="post-body"><p>${text}</p></div></div>`)
        .join("\n")}</main>`),
    );
    for (const [who, text] of posts) {
      expect(md).toContain(`[${who}](https://acme.dev/u/${who})`);
      expect(md).toContain(text);
    }
    expect(md.indexOf("[alice]")).toBeLessThan(md.indexOf(PARAGRAPHS[0]!));
  });
});

describe("onlyMainContent still drops link boilerplate inside the article", () => {
  const ARTICLE = (extra: string) =>
    page(`<main><article><h1>Bridge plan approved</h1>${PARAGRAPHS.map((p) => `<p>${p}</p>`).join("")}${extra}</article></main>`);

  test("a related-stories box, a tag cloud and a share bar after the article go", () => {
    const md = mainContent(
      ARTICLE(
        `<div class="related"><h3>Related</h3><ul><li><a href="/a">Ferry fares rise again</a></li><li><a href="/b">Tunnel study shelved</a></li></ul></div>` +
          `<div class="tags"><a href="/t/bridges">bridges</a> <a href="/t/council">council</a> <a href="/t/transport">transport</a></div>` +
          `<div class="share"><a href="/s/fb">Facebook</a> <a href="/s/x">X</a> <a href="/s/mail">Email</a></div>`,
      ),
    );
    for (const p of PARAGRAPHS) expect(md).toContain(p);
    for (const gone of ["Ferry fares", "Tunnel study", "transport", "Facebook", "Email"]) expect(md).not.toContain(gone);
  });

  test("an unlabelled list of links after the last paragraph, with no heading of its own, goes", () => {
    const md = mainContent(
      ARTICLE(`<ul><li><a href="/n/1">Ferry fares rise again this winter</a></li><li><a href="/n/2">Tunnel study shelved by the county</a></li><li><a href="/n/3">Harbour dredging starts in May</a></li></ul>`),
    );
    for (const p of PARAGRAPHS) expect(md).toContain(p);
    for (const gone of ["Ferry fares", "Tunnel study", "Harbour dredging"]) expect(md).not.toContain(gone);
  });

  test("a link farm of menu-length links between the article's paragraphs goes", () => {
    const md = mainContent(
      page(`<main><article><h1>Bridge plan approved</h1><p>${PARAGRAPHS[0]}</p><p>${PARAGRAPHS[1]}</p><div><a href="/1">News</a> <a href="/2">Sport</a> <a href="/3">Weather</a> <a href="/4">Travel</a> <a href="/5">Money</a> <a href="/6">Video</a></div><p>${PARAGRAPHS[2]}</p><p>${PARAGRAPHS[3]}</p></article></main>`),
    );
    for (const p of PARAGRAPHS.slice(0, 4)) expect(md).toContain(p);
    for (const gone of ["Sport", "Weather", "Money"]) expect(md).not.toContain(gone);
  });
});

describe("onlyMainContent still drops sign-offs and bylines of a single article", () => {
  const ARTICLE = (top: string, end: string) =>
    page(`<main><article><h1>Bridge plan approved</h1>${top}${PARAGRAPHS.map((p) => `<p>${p}</p>`).join("")}${end}</article></main>`);

  test("a sentence of social links after the last paragraph goes", () => {
    const md = mainContent(
      ARTICLE("", `<p><i>Follow Acme News on </i><a href="https://instagram.example/acme">Instagram</a>, <a href="https://facebook.example/acme">Facebook</a> and <a href="https://x.example/acme">X</a>.</p>`),
    );
    expect(md).toContain(PARAGRAPHS[4]!);
    for (const gone of ["Follow Acme", "Instagram"]) expect(md).not.toContain(gone);
  });

  test("the article's own author line goes (it is no post of a thread)", () => {
    const md = mainContent(ARTICLE(`<div class="author"><a href="/staff/jane">Jane Doe</a></div>`, ""));
    expect(md).toContain(PARAGRAPHS[0]!);
    expect(md).not.toContain("Jane Doe");
  });

  test("a 'More:' heading over a run of headline lists goes", () => {
    const more = ["Ferry fares rise again this winter", "Tunnel study shelved by the county"].map((t, i) => `<ul><li><h4><a href="/n/${i}">${t}</a></h4></li></ul>`).join("");
    const md = mainContent(
      page(`<main><article><h1>Bridge plan approved</h1><p>${PARAGRAPHS[0]}</p><p>${PARAGRAPHS[1]}</p><h4>More:</h4>${more}<p>${PARAGRAPHS[2]}</p><p>${PARAGRAPHS[3]}</p></article></main>`),
    );
    expect(md).toContain(PARAGRAPHS[3]!);
    for (const gone of ["Ferry fares", "Tunnel study"]) expect(md).not.toContain(gone);
  });
});

describe("onlyMainContent keeps the lists of a README", () => {
  // GitHub wraps each heading in <div class="markdown-heading"> with a permalink anchor beside it.
  const heading = (level: number, text: string) =>
    `<div class="markdown-heading"><h${level} class="heading-element">${text}</h${level}><a class="anchor" aria-label="Permalink: ${text}" href="#${text.toLowerCase()}"><svg></svg></a></div>`;
  const links = (items: [string, string, string?][]) =>
    `<ul>${items.map(([name, href, note]) => `<li><a href="${href}">${name}</a>${note ? ` - ${note}` : ""}</li>`).join("")}</ul>`;
  const README = page(`<main><div class="repository-content"><article class="markdown-body entry-content">
${heading(1, "Awesome Bridges")}<p>${PARAGRAPHS[0]}</p>
${heading(2, "Contents")}${links([["Design", "#design"], ["Tools", "#tools"]])}
${heading(2, "Design")}${links([["Suspension", "https://example.org/suspension", "Cables and towers."], ["Cantilever", "https://example.org/cantilever"], ["Truss", "https://example.org/truss"]])}
${heading(2, "Tools")}${links([["bridgecalc", "https://github.com/x/bridgecalc"], ["span-cli", "https://github.com/x/span-cli"]])}
</article></div></main>`);

  /** The markdown between `## name` and the next heading (the permalink anchors are the renderer's business). */
  const section = (md: string, name: string) => md.split(`## ${name}\n`)[1]?.split(/\n#/)[0] ?? "";

  test("the lists under each wrapped heading are kept", () => {
    const md = mainContent(README);
    expect(section(md, "Contents")).toContain("- [Design](https://acme.dev/docs/install#design)\n- [Tools](https://acme.dev/docs/install#tools)");
    expect(section(md, "Design")).toContain("- [Suspension](https://example.org/suspension)");
    expect(section(md, "Design")).toContain("Cables and towers.");
    expect(section(md, "Design")).toContain("- [Truss](https://example.org/truss)");
    expect(section(md, "Tools")).toContain("- [bridgecalc](https://github.com/x/bridgecalc)\n- [span-cli](https://github.com/x/span-cli)");
    expect(md).not.toContain("Pricing");
  });
});
