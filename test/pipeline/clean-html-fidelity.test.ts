/**
 * The `html` format shows what a browser shows, where linkedom's tree (htmlparser2) differs from a browser's, and
 * carries the same content as `markdown`: an empty main content falls back to the whole page in both; nested
 * `<html>`/`<body>` tags are unwrapped; declarative shadow roots are shown; `<textarea>`/`<xmp>` text is escaped once;
 * `<![CDATA[ … >` in HTML is a bogus comment; `removeBase64Images` removes every `data:` image and nothing else.
 */
import { describe, expect, test } from "bun:test";
import type { Page } from "../../src/engines/types.ts";
import { cleanHtml, htmlToMarkdown, parseHtml } from "../../src/pipeline/index.ts";
import { extractImages } from "../../src/pipeline/links.ts";
import { computeViews, createRenderContext } from "../../src/scrape/render-context.ts";
import type { ScrapeSpec } from "../../src/scrape/spec.ts";

const BASE = "https://ex.com/a/b.html";
const clean = (html: string, onlyMainContent = false, removeBase64Images = true) =>
  cleanHtml(parseHtml(html), { baseUrl: BASE, onlyMainContent, removeBase64Images });

describe("main content that comes out empty", () => {
  // Navigation, a sidebar and a footer: nothing the scorer keeps.
  const CHROME_ONLY =
    '<!DOCTYPE html><html><head><title>Links only</title></head><body><nav><ul><li><a href="/docs">Documentation</a></li>' +
    '<li><a href="/blog">Blog</a></li></ul></nav><aside class="sidebar"><a href="/login">Log in</a></aside>' +
    '<footer><p>Contact us at hello@example.com</p><a href="/terms">Terms</a></footer></body></html>';
  const specOf = (...types: string[]) => ({ onlyMainContent: true, removeBase64Images: true, includeTags: [], excludeTags: [], onlyCleanContent: false, formats: types.map((type) => ({ type })) }) as unknown as ScrapeSpec;
  // A request that makes the markdown (upstream's deriveMarkdownFromHTML): html falls back with it.
  const spec = specOf("html", "markdown");
  const page = { finalUrl: BASE, requestedUrl: BASE, text: CHROME_ONLY, contentType: "text/html" } as Page;

  test("html falls back to the whole page as markdown does, whichever is asked for first", () => {
    const htmlFirst = createRenderContext(spec, page);
    const html = htmlFirst.cleanedHtml();
    expect(html).toContain('<a href="https://ex.com/docs">Documentation</a>');
    expect(html).toContain("Contact us at hello@example.com");
    expect(htmlFirst.markdown()).toBe(htmlToMarkdown(html));

    const markdownFirst = createRenderContext(spec, page);
    const markdown = markdownFirst.markdown();
    expect(markdown).toContain("[Documentation](https://ex.com/docs)");
    expect(markdownFirst.cleanedHtml()).toBe(html);
    expect(markdown).toBe(htmlToMarkdown(html));
  });

  test("a parse worker's views (computeViews) fall back the same way, html asked for alone too", () => {
    const alone = computeViews(createRenderContext(spec, page), ["html"]);
    const both = computeViews(createRenderContext(spec, page), ["html", "markdown"]);
    expect(alone.html).toContain("Documentation");
    expect(both.html).toBe(alone.html!);
    expect(both.markdown).toBe(htmlToMarkdown(both.html!));
  });

  test("a request that makes no markdown (html alone) keeps the main html: a <main> holding only a video is the page's content", () => {
    const media = '<html><body><nav><a href="/a">A</a> <a href="/b">B</a> <a href="/c">C</a></nav><main><video src="/v/demo.mp4" poster="/v/demo.jpg" controls></video></main><aside class="sidebar"><a href="/x">X</a> <a href="/y">Y</a></aside><footer>© Site</footer></body></html>';
    const mediaPage = { ...page, text: media } as Page;
    const htmlOnly = createRenderContext(specOf("html"), mediaPage).cleanedHtml();
    expect(htmlOnly).toStartWith("<main><video");
    expect(htmlOnly).not.toContain("<nav>");
    expect(createRenderContext(specOf("html"), page).cleanedHtml()).not.toContain("Documentation");
    // With json (made from the markdown) the fallback applies, as upstream.
    expect(createRenderContext(specOf("html", "json"), page).cleanedHtml()).toContain("Documentation");
  });
});

describe("nested <html> and <body> tags", () => {
  test("a second <body> and a second document after </html> are unwrapped, their content kept in place", () => {
    const html = clean(
      '<html><head><title>T</title></head><body class="first"><p>First.</p></body><body class="x"><p>Second.</p></body></html>' +
        "<html><body><p>Third.</p></body></html>",
    );
    expect(html).toBe("<p>First.</p><p>Second.</p><p>Third.</p>");
  });

  test("a document pasted inside a <div>: its <html>/<body> unwrapped, its <head> (title, style) not shown", () => {
    const html = clean(
      '<html><body><div class="post"><html><head><title>Mail title</title><style>p{}</style></head>' +
        '<body class="mail"><p>Pasted text.</p></body></html></div></body></html>',
    );
    expect(html).toBe('<div class="post"><p>Pasted text.</p></div>');
    expect(htmlToMarkdown(html)).toBe("Pasted text.");
  });

  test("a nested <body> picked by includeTags is written without its tag", () => {
    const doc = parseHtml('<div><body class="inner"><p>Inner.</p></body></div>');
    const html = cleanHtml(doc, { baseUrl: BASE, onlyMainContent: false, removeBase64Images: true, includeTags: ["body.inner"] });
    expect(html).toBe("<p>Inner.</p>");
  });
});

describe("declarative shadow DOM", () => {
  test('<template shadowrootmode> and the older shadowroot are unwrapped; another <template> still goes', () => {
    const html = clean(
      '<x-card><template shadowrootmode="open"><h2>Shadow heading</h2><p>Shadow text.</p></template><span>Light</span></x-card>' +
        '<x-old><template shadowroot="closed"><p>Old shadow.</p></template></x-old>' +
        '<template id="row"><p>Never shown.</p></template><template shadowrootmode="bogus"><p>Not a root.</p></template>',
    );
    expect(html).toBe(
      "<x-card><h2>Shadow heading</h2><p>Shadow text.</p><span>Light</span></x-card><x-old><p>Old shadow.</p></x-old>",
    );
    expect(htmlToMarkdown(html)).toContain("Shadow text.");
  });

  test("a shadow root inside a shadow root (nested components) is unwrapped too", () => {
    const html = clean(
      '<x-outer><template shadowrootmode="open"><p>Outer.</p><x-inner><template shadowrootmode="open"><p>Inner shadow.</p>' +
        "</template></x-inner></template></x-outer>",
    );
    expect(html).toBe("<x-outer><p>Outer.</p><x-inner><p>Inner shadow.</p></x-inner></x-outer>");
  });

  test("onlyMainContent: the shadow root's text is scored and kept", () => {
    const page =
      "<html><body><nav><a href='/'>Home</a></nav><main><h1>Declarative shadow DOM article</h1><article-body>" +
      '<template shadowrootmode="open"><h2>SHADOW_HEADING</h2><p>SHADOW_PARAGRAPH: the article text lives in the shadow root, ' +
      "as Lit SSR renders it. Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p></template>" +
      "</article-body><p>LIGHT_PARAGRAPH outside the component.</p></main></body></html>";
    const html = clean(page, true);
    expect(html).toContain("<h2>SHADOW_HEADING</h2><p>SHADOW_PARAGRAPH");
    expect(html).not.toContain("<template");
    expect(htmlToMarkdown(html)).toContain("the article text lives in the shadow root");
  });
});

describe("<textarea> and <xmp> text", () => {
  test("textarea (escapable raw text): entities decoded once, escaped once", () => {
    const html = clean('<form><textarea name="code">if (a &lt; b &amp;&amp; c) {} &copy &#65; a < b</textarea></form>');
    expect(html).toBe('<form><textarea name="code">if (a &lt; b &amp;&amp; c) {} © A a &lt; b</textarea></form>');
  });

  test("xmp (raw text): written as the <pre> it displays as, showing the characters the page showed", () => {
    const html = clean("<xmp>x &amp; <i>y</i></xmp>");
    expect(html).toBe("<pre>x &amp;amp; &lt;i&gt;y&lt;/i&gt;</pre>");
    // Parsed again, the text is what the page's <xmp> showed: "x &amp; <i>y</i>", entity and tags as written.
    expect(parseHtml(html).body.textContent).toBe("x &amp; <i>y</i>");
    expect(htmlToMarkdown(html)).toBe("```\nx &amp; <i>y</i>\n```");
  });
});

describe("<![CDATA[ in HTML content", () => {
  test("a bogus comment up to the first >: the CDATA's text and its ]]> are not shown", () => {
    expect(clean("<p><![CDATA[ this is CDATA in HTML ]]>Text after CDATA stays.</p>")).toBe("<p>Text after CDATA stays.</p>");
    // The comment ends at the first `>`, wherever it is: " y ]]>" is text, as a browser shows it.
    expect(clean("<p>a <![CDATA[ x > y ]]> b</p>")).toBe("<p>a  y ]]&gt; b</p>");
  });

  test("inside a comment it is comment text: a commented-out script (CDATA markers and all) stays hidden", () => {
    const page = '<p>a</p><!--script>\n/* <![CDATA[ */\nvar polls = {"wait":"Please wait"};\n/* ]]> */\n</script--><p>b</p>';
    expect(clean(page)).toBe("<p>a</p><p>b</p>");
  });

  test("unchanged: XML keeps the section's text, and script keeps its //<![CDATA[", () => {
    expect(cleanHtml(parseHtml("<p><![CDATA[a <b> & c]]></p>", { xml: true }), { baseUrl: BASE, onlyMainContent: false, removeBase64Images: true }))
      .toBe("<p>a &lt;b&gt; &amp; c</p>");
    const doc = parseHtml("<script>//<![CDATA[\nvar a = 1;//]]></script><p>ok</p>");
    expect(doc.body.innerHTML).toBe("<script>//<![CDATA[\nvar a = 1;//]]></script><p>ok</p>");
  });
});

describe("removeBase64Images", () => {
  const PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

  test("a video poster and a style's url(data:) lose their base64; the rest of the style stays", () => {
    const html = clean(`<video poster="${PNG}" src="v.mp4"></video><div style="color:red;background:url(${PNG}) no-repeat">BG</div>` +
      `<div style='background-image:url("${PNG}")'>Q</div>`);
    expect(html).toBe(
      '<video src="https://ex.com/a/v.mp4"></video><div style="color:red;background:none no-repeat">BG</div>' +
        '<div style="background-image:none">Q</div>',
    );
  });

  test("a srcset keeps its real candidates and loses only its data: ones", () => {
    const html = clean(`<picture><source srcset="${PNG} 1x, big.webp 2x" type="image/webp"><img src="small.jpg" srcset="DATA:IMAGE/GIF;base64,R0lGOD 1x, mid.jpg 2x" alt="A"></picture>`);
    expect(html).toBe(
      '<picture><source srcset="https://ex.com/a/big.webp 2x" type="image/webp">' +
        '<img src="https://ex.com/a/small.jpg" srcset="https://ex.com/a/mid.jpg 2x" alt="A"></picture>',
    );
  });

  test("an upper-case DATA:IMAGE src and an SVG <image href> go too; the alt text stays", () => {
    const upper = PNG.replace("data:image/png", "DATA:IMAGE/PNG");
    const html = clean(`<img src=" ${upper}" alt="Upper"><svg><image href="${PNG}" width="1"></image></svg>`);
    expect(html).toBe('<img alt="Upper"><svg><image width="1"></image></svg>');
    expect(htmlToMarkdown(html)).toBe("Upper");
  });

  test("off: everything stays, and `images` lists an upper-case DATA:IMAGE src", () => {
    const upper = PNG.replace("data:image/png", "DATA:IMAGE/PNG");
    const page = `<img src="${upper}" alt="U"><video poster="${PNG}"></video><img srcset="${PNG} 1x, b.jpg 2x">`;
    const html = clean(page, false, false);
    expect(html).toContain(`src="${upper}"`);
    expect(html).toContain(`poster="${PNG}"`);
    expect(html).toContain(`srcset="${PNG} 1x, https://ex.com/a/b.jpg 2x"`);
    expect(extractImages(parseHtml(page), BASE, true)).toEqual([upper, PNG, "https://ex.com/a/b.jpg"]);
    expect(extractImages(parseHtml(page), BASE, false)).toEqual(["https://ex.com/a/b.jpg"]);
  });
});
