/**
 * The engine-choice heuristics (no browser): JS shells, noscript walls, empty mount points, bot walls.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { looksBlocked, metaRefreshTarget, needsJavaScript, refreshTarget, visibleTextLength } from "../../src/engines/browser/detect.ts";
import type { Page } from "../../src/engines/types.ts";

const page = (text: string, statusCode = 200, headers: Record<string, string> = {}): Page => ({
  requestedUrl: "http://x.test/",
  finalUrl: "http://x.test/",
  statusCode,
  headers,
  contentType: "text/html",
  body: new TextEncoder().encode(text),
  text,
  engine: "http",
  elapsedMs: 1,
});
const prose = "<p>" + "Real words a reader would see on this page. ".repeat(30) + "</p>";

describe("needsJavaScript", () => {
  test("script-only shells, empty mount points and noscript walls need the browser", () => {
    expect(needsJavaScript(page(`<html><body><script src="/app.js"></script></body></html>`))).toBe("script-only shell");
    expect(needsJavaScript(page(`<body><div id="root"></div><p>Loading your dashboard, one moment please. ${"x ".repeat(150)}</p><script src=/a.js></script></body>`))).toBe(
      "empty client-side mount point",
    );
    expect(needsJavaScript(page(`<body><noscript>Please enable JavaScript to continue.</noscript><h1>Shop</h1>${"<p>item</p>".repeat(40)}<script></script></body>`))).toBe(
      "noscript wall",
    );
  });

  test("a meta refresh that sends the reader on at once needs the browser; a later one, or one to the page itself, does not", () => {
    expect(needsJavaScript(page(`<meta http-equiv="refresh" content="0;url=/next"><p>Redirecting</p>`))).toBe("meta refresh to another page");
    expect(needsJavaScript(page(`<META CONTENT='1; URL=http://other.test/' HTTP-EQUIV=Refresh><article>${prose}</article>`))).toBe("meta refresh to another page");
    expect(needsJavaScript(page(`<meta http-equiv="refresh" content="30;url=/next"><article>${prose}</article>`))).toBeUndefined();
    expect(needsJavaScript(page(`<meta http-equiv="refresh" content="0"><article>${prose}</article>`))).toBeUndefined();
    expect(needsJavaScript(page(`<meta http-equiv="refresh" content="0;url=http://x.test/#top"><article>${prose}</article>`))).toBeUndefined();
  });

  test("ordinary pages, error pages and non-HTML stay on HTTP", () => {
    expect(needsJavaScript(page(`<body><article>${prose}</article><script>track()</script></body>`))).toBeUndefined();
    expect(needsJavaScript(page(`<body><h1>Tiny</h1><p>No scripts at all.</p></body>`))).toBeUndefined();
    expect(needsJavaScript(page(`<body><script src=/a.js></script></body>`, 404))).toBeUndefined();
    expect(needsJavaScript({ ...page("{}"), contentType: "application/json" })).toBeUndefined();
    expect(needsJavaScript(page(`<body><noscript>enable JavaScript for comments</noscript><article>${prose}</article></body>`))).toBeUndefined();
  });
});

describe("metaRefreshTarget", () => {
  /** The definition: the first tag this regex finds, its `content` read as a refresh value. */
  const byRegex = (html: string): string | undefined => {
    const tag = /<meta\b[^>]*\bhttp-equiv\s*=\s*["']?refresh\b[^>]*>/i.exec(html)?.[0];
    if (!tag) return undefined;
    const content = /\bcontent\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(tag);
    return refreshTarget(content?.[1] ?? content?.[2] ?? "");
  };

  test("finds the tag in either case, attributes in any order, and nothing in look-alikes", () => {
    expect(metaRefreshTarget(`<html><head><META HTTP-EQUIV="Refresh" CONTENT="0; URL=/a"></head>`)).toBe("/a");
    expect(metaRefreshTarget(`<meta content='1;url=/b' http-equiv=refresh>`)).toBe("/b");
    expect(metaRefreshTarget(`<p>quiet questions</p><meta http-equiv = 'refresh' content="0;url=/c">`)).toBe("/c");
    expect(metaRefreshTarget(`<link http-equiv="refresh" content="0;url=/d"><meta name="q" content="0;url=/e">`)).toBeUndefined();
    expect(metaRefreshTarget(`<meta xhttp-equiv="refresh" content="0;url=/f">`)).toBeUndefined();
    expect(metaRefreshTarget(`<meta http-equiv="refreshing" content="0;url=/g">`)).toBeUndefined();
    expect(metaRefreshTarget(`<meta http-equiv="refresh" content="0;url=/h"`)).toBeUndefined();
  });

  test("a page of many candidates is read once, not once per candidate (it took 2 to 5 s on 1 MiB)", () => {
    // A bound ~300× above what it takes, against seconds before: it guards the growth, not the speed.
    const unit = "<b http-equiv=refresh>";
    for (const html of [unit.repeat((1 << 20) / unit.length), "<b " + "http-equiv=refresh ".repeat((1 << 20) / 19) + ">", unit.repeat((1 << 20) / unit.length) + "<meta name=x>"]) {
      const started = performance.now();
      expect(metaRefreshTarget(html)).toBeUndefined();
      expect(performance.now() - started).toBeLessThan(500);
    }
  });

  test("agrees with the regex definition on generated markup", () => {
    // Whole attributes as well as their pieces, so that ~1 % of the strings hold a refresh tag (pieces alone: none).
    const parts = ["<meta ", "<META\n", "<metax ", "<link ", " ", "http-equiv=refresh", ' http-equiv="Refresh"', " HTTP-EQUIV = 'refresh' ", " Http-Equiv=refreshx",
      " xhttp-equiv=refresh", "_http-equiv=refresh", "http-equiv", "=", '"', "'", "refresh", ' content="0;url=/a"', " content='1; URL=/b'", ' content="5;url=/c"',
      ">", "<", "q", "Q", "<p>", "é"];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...parts), { maxLength: 12 }), (tokens) => {
        const html = tokens.join("");
        expect(metaRefreshTarget(html)).toBe(byRegex(html));
      }),
      { numRuns: 40_000 },
    );
  });
});

describe("refreshTarget", () => {
  /** The definition: the one-regex form (exponential on long space runs, so only fed short values here). */
  const byRegex = (value: string) => {
    const m = /^\s*(\d+(?:\.\d*)?)\s*[;,]\s*(?:url\s*=\s*)?['"]?\s*([^'"\s][^'"]*?)\s*['"]?\s*$/i.exec(value);
    return m && Number(m[1]) <= 1 ? m[2] : undefined;
  };

  test("agrees with the regex definition on generated values", () => {
    const parts = ["0", "1", "5", "0.5", ";", ",", " ", "\t", "\u00a0", "url", "URL", "=", "'", '"', "/a", "b c", "x"];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...parts), { maxLength: 10 }), (tokens) => {
        const value = tokens.join("");
        expect(refreshTarget(value)).toBe(byRegex(value));
      }),
      { numRuns: 40_000 },
    );
  });

  test("long runs of spaces do not make it backtrack (2,000 took 4.5 s; 64 K never ended)", () => {
    const started = performance.now();
    for (const value of ["0;a" + " ".repeat(1 << 16) + "x", "0;" + " ".repeat(1 << 16) + "''", "0;url=" + " ".repeat(1 << 16) + "'" + " ".repeat(1 << 16)]) refreshTarget(value);
    expect(performance.now() - started).toBeLessThan(500);
    expect(needsJavaScript(page(`<meta http-equiv=refresh content="0;a${" ".repeat(1 << 16)}x">`))).toBe("meta refresh to another page");
  });
});

describe("looksBlocked", () => {
  test("challenge pages and 403 are bot walls; 429/503 only without Retry-After", () => {
    expect(looksBlocked(page("<title>Just a moment...</title>", 503))).toBe("challenge page");
    expect(looksBlocked(page("<p>denied</p>", 403))).toBe("HTTP 403");
    expect(looksBlocked(page("<p>slow down</p>", 429))).toBe("HTTP 429");
    expect(looksBlocked(page("<p>slow down</p>", 429, { "retry-after": "1" }))).toBeUndefined();
    expect(looksBlocked(page("<p>maintenance</p>", 503, { "retry-after": "60" }))).toBeUndefined();
    expect(looksBlocked(page(prose))).toBeUndefined();
    expect(looksBlocked(page("<p>broken</p>", 500))).toBeUndefined();
  });
});

describe("visibleTextLength", () => {
  test("equals visibleText(...).length below the cap, and stops at the cap", async () => {
    const { visibleText, visibleTextLength } = await import("../../src/engines/browser/detect.ts");
    const samples = [
      "<html><head><title>t</title><script>var x = '<p>no</p>';</script></head><body><p>Hello   <b>big</b>\n world</p><!-- c --><div>again x</div></body></html>",
      "<body><style>p{}</style><noscript>enable javascript</noscript><main id=root></main></body>",
      "plain text only",
      "",
    ];
    for (const html of samples) expect(visibleTextLength(html, 10_000)).toBe(visibleText(html).length);
    expect(visibleTextLength("<p>" + "word ".repeat(1000) + "</p>", 50)).toBeGreaterThanOrEqual(50);
    expect(visibleTextLength("<p>" + "word ".repeat(1000) + "</p>", 50)).toBeLessThan(60);
  });
});

describe("visibleTextLength", () => {
  /** The definition the scanner implements: one tokenising regex (what the router used before the scanner). */
  const TOKENS = /<!--[\s\S]*?-->|<(script|style|noscript|template|svg|head)\b[\s\S]*?<\/\1\s*>|<[^>]*>|[^<]+|</g;
  function byRegex(html: string, cap: number): number {
    let count = 0;
    let space = true;
    TOKENS.lastIndex = 0;
    for (let m = TOKENS.exec(html); m !== null; m = TOKENS.exec(html)) {
      const token = m[0];
      if (token.charCodeAt(0) === 60) {
        space = true;
        continue;
      }
      for (const ch of token) {
        const c = ch.charCodeAt(0);
        if (c <= 32 || c === 160) space = true;
        else {
          if (space && count > 0) count++;
          space = false;
          if (++count >= cap) return count;
        }
      }
    }
    return count;
  }

  test("counts visible characters, one per whitespace run and per markup boundary", () => {
    expect(visibleTextLength("<p>ab  cd</p><p>e</p>", 1000)).toBe(7);
    expect(visibleTextLength("<head><title>T</title></head><body>xy<script>var a = '<p>hidden</p>';</script>z</body>", 1000)).toBe(4);
    expect(visibleTextLength("<!-- c -->a<header>b</header><svg><text>no</text></svg>", 1000)).toBe(3);
    expect(visibleTextLength("x".repeat(5000), 800)).toBe(800);
  });

  test("agrees with the tokenising-regex definition on generated markup", () => {
    const parts = ["<script>", "</script>", "</script \n>", "</scriptx>", "<script", "<scripts>", "<!--", "-->", "<head>", "</head>",
      "<header>", "<svg>", "</svg>", "<SCRIPT>", "<style a='>'>", "</style>", "<template>", "</template\t>", "<noscript>", "</noscript>",
      "a", "bc", " ", "\n", "<", ">", "\u00a0", "&nbsp;", "<p>", "</p>", "x y", "é"];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...parts), { maxLength: 16 }), fc.constantFrom(3, 40, 1e9), (tokens, cap) => {
        const html = tokens.join("");
        expect(visibleTextLength(html, cap)).toBe(byRegex(html, cap));
      }),
      { numRuns: 20_000 },
    );
  });
});
