/**
 * @module engines/browser/branding-in-page
 * The in-page half of the branding collection: {@link snapshotInPage} is serialised by puppeteer and evaluated
 * inside the rendered page by `collectBranding` (branding.ts). It is most of the collection's code and none of it
 * runs in Bun, hence its own file; it may import types only.
 */
import type { BrandingSnapshot, LogoCandidate, SampleKind, StyleSample } from "./branding.ts";

/**
 * Runs inside the page (serialised by puppeteer): everything it uses is defined in its body.
 */
export function snapshotInPage(limits: Record<SampleKind, number>, maxSvgChars: number, maxStyledElements: number): BrandingSnapshot {
  const doc = document;
  const root = doc.documentElement;
  const canvas = doc.createElement("canvas").getContext("2d", { willReadFrequently: true });
  const probe = doc.createElement("span");
  probe.style.display = "none";
  (doc.body ?? root).appendChild(probe);

  const byte = (n: number) => Math.max(0, Math.min(255, Math.round(n))).toString(16).padStart(2, "0").toUpperCase();
  /** Any CSS colour → `#RRGGBB` / `#RRGGBBAA`, `""` when fully transparent or not a colour. */
  const hex = (value: string): string => {
    const v = value.trim();
    const m = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/i.exec(v);
    let r: number, g: number, b: number, a: number;
    if (m) {
      [r, g, b] = [Number(m[1]), Number(m[2]), Number(m[3])];
      a = m[4] === undefined ? 1 : m[4].endsWith("%") ? Number(m[4].slice(0, -1)) / 100 : Number(m[4]);
    } else if (canvas && v) {
      // Other colour syntaxes (oklch, color(), named…): let the canvas convert to sRGB.
      canvas.clearRect(0, 0, 1, 1);
      canvas.fillStyle = "#000";
      canvas.fillStyle = v;
      canvas.fillRect(0, 0, 1, 1);
      const d = canvas.getImageData(0, 0, 1, 1).data;
      [r, g, b, a] = [d[0]!, d[1]!, d[2]!, d[3]! / 255];
    } else return "";
    if (!(a > 0)) return "";
    return `#${byte(r)}${byte(g)}${byte(b)}${a < 1 ? byte(a * 255) : ""}`;
  };
  const px = (v: string): number => {
    const n = parseFloat(v);
    return Number.isFinite(n) ? Math.round(n * 100) / 100 : 0;
  };
  const abs = (u: string | null | undefined): string | undefined => {
    if (!u || !u.trim()) return undefined;
    try {
      return new URL(u.trim(), doc.baseURI).href;
    } catch {
      return undefined;
    }
  };
  const hintsOf = (el: Element | null | undefined): string =>
    el ? `${typeof el.className === "string" ? el.className : (el.getAttribute("class") ?? "")} ${el.id}`.toLowerCase().trim() : "";

  // Custom properties: names from same-origin style sheets and the root's inline style; values as computed on the root.
  // Also every other property some style of the page sets (sheets, `style` attributes, presentational attributes):
  // what it sets nowhere is the browser's default, not the brand's. Unknown (undefined) past a cross-origin sheet
  // or too many `style` attributes, since what it sets may then be anywhere.
  const names = new Set<string>();
  const declared = new Set<string>();
  let declaredKnown = true;
  const NestedDeclarations = (globalThis as { CSSNestedDeclarations?: new () => CSSRule }).CSSNestedDeclarations;
  const walk = (rules: CSSRuleList) => {
    for (const rule of Array.from(rules)) {
      if (rule instanceof CSSStyleRule || (NestedDeclarations && rule instanceof NestedDeclarations)) {
        const style = (rule as CSSStyleRule).style;
        for (let i = 0; i < style.length; i++) (style[i]!.startsWith("--") ? names : declared).add(style[i]!);
      }
      if (rule instanceof CSSImportRule) {
        try {
          if (rule.styleSheet) walk(rule.styleSheet.cssRules);
        } catch {
          declaredKnown = false; // a cross-origin import
        }
      }
      const nested = (rule as CSSGroupingRule).cssRules;
      if (nested) walk(nested);
    }
  };
  for (const sheet of [...Array.from(doc.styleSheets), ...Array.from(doc.adoptedStyleSheets ?? [])]) {
    try {
      walk(sheet.cssRules);
    } catch {
      // Cross-origin sheet: its rules are not readable.
      declaredKnown = false;
    }
  }
  for (const el of [root, doc.body]) if (el) for (let i = 0; i < el.style.length; i++) if (el.style[i]!.startsWith("--")) names.add(el.style[i]!);
  const styled = doc.querySelectorAll("[style]");
  if (styled.length > maxStyledElements) declaredKnown = false;
  else {
    for (const el of Array.from(styled)) {
      if (el === probe) continue;
      const style = (el as Partial<ElementCSSInlineStyle>).style;
      if (style) for (let i = 0; i < style.length; i++) declared.add(style[i]!);
    }
  }
  const PRESENTATIONAL: [string, string][] = [
    ["body[text], body[link], body[vlink], body[alink], font[color]", "color"],
    ["font[face]", "font-family"],
    ["font[size], basefont[size]", "font-size"],
    ["[bgcolor]", "background-color"],
    ["[cellpadding]", "padding-top"],
    ["body[marginwidth], body[marginheight], body[leftmargin], body[topmargin]", "margin-top"],
  ];
  for (const [selector, property] of PRESENTATIONAL) if (doc.querySelector(selector)) declared.add(property);
  const rootStyle = getComputedStyle(root);
  const cssVars: BrandingSnapshot["cssVars"] = {};
  for (const name of Array.from(names).slice(0, 500)) {
    const value = rootStyle.getPropertyValue(name).trim();
    if (!value) continue;
    const entry: { value: string; color?: string } = { value: value.slice(0, 200) };
    // `--primary: 222 47% 11%` (bare HSL channels, a common convention) is a colour too.
    const asColor = CSS.supports("color", value) ? value : /^[\d.]+(deg)?\s+[\d.]+%\s+[\d.]+%$/.test(value) ? `hsl(${value})` : "";
    if (asColor && !/^(inherit|initial|unset|revert|currentcolor|transparent)$/i.test(asColor)) {
      probe.style.color = asColor;
      const c = hex(getComputedStyle(probe).color);
      if (c) entry.color = c;
    }
    cssVars[name] = entry;
  }
  probe.remove();

  // Style samples of visible elements, per kind.
  const samples: StyleSample[] = [];
  const seen = new Set<Element>();
  const take = (kind: SampleKind, selector: string, accept: (el: Element, cs: CSSStyleDeclaration) => boolean = () => true) => {
    let n = 0;
    for (const el of Array.from(doc.querySelectorAll(selector))) {
      if (n >= limits[kind]) break;
      if (seen.has(el)) continue;
      const rect = el.getBoundingClientRect();
      if (rect.width < 1 || rect.height < 1) continue;
      const cs = getComputedStyle(el);
      if (cs.visibility === "hidden" || cs.display === "none" || Number(cs.opacity) === 0 || !accept(el, cs)) continue;
      seen.add(el);
      n++;
      const borderVisible = px(cs.borderTopWidth) > 0 && cs.borderTopStyle !== "none" && cs.borderTopStyle !== "hidden";
      const heading = /^H([1-6])$/.exec(el.tagName);
      samples.push({
        kind,
        tag: el.tagName.toLowerCase(),
        ...(heading ? { level: Number(heading[1]) } : {}),
        hints: hintsOf(el),
        color: hex(cs.color),
        background: hex(cs.backgroundColor),
        borderColor: borderVisible ? hex(cs.borderTopColor) : "",
        borderRadius: cs.borderTopLeftRadius,
        boxShadow: cs.boxShadow,
        fontFamily: cs.fontFamily,
        fontSize: px(cs.fontSize),
        fontWeight: Number(cs.fontWeight) || 400,
        lineHeight: cs.lineHeight === "normal" ? null : px(cs.lineHeight),
        padding: [px(cs.paddingTop), px(cs.paddingRight), px(cs.paddingBottom), px(cs.paddingLeft)],
        margin: [px(cs.marginTop), px(cs.marginBottom)],
        area: Math.round(rect.width * rect.height),
        textLength: Array.from(el.childNodes).reduce((s, c) => s + (c.nodeType === 3 ? (c.textContent ?? "").trim().length : 0), 0),
      });
    }
  };
  take("body", "body");
  const BUTTON_HINT = /(^|[\s_-])(btn|button|cta)([\s_-]|$)/;
  take("button", 'button, input[type="submit"], input[type="button"], [role="button"], a[class*="btn"], a[class*="button"], a[class*="cta"]', (el) =>
    el.tagName !== "A" || BUTTON_HINT.test(hintsOf(el)) || el.getAttribute("role") === "button",
  );
  take("heading", "h1, h2, h3, h4, h5, h6");
  take("link", "a[href]", (_el, cs) => !hex(cs.backgroundColor));
  take("status", '[class*="success"], [class*="warning"], [class*="error"], [class*="danger"], [class*="alert"]');
  take("text", "p, li, td, dd, blockquote", (el) => (el.textContent ?? "").trim().length > 0);
  take("small", "small, figcaption, caption, .small, .text-sm, .text-muted, .caption");
  take("input", 'input:not([type]), input[type="text"], input[type="email"], input[type="search"], input[type="url"], input[type="tel"], input[type="password"], input[type="number"], textarea, select');
  take("code", "code, pre, kbd, samp");
  take("section", 'header, nav, main, section, footer, aside, [role="banner"], [class*="hero"]');

  // Logo candidates: images and top-level inline SVGs, with what hints at a logo around them.
  const logos: LogoCandidate[] = [];
  for (const el of Array.from(doc.querySelectorAll("img, svg")).slice(0, 300)) {
    if (el.tagName.toLowerCase() === "svg" && el.parentElement?.closest("svg")) continue;
    const rect = el.getBoundingClientRect();
    if (rect.width < 8 || rect.height < 8) continue;
    const link = el.closest("a");
    const isImg = el instanceof HTMLImageElement;
    let src: string | undefined;
    if (isImg) src = abs(el.currentSrc || el.getAttribute("src"));
    else {
      const markup = el.outerHTML;
      if (markup.length <= maxSvgChars) src = markup;
    }
    if (!src) continue;
    const label = isImg ? el.alt : (el.getAttribute("aria-label") ?? el.querySelector("title")?.textContent ?? "");
    logos.push({
      kind: isImg ? "img" : "svg",
      src,
      alt: (label || link?.getAttribute("aria-label") || "").trim().slice(0, 200),
      hints: `${hintsOf(el)} ${hintsOf(el.parentElement)} ${hintsOf(link)} ${isImg ? (el.getAttribute("src") ?? "").toLowerCase() : ""}`.slice(0, 500),
      ...(link ? { href: abs(link.getAttribute("href")) } : {}),
      inHeader: el.closest('header, nav, [role="banner"]') !== null,
      top: Math.round(rect.top + window.scrollY),
      width: Math.round(rect.width),
      height: Math.round(rect.height),
    });
    if (logos.length >= 40) break;
  }

  const meta = (sel: string) => doc.querySelector(sel)?.getAttribute("content")?.trim() || undefined;
  const icon = doc.querySelector('link[rel~="icon"]') ?? doc.querySelector('link[rel~="apple-touch-icon"]');
  const snapshot: BrandingSnapshot = {
    url: location.href,
    title: doc.title.trim(),
    bodyBackground: doc.body ? hex(getComputedStyle(doc.body).backgroundColor) : "",
    rootBackground: hex(rootStyle.backgroundColor),
    bodyColor: hex(getComputedStyle(doc.body ?? root).color),
    colorSchemeProperty: rootStyle.colorScheme || "normal",
    cssVars,
    samples,
    logos,
  };
  const favicon = abs(icon?.getAttribute("href"));
  const ogImage = abs(meta('meta[property="og:image"], meta[name="og:image"]'));
  const siteName = meta('meta[property="og:site_name"], meta[name="og:site_name"]');
  const applicationName = meta('meta[name="application-name"]');
  const themeColor = meta('meta[name="theme-color"]');
  if (declaredKnown) snapshot.declaredProperties = Array.from(declared).sort();
  if (favicon) snapshot.favicon = favicon;
  if (ogImage) snapshot.ogImage = ogImage;
  if (siteName) snapshot.siteName = siteName;
  if (applicationName) snapshot.applicationName = applicationName;
  if (themeColor && CSS.supports("color", themeColor)) snapshot.themeColor = hex(themeColor) || undefined;
  return snapshot;
}
