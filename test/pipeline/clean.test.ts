import { describe, expect, test } from "bun:test";
import { cleanHtml, htmlToMarkdown, parseHtml, type CleanOptions } from "../../src/pipeline/index.ts";
import { ARTICLE_PAGE, COMMENTS_PAGE, DIV_PAGE, PARAGRAPHS } from "./fixtures.ts";

const BASE = "https://news.example.com/2024/05/bridge.html";
const run = (html: string, opts: Partial<CleanOptions> = {}) => {
  const cleaned = cleanHtml(parseHtml(html), { baseUrl: BASE, onlyMainContent: true, removeBase64Images: true, ...opts });
  return { html: cleaned, markdown: htmlToMarkdown(cleaned) };
};

describe("cleanHtml: always-removed content", () => {
  test("scripts, styles, noscript, templates, comments, meta and link tags are removed", () => {
    const page = `<html><head><meta name="x" content="y"><link rel="icon" href="/f.ico"></head><body>
      <p>Kept text</p><script>evil()</script><style>.a{}</style><noscript>Enable JS</noscript>
      <template><p>tpl</p></template><!-- secret comment --><link rel="preload" href="/x"></body></html>`;
    for (const onlyMainContent of [true, false]) {
      const { html } = run(page, { onlyMainContent });
      expect(html).toContain("Kept text");
      for (const gone of ["evil", ".a{}", "Enable JS", "tpl", "secret comment", "<meta", "<link"]) expect(html).not.toContain(gone);
    }
  });

  test("the input document is not modified", () => {
    const doc = parseHtml(ARTICLE_PAGE);
    const before = doc.toString();
    cleanHtml(doc, { baseUrl: BASE, onlyMainContent: true, removeBase64Images: true, excludeTags: ["p"] });
    expect(doc.toString()).toBe(before);
  });
});

describe("cleanHtml: onlyMainContent", () => {
  test("navigation, header, sidebar and footer are stripped from an article page", () => {
    const { markdown } = run(ARTICLE_PAGE);
    for (const p of PARAGRAPHS) expect(markdown).toContain(p);
    expect(markdown).toContain("# Council approves bridge plan");
    for (const chrome of ["Sport", "Ten things to do", "Copyright 2024", "Example News"]) expect(markdown).not.toContain(chrome);
  });

  test("with onlyMainContent false the boilerplate is kept", () => {
    const { markdown } = run(ARTICLE_PAGE, { onlyMainContent: false });
    for (const p of PARAGRAPHS) expect(markdown).toContain(p);
    for (const chrome of ["Sport", "Ten things to do", "Copyright 2024", "Example News"]) expect(markdown).toContain(chrome);
    expect(markdown).not.toContain("pageview");
  });

  test("main content in plain divs without semantic tags or telling classes", () => {
    const { markdown } = run(DIV_PAGE);
    for (const p of PARAGRAPHS) expect(markdown).toContain(p);
    for (const chrome of ["Pricing", "Tag three", "Terms"]) expect(markdown).not.toContain(chrome);
  });

  test("a comment thread under an article is dropped", () => {
    const { markdown } = run(COMMENTS_PAGE);
    for (const p of PARAGRAPHS) expect(markdown).toContain(p);
    expect(markdown).not.toContain("twenty years");
    expect(markdown).not.toContain("42 comments");
  });

  test("a short page still returns its content", () => {
    const { markdown } = run("<html><body><h1>Hello</h1><p>Tiny page.</p></body></html>");
    expect(markdown).toContain("Hello");
    expect(markdown).toContain("Tiny page.");
    expect(run("Just a sentence.").markdown).toBe("Just a sentence.");
  });

  test("tables and code inside the main content are kept", () => {
    const page = `<html><body><nav><a href="/">Home</a> <a href="/docs">Docs</a></nav><main>
      ${PARAGRAPHS.slice(0, 3).map((p) => `<p>${p}</p>`).join("")}
      <table><tr><th>Span</th><th>Length</th></tr><tr><td>North</td><td>120 m</td></tr></table>
      <pre><code class="language-js">bridge.open();</code></pre></main><footer>Footer text here</footer></body></html>`;
    const { markdown } = run(page);
    expect(markdown).toContain("| Span  | Length |");
    expect(markdown).toContain("| North | 120 m  |");
    expect(markdown).toContain("```js\nbridge.open();\n```");
    expect(markdown).not.toContain("Footer text");
  });
});

describe("cleanHtml: URLs and images", () => {
  test("relative href, src and srcset become absolute against the page URL", () => {
    const { html } = run(
      `<p>See <a href="../other.html">other</a> and <a href="/root">root</a> and <a href="#top">top</a>.</p><img src="img/a.png" srcset="img/a.png 1x, /img/a2.png 2x" alt="a"><a href="mailto:x@y.z">mail</a>`,
      { onlyMainContent: false },
    );
    expect(html).toContain('href="https://news.example.com/2024/other.html"');
    expect(html).toContain('href="https://news.example.com/root"');
    expect(html).toContain('href="https://news.example.com/2024/05/bridge.html#top"');
    expect(html).toContain('src="https://news.example.com/2024/05/img/a.png"');
    expect(html).toContain('srcset="https://news.example.com/2024/05/img/a.png 1x, https://news.example.com/img/a2.png 2x"');
    expect(html).toContain('href="mailto:x@y.z"');
  });

  test("<base href> takes precedence over the page URL", () => {
    const { markdown } = run(`<html><head><base href="https://cdn.example.org/assets/"></head><body><p><a href="doc.html">Doc</a></p></body></html>`, {
      onlyMainContent: false,
    });
    expect(markdown).toContain("[Doc](https://cdn.example.org/assets/doc.html)");
  });

  test("the first <base> with an href counts, in the body too; one inside <svg> is not an HTML <base>", () => {
    const body = `<svg><base href="https://svg.example.org/"></base></svg><template><base href="https://tpl.example.org/"></template><base target="_top"><base href="https://b.example.org/x/"><p><a href="doc.html">Doc</a></p>`;
    const { markdown } = run(`<html><head><title>t</title></head><body>${body}</body></html>`, { onlyMainContent: false });
    expect(markdown).toContain("[Doc](https://b.example.org/x/doc.html)");
  });

  test("a <base> inside <noscript> does not count (scripting browsers read it as text); one after it does", () => {
    const head = `<head><title>t</title><noscript><link rel="stylesheet" href="x.css"><base href="https://noscript.example.org/"></noscript></head>`;
    const plain = run(`<html>${head}<body><p><a href="doc.html">Doc</a></p></body></html>`, { onlyMainContent: false });
    expect(plain.markdown).toContain(`[Doc](${new URL("doc.html", BASE).href})`);
    const after = run(`<html>${head}<body><base href="https://after.example.org/"><p><a href="doc.html">Doc</a></p></body></html>`, { onlyMainContent: false });
    expect(after.markdown).toContain("[Doc](https://after.example.org/doc.html)");
  });

  test("base64 images are removed but their alt text is kept", () => {
    const page = `<p>Figure: <img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==" alt="Sales chart"></p>`;
    const removed = run(page, { onlyMainContent: false });
    expect(removed.html).not.toContain("base64");
    expect(removed.html).toContain('alt="Sales chart"');
    expect(removed.markdown).toContain("Sales chart");
    expect(removed.markdown).not.toContain("data:");
    const kept = run(page, { onlyMainContent: false, removeBase64Images: false });
    expect(kept.html).toContain("data:image/png;base64,");
  });

  test("lazy-loaded images get their real src", () => {
    const { html } = run(`<p><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="/photos/big.jpg" alt="Bridge"></p>`, {
      onlyMainContent: false,
    });
    expect(html).toContain('src="https://news.example.com/photos/big.jpg"');
  });
});

describe("cleanHtml: includeTags and excludeTags", () => {
  const page = `<html><body><div id="intro"><p>Intro paragraph text.</p></div><div class="card"><p>Card one</p></div>
    <div class="card special"><p>Card two</p></div><section><h2>Other</h2><p>Other text</p><iframe src="/embed/1"></iframe></section></body></html>`;

  test("includeTags keeps only matching elements (tag, .class, #id)", () => {
    expect(run(page, { includeTags: ["#intro"] }).markdown).toBe("Intro paragraph text.");
    const cards = run(page, { includeTags: [".card"] }).markdown;
    expect(cards).toContain("Card one");
    expect(cards).toContain("Card two");
    expect(cards).not.toContain("Intro");
    const sections = run(page, { includeTags: ["section"] }).markdown;
    expect(sections).toContain("## Other");
    expect(sections).not.toContain("Card");
  });

  test("excludeTags removes matching elements (tag, .class, #id)", () => {
    const md = run(page, { onlyMainContent: false, excludeTags: ["#intro", ".special", "h2"] }).markdown;
    expect(md).toContain("Card one");
    expect(md).toContain("Other text");
    for (const gone of ["Intro", "Card two", "## Other"]) expect(md).not.toContain(gone);
  });

  test("include and exclude combine, and apply before main-content selection", () => {
    const md = run(page, { includeTags: [".card"], excludeTags: [".special"] }).markdown;
    expect(md).toBe("Card one");
  });

  test("an iframe selector matches iframes", () => {
    expect(run(page, { includeTags: ["iframe"] }).html).toBe('<iframe src="https://news.example.com/embed/1"></iframe>');
    expect(run(page, { onlyMainContent: false, excludeTags: ["iframe"] }).html).not.toContain("iframe");
  });

  test("an invalid selector is ignored instead of failing the scrape", () => {
    const md = run(page, { onlyMainContent: false, excludeTags: ["[[nope", ".special"] }).markdown;
    expect(md).toContain("Card one");
    expect(md).not.toContain("Card two");
  });
});

describe("short pages never come out empty", () => {
  test("a hero section with buttons and links, and a small form page, keep their text with onlyMainContent", async () => {
    const { cleanHtml, htmlToMarkdown, parseHtml } = await import("../../src/pipeline/index.ts");
    const md = (html: string) => htmlToMarkdown(cleanHtml(parseHtml(html), { baseUrl: "http://x.test/", onlyMainContent: true, removeBase64Images: true }));
    const hero = md(`<html><body><nav><a href="/">Home</a> <a href="/about">About</a></nav><main><section><h1>Acme</h1><p>We build rockets <a href="/a">Docs</a> <a href="/b">Pricing</a></p><button>Start</button><button>Learn</button></section></main><footer>© Acme</footer></body></html>`);
    expect(hero).toContain("# Acme");
    expect(hero).toContain("We build rockets");
    expect(hero).not.toContain("About");
    expect(hero).not.toContain("© Acme");
    const form = md(`<html><body><main><h1>Actions</h1><input id=q><button id=go>Go</button><p>Press the button.</p></main></body></html>`);
    expect(form).toContain("# Actions");
    expect(form).toContain("Press the button.");
  });
});

describe("onlyMainContent keeps short link-free content on simple pages", () => {
  // Upstream's main-content mode strips chrome (header, footer, nav, sidebars…) and keeps short lists and paragraphs;
  // a block scorer must not drop them for being short when they sit inside the content.
  const PROSE = PARAGRAPHS[0]!;
  const inArticle = (inner: string) => `<html><body><article><h1>SDKs</h1><p>${PROSE}</p>${inner}<p>${PARAGRAPHS[1]}</p></article></body></html>`;

  test("a list of one-word items between paragraphs of an article is kept", () => {
    const { markdown } = run(inArticle("<p>Official SDKs:</p><ul><li>Go</li><li>Rust</li><li>Zig</li><li>Java</li></ul>"));
    expect(markdown).toContain("Official SDKs:");
    for (const item of ["- Go", "- Rust", "- Zig", "- Java"]) expect(markdown).toContain(item);
    expect(markdown).toContain(PARAGRAPHS[1]!);
  });

  test("a list of sizes inside an article is kept", () => {
    const { markdown } = run(inArticle("<p>Available sizes</p><ul><li>S</li><li>M</li><li>L</li><li>XL</li></ul>"));
    for (const item of ["- S", "- M", "- L", "- XL"]) expect(markdown).toContain(item);
  });

  test("a nested list inside an article is kept", () => {
    const { markdown } = run(inArticle("<ul><li>One<ul><li>Nested</li></ul></li><li>Two</li></ul>"));
    for (const item of ["One", "Nested", "Two"]) expect(markdown).toContain(item);
  });

  test("a body of a heading and two one-word paragraphs keeps the paragraphs", () => {
    const { markdown } = run("<html><body><h1>Simple</h1><p>One</p><p>Two</p></body></html>");
    expect(markdown).toBe("# Simple\n\nOne\n\nTwo");
  });

  test("a short <main> with a button is not dropped as a whole", () => {
    const { markdown } = run(`<html><body><main><h1>Status</h1><p>All systems operational</p><button>Refresh</button></main><p>Last checked: now</p></body></html>`);
    expect(markdown).toContain("# Status");
    expect(markdown).toContain("All systems operational");
    expect(markdown).toContain("Last checked: now");
  });

  test("chrome around such a page is still stripped", () => {
    const page = `<html><body><header class="site-header"><a href="/">Example News</a></header><nav><a href="/">Home</a> <a href="/docs">Docs</a></nav>
      ${inArticle("<p>Official SDKs:</p><ul><li>Go</li><li>Rust</li><li>Zig</li><li>Java</li></ul>").replace(/^<html><body>|<\/body><\/html>$/g, "")}
      <aside class="sidebar"><ul><li><a href="/p/1">Ten things to do this weekend</a></li></ul></aside><footer><p>Copyright 2024 Example</p></footer></body></html>`;
    const { markdown } = run(page);
    for (const item of ["- Go", "- Rust", "- Zig", "- Java"]) expect(markdown).toContain(item);
    for (const chrome of ["Example News", "Home", "Ten things", "Copyright"]) expect(markdown).not.toContain(chrome);
  });
});
