/**
 * The `branding` format's guesses on pages built like real sites (the review of 2026-11-24): grey text is not a
 * brand colour, a Tailwind CTA link is the primary button, an inline SVG logo comes back as a picture that loads,
 * a link without text has no colour, a consent banner does not set the brand colour, the brand name is the site's
 * and not the page's, a wrapper's dark background makes a dark page, Bootstrap's and shadcn's variables are read
 * for the right roles, and CSS generic font keywords are not typefaces.
 *
 * The follow-up review: dark brand fills (Stripe's navy `#0A2540`) are primary again; the brand name is the part that
 * reads like a name ("Kite — Payments" → Kite, "Acme | Computers" on acme.com.br → Acme); an SVG logo keeps only an
 * allow-list of elements and attributes (no links, animations, event attributes, `@import` or outside URLs), the same
 * when its painted copy is too long; a bakery's `cookie-grid` is not a consent banner.
 *
 * The first half runs real Chromium on local pages through `/v2/scrape`; an SVG logo is checked by loading its
 * `data:` URL as an `<img>` in another page of the same browser and reading its pixels from a canvas. The second
 * half checks the derivation (src/branding/) as a pure function of hand-made snapshots.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { PlacedSample, PlacedSnapshot } from "../../src/branding/observations.ts";
import { isChromatic, pageBackground } from "../../src/branding/colors.ts";
import { deriveBranding, nameFromTitle } from "../../src/branding/derive.ts";
import type { Harness } from "../helpers/harness.ts";
import { browserHarness, closeAndAssertNoChromium, scrape } from "./helpers.ts";

const doc = (title: string, style: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>${style}</style></head><body>${body}</body></html>`;
const PROSE = "Teams use this product to plan, track and ship their work with less friction and more focus every day. ".repeat(3);
/** An SVG logo's inside with a link, animations, `@import`, outside images and uses, a foreignObject iframe: an orange mark, a dark bar. */
const HOSTILE_SVG_BODY =
  `<style>@import url(https://evil.example/x.css); .m{fill:#ea580c} .d{fill:#1c1917} .far{fill:url(https://evil.example/p.svg#g)}</style>` +
  `<a href="javascript:alert(1)"><circle class="m" cx="16" cy="16" r="14"/></a>` +
  `<rect class="d" x="40" y="8" width="70" height="16"><animate attributeName="href" to="javascript:alert(2)" dur="1s"/><set attributeName="onmouseover" to="alert(3)"/><animateTransform attributeName="transform" type="rotate" to="90" dur="1s"/></rect>` +
  `<image href="https://evil.example/track.png" width="1" height="1"/><image xlink:href="https://evil.example/track2.png" width="1" height="1"/><use href="https://evil.example/sprite.svg#logo"/>` +
  `<foreignObject width="10" height="10"><iframe src="javascript:alert(4)"></iframe></foreignObject>`;
/** What must not be left of {@link HOSTILE_SVG_BODY} in the logo. */
const HOSTILE_MARKS = ["javascript:", "evil.example", "<a ", "<animate", "<set", "<foreignObject", "<iframe", "<script", "onload", "onclick", "onmouseover", "@import"];

const PAGES: Record<string, string> = {
  // Grey text everywhere (Tailwind's gray-900/slate-900/gray-800 headings, slate-700 nav, Atlassian's navy body
  // text); the one brand colour is the teal of a link in the text.
  "/greys": doc(
    "Greys",
    `body{margin:0;font-family:Arial,sans-serif;color:#172b4d} header{padding:16px} nav a{color:#334155;margin-right:12px}
     h1{color:#111827;font-size:40px} h2{color:#0f172a} h3{color:#1f2937} main{padding:24px} .guide{color:#0d9488}`,
    `<header><nav><a href="/a">Product</a><a href="/b">Pricing</a><a href="/c">Docs</a></nav></header>
     <main><h1>Plan your work</h1><h2>Why teams switch</h2><h3>How it works</h3><p>${PROSE} Read the <a class="guide" href="/g">guide</a>.</p></main>`,
  ),
  // Tailwind utility classes: the CTA is a link painted indigo, with no btn/button/cta class.
  "/cta": doc(
    "Stackly | Ship faster",
    `body{margin:0;font-family:Arial,sans-serif;color:#374151;background:#fff} a{color:inherit;text-decoration:none} main{padding:48px}
     h1{color:#111827;font-size:48px} .bg-indigo-600{background-color:rgb(79 70 229)} .bg-white{background-color:#fff} .text-white{color:#fff}
     .rounded-md{border-radius:6px} .px-4{padding-left:16px;padding-right:16px} .py-2{padding-top:10px;padding-bottom:10px} .ring-1{box-shadow:0 0 0 1px #d1d5db}`,
    `<main><h1>Data to enrich your business</h1><p>${PROSE}</p>
     <div><a href="/start" class="rounded-md bg-indigo-600 px-4 py-2 text-white">Get started</a> <a href="/more">Learn more →</a>
     <button type="button" class="rounded-md bg-white px-4 py-2 ring-1">Contact sales</button></div></main>`,
  ),
  // An inline SVG logo as pages write it in HTML: no xmlns; the logo link has no text (the page never styles links).
  "/svg-plain": doc(
    "Orbit",
    `body{margin:0;font-family:Arial,sans-serif;color:#222} header{padding:16px} main{padding:16px}`,
    `<header><a href="/" aria-label="Orbit home"><svg width="120" height="32" viewBox="0 0 120 32"><circle cx="16" cy="16" r="14" fill="#ea580c"/><rect x="40" y="8" width="70" height="16" fill="#1c1917"/></svg></a></header>
     <main><h1>Launch faster</h1><p>${PROSE}</p></main>`,
  ),
  // A sprite logo: <use> of a <symbol> elsewhere in the page, fills from CSS classes and currentColor, size from CSS.
  "/svg-sprite": doc(
    "Kite — Payments",
    `body{margin:0;font-family:Arial,sans-serif} header{padding:16px} header a{color:#1e3a8a} .logo{width:140px;height:36px}
     .logo-mark{fill:#ea580c} .logo-dot{fill:#16a34a}`,
    `<svg style="display:none"><symbol id="kite-logo" viewBox="0 0 140 36"><circle class="logo-mark" cx="18" cy="18" r="16"/><rect x="40" y="10" width="80" height="16" fill="currentColor"/></symbol></svg>
     <header><a href="/" class="logo-link" aria-label="Kite home"><svg class="logo"><use href="#kite-logo"/><rect class="logo-dot" x="128" y="2" width="10" height="10"/></svg></a></header>
     <main><h1>Payments, simplified</h1><p>${PROSE}</p></main>`,
  ),
  // Two consent banners crawlbox's blocking does not know: CookieYes-style classes, and obfuscated classes whose
  // fixed bar talks about cookies. Their big orange buttons are not the brand (#0052CC).
  "/consent": doc(
    "Bankly – Banking for business",
    `body{margin:0;font-family:Arial,sans-serif;color:#172b4d} main{padding:48px}
     .btn{background:#0052cc;color:#fff;padding:10px 16px;border-radius:3px;text-decoration:none;display:inline-block}
     .cky-consent-container{position:fixed;bottom:0;left:0;right:0;background:#fff;padding:24px 48px;z-index:9999}
     .x7f2{position:fixed;top:40%;left:20%;right:20%;background:#fff;padding:24px;z-index:9998}
     .cky-btn,.q1{background:#f97316;color:#fff;border:0;padding:16px 48px;font-size:18px;border-radius:4px}`,
    `<main><h1>Banking built for business</h1><p>${PROSE}</p><a class="btn" href="/open">Open account</a></main>
     <div class="cky-consent-container"><p>We value your privacy.</p><button class="cky-btn">Customize</button> <button class="cky-btn">Accept All</button></div>
     <div class="x7f2"><p>This site uses cookies to improve your experience.</p><button class="q1">Accept</button> <button class="q1">Decline</button></div>`,
  ),
  // A bakery: its product grid is named for cookies, but it is part of the page, and its CTA is the brand's. Its
  // consent tool is named by a camelCase id and says nothing of cookies: fixed and named, it is one (its large
  // orange button would outweigh the CTA even at a fixed box's tenth).
  "/cookie-grid": doc(
    "Crumb Bakery",
    `body{margin:0;font-family:Arial,sans-serif;color:#333} main{padding:48px} .cookie-grid{display:grid;justify-items:start;gap:16px;padding:24px}
     .order{background:#b45309;color:#fff;padding:12px 24px;border-radius:6px;text-decoration:none;display:inline-block}
     #CybotCookiebotDialog{position:fixed;bottom:0;left:0;right:0;background:#fff;padding:16px} #CybotCookiebotDialog button{width:580px;height:120px;background:#f97316;color:#fff;border:0}`,
    `<main><h1>Fresh every morning</h1><p>${PROSE}</p><div class="cookie-grid"><p>Chocolate chip, oatmeal and more: order a box today.</p>
     <a class="order" href="/order">Order now</a></div></main>
     <div id="CybotCookiebotDialog"><p>Your choices matter to us.</p><button>Allow selection</button></div>`,
  ),
  // A hostile logo: every way an SVG opened as a document runs script, follows a link or loads from outside.
  "/svg-hostile": doc(
    "Hostile",
    `body{margin:0;font-family:Arial,sans-serif;color:#222} header{padding:16px}`,
    `<header><a href="/" class="logo-link"><svg class="logo" width="120" height="32" viewBox="0 0 120 32" onload="alert(0)">${HOSTILE_SVG_BODY}
     <script>alert(5)</script><rect x="112" y="2" width="6" height="6" onclick="alert(6)" style="fill:#16a34a;background-image:url(https://evil.example/bg.png)"/></svg></a></header>
     <main><h1>Hostile</h1><p>${PROSE}</p></main>`,
  ),
  // The same without script and event attributes, and too long once its paint is written out (600 rects whose
  // fills come from a class): the markup as it is goes out, and went out with its links and loads.
  "/svg-hostile-long": doc(
    "Hostile long",
    `body{margin:0;font-family:Arial,sans-serif;color:#222} header{padding:16px}`,
    `<header><a href="/" class="logo-link"><svg class="logo" width="120" height="32" viewBox="0 0 120 32">${HOSTILE_SVG_BODY}${'<rect class="d" width="1" height="1"/>'.repeat(600)}</svg></a></header>
     <main><h1>Hostile</h1><p>${PROSE}</p></main>`,
  ),
  // The dark background is on a wrapper (Next.js #__next), body and html are transparent.
  "/wrapper": doc(
    "Nebula | AI infra",
    `body{margin:0;font-family:system-ui,sans-serif} #__next{background:#020617;color:#e2e8f0;min-height:100vh;padding:48px}
     h1{color:#f8fafc} a{color:#38bdf8}`,
    `<div id="__next"><h1>Inference at the edge</h1><p>${PROSE} <a href="/p">Pricing</a></p></div>`,
  ),
  // A full-viewport coloured hero on a long white page: the hero is not the page background.
  "/hero-band": doc(
    "Band",
    `body{margin:0;font-family:Arial,sans-serif;color:#111} .hero{height:100vh;background:#1d4ed8;color:#fff} .rest{height:1600px;padding:24px}`,
    `<div class="hero"><h1>Big hero</h1></div><div class="rest"><p>${PROSE}</p></div>`,
  ),
};

/** What /probe shows: the image to load and the points to read. */
let probe: { src: string; points: [number, number][] } = { src: "", points: [] };
const PROBE_SCRIPT = `const out = document.getElementById("out"); const img = new Image();
img.onload = () => { const c = document.createElement("canvas"); c.width = img.naturalWidth; c.height = img.naturalHeight;
  const g = c.getContext("2d"); g.drawImage(img, 0, 0);
  const px = ([x, y]) => x + "," + y + "=" + Array.from(g.getImageData(x, y, 1, 1).data.slice(0, 3)).map((v) => v.toString(16).padStart(2, "0")).join("").toUpperCase();
  out.textContent = "LOADED " + img.naturalWidth + "x" + img.naturalHeight + " " + POINTS.map(px).join(" "); };
img.onerror = () => { out.textContent = "BROKEN"; }; img.src = SRC;`;

let server: ReturnType<typeof Bun.serve>;
let base: string;
let h: Harness;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const path = new URL(req.url).pathname;
      const html = (body: string) => new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
      if (PAGES[path]) return html(PAGES[path]);
      if (path === "/probe") {
        const script = `const SRC = ${JSON.stringify(probe.src)}; const POINTS = ${JSON.stringify(probe.points)};\n${PROBE_SCRIPT}`;
        return html(`<!doctype html><html><head><title>probe</title></head><body><p id="out">PENDING</p><script>${script}</script></body></html>`);
      }
      return new Response("not found", { status: 404 });
    },
  });
  base = server.url.href.replace(/\/$/, "");
  h = await browserHarness();
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  server.stop(true);
});

async function branding(path: string) {
  const r = await scrape(h, { url: `${base}${path}`, formats: ["branding"] });
  expect(r.status).toBe(200);
  return r.body.data.branding;
}

/** Loads `src` as an `<img>` in the same Chromium and reads the colours at `points`: "LOADED WxH x,y=RRGGBB …" or "BROKEN". */
async function loadImage(src: string, points: [number, number][]): Promise<string> {
  probe = { src, points };
  const r = await scrape(h, { url: `${base}/probe`, formats: ["markdown"], waitFor: 300, maxAge: 0 });
  expect(r.status).toBe(200);
  return /LOADED[^\n]*|BROKEN|PENDING/.exec(String(r.body.data.markdown).replace(/\\/g, ""))?.[0] ?? String(r.body.data.markdown);
}

describe("in the browser", () => {
  test("1. grey text (#111827, #0F172A, #1F2937, #334155, navy #172B4D) is never primary, secondary or accent", async () => {
    const b = await branding("/greys");
    expect(b.colors.textPrimary).toBe("#172B4D");
    expect([b.colors.primary, b.colors.secondary, b.colors.accent]).toEqual(["#0D9488", undefined, undefined]);
  }, 60_000);

  test("2. a Tailwind CTA link (bg-indigo-600 px-4 py-2, no button class) is the primary button; a text link is not a button", async () => {
    const b = await branding("/cta");
    expect(b.colors.primary).toBe("#4F46E5");
    expect(b.components.buttonPrimary).toEqual({ background: "#4F46E5", textColor: "#FFFFFF", borderRadius: "6px", shadow: "none" });
    expect(b.components.buttonSecondary).toMatchObject({ background: "#FFFFFF" });
    expect(b.brandName).toBe("Stackly");
  }, 60_000);

  test("3a. an inline SVG logo without xmlns comes back as a data: URL that loads as an image; its text-less link gives no link colour", async () => {
    const b = await branding("/svg-plain");
    expect(b.logo).toStartWith("data:image/svg+xml");
    expect(b.images.logoHref).toBe(`${base}/`);
    expect(await loadImage(b.logo, [[16, 16], [75, 16]])).toBe("LOADED 120x32 16,16=EA580C 75,16=1C1917");
    // 4 (in the browser): the logo link is the page's only link and has no text.
    expect(b.colors.link).toBeUndefined();
    expect(b.colors.secondary).toBeUndefined();
  }, 60_000);

  test("3b. a <use> sprite logo with CSS-class fills and currentColor loads as drawn: orange mark, navy bar (the link's colour), green dot", async () => {
    const b = await branding("/svg-sprite");
    expect(b.logo).toStartWith("data:image/svg+xml");
    expect(await loadImage(b.logo, [[18, 18], [80, 18], [133, 7]])).toBe("LOADED 140x36 18,18=EA580C 80,18=1E3A8A 133,7=16A34A");
    expect(b.brandName).toBe("Kite");
  }, 60_000);

  test("5. buttons in consent banners crawlbox does not block (by class, or a fixed bar about cookies) do not set the brand colour", async () => {
    const b = await branding("/consent");
    expect(b.colors.primary).toBe("#0052CC");
    expect(b.components.buttonPrimary).toMatchObject({ background: "#0052CC" });
    expect([b.colors.secondary, b.colors.accent]).not.toContain("#F97316");
    expect(b.brandName).toBe("Bankly");
  }, 60_000);

  test("7. a dark background on a wrapper (#__next) makes a dark page; a full-viewport hero on a white page does not", async () => {
    const dark = await branding("/wrapper");
    expect([dark.colors.background, dark.colorScheme]).toEqual(["#020617", "dark"]);
    expect(dark.colors.textPrimary).toBe("#E2E8F0");
    const band = await branding("/hero-band");
    expect([band.colors.background, band.colorScheme]).toEqual(["#FFFFFF", "light"]);
  }, 60_000);

  test("follow-up 5. an SVG logo keeps only an allow-list: no script, link, animation, event attribute, @import or outside URL; it still loads as drawn", async () => {
    for (const path of ["/svg-hostile", "/svg-hostile-long"]) {
      const b = await branding(path);
      expect([path, String(b.logo).slice(0, 19)]).toEqual([path, "data:image/svg+xml;"]);
      const markup = decodeURIComponent(String(b.logo).replace(/^data:image\/svg\+xml;utf8,/, ""));
      expect([path, HOSTILE_MARKS.filter((m) => markup.includes(m))]).toEqual([path, []]);
      // The link's circle stays (unwrapped), and so do the class fills (the long one's from its sanitised <style>).
      expect([path, await loadImage(b.logo, [[16, 16], [75, 16]])]).toEqual([path, "LOADED 120x32 16,16=EA580C 75,16=1C1917"]);
    }
  }, 60_000);

  test("follow-up 6a. a product grid named cookie-grid is part of the page: its call to action is the primary colour; a fixed CybotCookiebotDialog is consent", async () => {
    const b = await branding("/cookie-grid");
    expect([b.colors.primary, b.components.buttonPrimary?.background]).toEqual(["#B45309", "#B45309"]);
    expect([b.colors.secondary, b.colors.accent]).not.toContain("#F97316");
  }, 60_000);
});

describe("derivation rules", () => {
  const sample = (over: Partial<PlacedSample>): PlacedSample => ({
    kind: "text", tag: "p", hints: "", color: "#333333", background: "", borderColor: "", borderRadius: "0px", boxShadow: "none",
    fontFamily: "Arial", fontSize: 16, fontWeight: 400, lineHeight: null, padding: [0, 0, 0, 0], margin: [0, 0], area: 1000, textLength: 100, ...over,
  });
  const snapshot = (over: Partial<PlacedSnapshot>): PlacedSnapshot => ({
    url: "https://site.example/", title: "Site", bodyBackground: "#FFFFFF", rootBackground: "", bodyColor: "#333333",
    colorSchemeProperty: "normal", cssVars: {}, samples: [], logos: [], ...over,
  });

  test("1. chroma, not HSL saturation: dark greys and blue-greys are neutral, dark brand colours are not; the text colour is never a brand colour", () => {
    for (const grey of ["#111827", "#0F172A", "#1F2937", "#334155", "#172B4D", "#6C757D", "#64748B", "#020617"]) expect([grey, isChromatic(grey)]).toEqual([grey, false]);
    for (const brand of ["#1E3A8A", "#0F766E", "#064E3B", "#0052CC", "#15803D", "#B45309", "#4F46E5", "#FBBC04"]) expect([brand, isChromatic(brand)]).toEqual([brand, true]);
    // A navy text colour used for the headings too: not secondary, however blue.
    const b = deriveBranding(
      snapshot({
        samples: [
          sample({ color: "#1B365D", textLength: 400 }),
          sample({ kind: "heading", tag: "h1", level: 1, color: "#1B365D" }),
          sample({ kind: "heading", tag: "h2", level: 2, color: "#1B365D" }),
          sample({ kind: "button", tag: "button", background: "#E11D48", color: "#FFFFFF" }),
        ],
      }),
    );
    expect([b.colors.textPrimary, b.colors.primary, b.colors.secondary, b.colors.accent]).toEqual(["#1B365D", "#E11D48", undefined, undefined]);
  });

  test("4. a link without text (a logo link) is not a link colour sample", () => {
    const b = deriveBranding(snapshot({ samples: [sample({}), sample({ kind: "link", tag: "a", color: "#0000EE", textLength: 0 })] }));
    expect([b.colors.link, b.colors.primary, b.colors.secondary]).toEqual([undefined, undefined, undefined]);
  });

  test("5. a button in a dialog counts for little against the page's; one in a consent banner not at all", () => {
    const page = sample({ kind: "button", tag: "a", hints: "", background: "#0052CC", color: "#FFFFFF", area: 2000 });
    const dialog = sample({ kind: "button", tag: "button", background: "#F97316", color: "#FFFFFF", area: 12000, overlay: "dialog" });
    const b = deriveBranding(snapshot({ samples: [sample({}), dialog, page] }));
    expect([b.colors.primary, b.components.buttonPrimary?.background]).toEqual(["#0052CC", "#0052CC"]);
    const consent = deriveBranding(snapshot({ samples: [sample({}), { ...dialog, overlay: "consent" }] }));
    expect([consent.colors.primary, consent.colors.secondary, consent.components.buttonPrimary]).toEqual([undefined, undefined, undefined]);
  });

  test("6. the brand name in a title: the part on the host, else the last name-like part, not a page word or a tagline", () => {
    const cases: [string, string, string][] = [
      ["Home | Bankly", "https://bankly.example/", "Bankly"],
      ["Docs - Vercel", "https://vercel.com/docs", "Vercel"],
      ["Log in · GitHub", "https://github.com/login", "GitHub"],
      ["Pricing | Acme Cloud", "https://acme.test/pricing", "Acme Cloud"],
      ["Bankly – Banking for business", "http://127.0.0.1/", "Bankly"],
      ["Stackly | Ship faster", "http://127.0.0.1/", "Stackly"],
      ["Nebula | AI infra", "http://127.0.0.1/", "Nebula"],
      ["Vercelish — Develop. Preview. Ship.", "http://127.0.0.1/", "Vercelish"],
      ["Typeset — Fonts", "http://127.0.0.1/fonts", "Typeset"],
      ["Getting Started: Acme Docs", "https://docs.acme.dev/start", "Acme Docs"],
      ["Acme — Build faster", "https://x.test/", "Acme"],
    ];
    for (const [title, url, name] of cases) expect([title, nameFromTitle(title, url)]).toEqual([title, name]);
    expect(deriveBranding(snapshot({ url: "https://bankly.example/", title: "Home | Bankly" })).brandName).toBe("Bankly");
  });

  test("7. the wrapper's background when body and html paint none", () => {
    expect(pageBackground(snapshot({ bodyBackground: "", wrapperBackground: "#020617" }))).toBe("#020617");
    expect(deriveBranding(snapshot({ bodyBackground: "", wrapperBackground: "#020617" })).colorScheme).toBe("dark");
    expect(pageBackground(snapshot({ bodyBackground: "#FAFAFA", wrapperBackground: "#020617" }))).toBe("#FAFAFA");
  });

  test("8. Bootstrap: --bs-body-color and --bs-link-color; without them the content's links beat a navbar brand link that comes first", () => {
    const navbarBrand = sample({ kind: "link", tag: "a", hints: "navbar-brand", color: "#FFFFFF", textLength: 9, chrome: true });
    const content = sample({ kind: "link", tag: "a", color: "#0D6EFD", textLength: 9, inline: true });
    const cssVars = {
      "--bs-primary": { value: "#0d6efd", color: "#0D6EFD" },
      "--bs-secondary": { value: "#6c757d", color: "#6C757D" },
      "--bs-body-color": { value: "#212529", color: "#212529" },
      "--bs-link-color": { value: "#0d6efd", color: "#0D6EFD" },
      "--bs-secondary-color": { value: "rgba(33, 37, 41, 0.75)", color: "#212529BF" },
    };
    const b = deriveBranding(snapshot({ cssVars, samples: [sample({ color: "#444444" }), navbarBrand, content] }));
    expect([b.colors.textPrimary, b.colors.link, b.colors.textSecondary, b.colors.primary]).toEqual(["#212529", "#0D6EFD", "#212529BF", "#0D6EFD"]);
    // Bootstrap's grey --bs-secondary (declared on every Bootstrap page) is a neutral, not the brand's secondary.
    expect(b.colors.secondary).toBeUndefined();
    expect(deriveBranding(snapshot({ samples: [sample({}), navbarBrand, content] })).colors.link).toBe("#0D6EFD");
  });

  test("9. shadcn: --muted-foreground (text) beats --muted (a background) for textSecondary, whatever the declaration order", () => {
    const cssVars = { "--muted": { value: "220 14.3% 95.9%", color: "#F3F4F6" }, "--muted-foreground": { value: "220 8.9% 46.1%", color: "#6B7280" } };
    expect(deriveBranding(snapshot({ cssVars })).colors.textSecondary).toBe("#6B7280");
  });

  test("10. generic font keywords are not typefaces: the first real family, system-ui for an all-system stack; stacks kept whole", () => {
    const b = deriveBranding(
      snapshot({
        samples: [
          sample({ fontFamily: 'ui-sans-serif, system-ui, sans-serif, "Apple Color Emoji", "Segoe UI Emoji"' }),
          sample({ kind: "heading", tag: "h1", level: 1, fontFamily: '-apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, sans-serif' }),
          sample({ kind: "code", tag: "code", fontFamily: "ui-monospace, SFMono-Regular, Menlo, monospace" }),
        ],
      }),
    );
    expect(b.fonts).toEqual([
      { family: "system-ui", role: "primary" },
      { family: "Segoe UI", role: "heading" },
      { family: "SFMono-Regular", role: "code" },
    ]);
    expect(b.typography.fontFamilies).toEqual({ primary: "system-ui", heading: "Segoe UI", code: "SFMono-Regular" });
    expect(b.typography.fontStacks.primary).toEqual(["ui-sans-serif", "system-ui", "sans-serif", "Apple Color Emoji", "Segoe UI Emoji"]);
    expect(deriveBranding(snapshot({ samples: [sample({ fontFamily: "serif" })] })).fonts).toEqual([]);
  });

  test("follow-up 3. dark brand fills are primary: a filled button needs less chroma than a voted colour, and may be the text colour; no grey passes", () => {
    const button = (background: string, hints = "") => sample({ kind: "button", tag: "a", hints, background, color: "#FFFFFF", area: 2000 });
    // Stripe's navy and other dark brand fills, chroma 0.055 to 0.070: below the vote's 0.07, above every grey.
    for (const fill of ["#0A2540", "#13294B", "#1B4332", "#004D40", "#0B3D2E"]) {
      const b = deriveBranding(snapshot({ samples: [sample({}), button(fill)] }));
      expect([fill, b.colors.primary, b.components.buttonPrimary?.background]).toEqual([fill, fill, fill]);
      // The page's text in the same navy: the button's fill is still the brand's.
      const navyText = deriveBranding(snapshot({ samples: [sample({ color: fill, textLength: 400 }), button(fill)] }));
      expect([fill, navyText.colors.textPrimary, navyText.colors.primary]).toEqual([fill, fill, fill]);
    }
    // Less colourful than slate-500: primary only on a button the page names primary (as a declared --primary).
    for (const fill of ["#1E3932", "#232F3E"]) {
      expect([fill, deriveBranding(snapshot({ samples: [sample({}), button(fill, "btn btn-primary")] })).colors.primary]).toEqual([fill, fill]);
      expect([fill, deriveBranding(snapshot({ samples: [sample({}), button(fill)] })).colors.primary]).toEqual([fill, undefined]);
    }
    // Tailwind's gray, slate, zinc, neutral and stone (50–950, v3 and v4 slate) and Bootstrap's greys: never primary.
    const greys = [
      "#F8FAFC", "#F1F5F9", "#E2E8F0", "#CBD5E1", "#94A3B8", "#64748B", "#475569", "#334155", "#1E293B", "#0F172A", "#020617",
      "#F9FAFB", "#F3F4F6", "#E5E7EB", "#D1D5DB", "#9CA3AF", "#6B7280", "#4B5563", "#374151", "#1F2937", "#111827", "#030712",
      "#FAFAFA", "#F4F4F5", "#E4E4E7", "#D4D4D8", "#A1A1AA", "#71717A", "#52525B", "#3F3F46", "#27272A", "#18181B", "#09090B",
      "#F5F5F5", "#E5E5E5", "#D4D4D4", "#A3A3A3", "#737373", "#525252", "#404040", "#262626", "#171717", "#0A0A0A",
      "#FAFAF9", "#F5F5F4", "#E7E5E4", "#D6D3D1", "#A8A29E", "#78716C", "#57534E", "#44403C", "#292524", "#1C1917", "#0C0A09",
      "#62748E", "#45556C", "#0F172B", "#101828", "#6C757D", "#212529", "#343A40", "#495057", "#ADB5BD",
    ];
    for (const grey of greys) expect([grey, deriveBranding(snapshot({ samples: [sample({}), button(grey)] })).colors.primary]).toEqual([grey, undefined]);
    // The vote keeps its floor: a navy heading is not a secondary colour.
    const voted = deriveBranding(snapshot({ samples: [sample({}), button("#E11D48"), sample({ kind: "heading", tag: "h1", level: 1, color: "#0A2540" })] }));
    expect([voted.colors.primary, voted.colors.secondary]).toEqual(["#E11D48", undefined]);
    // A declared --secondary as dark as a fill counts; Bootstrap's grey one does not.
    const declared = (color: string) => deriveBranding(snapshot({ cssVars: { "--secondary": { value: color, color } } })).colors.secondary;
    expect([declared("#0A2540"), declared("#6C757D")]).toEqual(["#0A2540", undefined]);
  });

  test("follow-up 4. the brand name: the host's registrable name, then not a page word (in other languages too), then what reads like a name, the first of equals", () => {
    const LOCAL = "http://127.0.0.1/";
    const cases: [string, string, string][] = [
      ["Home | Bankly", LOCAL, "Bankly"],
      ["Kite — Payments", LOCAL, "Kite"],
      ["Oxbank — Banking", LOCAL, "Oxbank"],
      ["Loom | Video Messaging", LOCAL, "Loom"],
      ["Acme | Payroll Software", LOCAL, "Acme"],
      ["Acme — Enterprise", LOCAL, "Acme"],
      ["Figma: The Collaborative Interface Design Tool", LOCAL, "Figma"],
      ["Westpac | Commercial Banking", "https://www.westpac.com.au/business-banking/", "Westpac"],
      ["Acme | Computers", "https://acme.com.br/", "Acme"],
      ["Computers | Acme", "https://acme.com.br/", "Acme"],
      ["Acme | Computers", "https://x.org.uk/", "Acme"],
      ["Startseite | Muster GmbH", LOCAL, "Muster GmbH"],
      ["Muster GmbH | Startseite", LOCAL, "Muster GmbH"],
      ["Главная — Сбербанк", LOCAL, "Сбербанк"],
      ["Главная — Сбербанк", "https://xn--80abap1arsf.xn--p1ai/", "Сбербанк"],
      ["Inicio | Banco Santander", LOCAL, "Banco Santander"],
      ["BBC News - Home", LOCAL, "BBC News"],
      ["Pricing | Acme Cloud", LOCAL, "Acme Cloud"],
      ["Typeset — Fonts", "http://127.0.0.1/fonts", "Typeset"],
      ["Société Générale - Accueil", LOCAL, "Société Générale"],
      ["MONO — Minimal clothing", "http://127.0.0.1/mono", "MONO"],
      ["Payments | Kite", LOCAL, "Kite"],
      ["ホーム｜ブランド", LOCAL, "ブランド"],
      ["How we moved 40 services to Bun: a retrospective | Acme", LOCAL, "Acme"],
    ];
    for (const [title, url, name] of cases) expect([title, url, nameFromTitle(title, url)]).toEqual([title, url, name]);
  });
});
