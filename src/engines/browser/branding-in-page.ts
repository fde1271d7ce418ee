/**
 * @module engines/browser/branding-in-page
 * The in-page half of the branding collection: {@link snapshotInPage} is serialised by puppeteer and evaluated
 * inside the rendered page by `collectBranding` (branding.ts). It is most of the collection's code and none of it
 * runs in Bun, hence its own file; it may import types only. It is one function (about 500 lines, past the usual
 * 300) because puppeteer sends one function's source: a helper outside its body would not exist in the page.
 *
 * Besides the computed styles it says where each sample sits (src/branding/observations.ts: a consent banner, a
 * dialog, a fixed bar, the header or footer, running text), takes a link styled as a button for a button whatever
 * its class (Tailwind's `<a class="rounded-md bg-indigo-600 px-3.5 py-2.5 text-white">`), reads the background of a
 * wrapper that paints the page when `body` and `html` do not, and serialises an inline SVG logo so that it loads
 * as an image on its own (namespaces, the symbols its `<use>` draws, the fills and strokes set by CSS), through an
 * allow-list of SVG elements and attributes (no script, link, animation, event attribute or outside URL).
 */
import type { LogoCandidate, SampleKind } from "./branding.ts";
import type { OverlayKind, PlacedSample, PlacedSnapshot } from "../../branding/observations.ts";

/**
 * Runs inside the page (serialised by puppeteer): everything it uses is defined in its body.
 */
export function snapshotInPage(limits: Record<SampleKind, number>, maxSvgChars: number, maxStyledElements: number): PlacedSnapshot {
  /** Elements one sample kind looks at before it stops (a page of 20,000 links is not read whole for 40 buttons). */
  const MAX_CANDIDATES_PER_KIND = 3000;
  /** Elements of one inline SVG (and the symbols it uses) whose computed paint is written into the copy. */
  const MAX_SVG_ELEMENTS = 1500;
  /** Longest text of a link or button read as a button by its looks ("Get started", not a paragraph). */
  const MAX_BUTTON_TEXT_CHARS = 40;
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
  const cssVars: PlacedSnapshot["cssVars"] = {};
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

  // Where an element sits. Each element's own layer is computed once (samples share ancestors).
  // Consent tools' names, as a whole word of an element's class or id split at `-`, `_`, spaces and camelCase
  // (`cky-consent-container`, `onetrust-banner-sdk`, `CybotCookiebotDialog`, `qc-cmp2-ui`): a substring took
  // `cookie-grid` (a bakery's product grid) for a banner and dropped its call to action from the colours.
  const CONSENT_TOKEN = /^(?:cookies?|consent|gdpr|ccpa|cmp\d*|onetrust|cookiebot|cookiebanner|cookieconsent|cookienotice|cookielaw|cookieyes|cky|didomi|usercentrics|trustarc|truste|osano|iubenda|termly|klaro|quantcast)$/;
  const COOKIE_TEXT = /\bcookies?\b|\bconsent\b|\bgdpr\b/i;
  // Text that asks about cookies rather than mentions them ("Order cookies" is not a banner).
  const CONSENT_TEXT =
    /\b(?:we|this (?:site|website)|our (?:site|website)|site) uses? cookies\b|\b(?:accept|allow|reject|decline|refuse|manage|customi[sz]e)(?: all)? cookies\b|\bcookies? (?:policy|settings|preferences|notice|consent|banner)\b|\bconsent\b|\bgdpr\b|\bprivacy (?:settings|preferences|choices)\b/i;
  const tokensOf = (e: Element): string[] =>
    `${typeof e.className === "string" ? e.className : (e.getAttribute("class") ?? "")} ${e.id}`
      .replace(/([\p{Ll}\d])(\p{Lu})/gu, "$1 $2")
      .toLowerCase()
      .split(/[\s_-]+/)
      .filter(Boolean);
  const layers = new Map<Element, OverlayKind | "">();
  const layerOf = (e: Element): OverlayKind | "" => {
    let kind = layers.get(e);
    if (kind !== undefined) return kind;
    kind = "";
    const role = e.getAttribute("role");
    const cs = getComputedStyle(e);
    // A fixed box is an overlay unless it is the page's top bar; a sticky one only when stuck to the bottom.
    const topBar = () => {
      const r = e.getBoundingClientRect();
      return e.matches('header, nav, [role="banner"]') || e.querySelector("nav") !== null || (r.top <= 1 && r.height <= innerHeight / 4);
    };
    const dialog = role === "dialog" || role === "alertdialog" || e.getAttribute("aria-modal") === "true" || (e.tagName === "DIALOG" && e.hasAttribute("open"));
    const text = () => (e.textContent ?? "").slice(0, 3000);
    if (dialog) kind = "dialog";
    else if ((cs.position === "fixed" && !topBar()) || (cs.position === "sticky" && cs.top === "auto" && cs.bottom !== "auto")) kind = "fixed";
    // Named for consent, and drawn over the page (fixed, sticky, a dialog) or asking about cookies; never one that
    // holds the page itself (`<div id="app" class="has-cookie-banner">`).
    const named = tokensOf(e).some((t) => CONSENT_TOKEN.test(t));
    if (named && !e.querySelector("main, h1") && (dialog || cs.position === "fixed" || cs.position === "sticky" || CONSENT_TEXT.test(text()))) kind = "consent";
    // A dialog or bar about cookies is a consent banner whatever its classes (a CMP's are often obfuscated).
    else if (kind && COOKIE_TEXT.test(text())) kind = "consent";
    layers.set(e, kind);
    return kind;
  };
  /** The overlay an element is drawn in: consent before dialog before fixed; undefined in the page. */
  const overlayOf = (el: Element): OverlayKind | undefined => {
    let dialog = false;
    let fixed = false;
    for (let e: Element | null = el; e && e !== doc.body && e !== root; e = e.parentElement) {
      const kind = layerOf(e);
      if (kind === "consent") return "consent";
      if (kind === "dialog") dialog = true;
      if (kind === "fixed") fixed = true;
    }
    return dialog ? "dialog" : fixed ? "fixed" : undefined;
  };
  const CHROME = 'header, nav, footer, aside, [role="banner"], [role="navigation"], [role="contentinfo"], [role="complementary"]';
  /** The text an element shows (the first 2000 characters): not an inline SVG's `<title>`/`<text>` (a logo's name), not a script's. */
  const textOf = (el: Element): string => {
    let out = "";
    const walker = doc.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n && out.length < 2000; n = walker.nextNode()) {
      if (!n.parentElement?.closest("svg, script, style, template, noscript")) out += n.textContent ?? "";
    }
    return out.replace(/\s+/g, " ").trim();
  };
  /** A link inside running text: the block around it holds at least 8 more characters than the link. */
  const inRunningText = (el: Element): boolean => {
    let block = el.parentElement;
    for (let i = 0; block && i < 5 && /^(inline|contents)$/.test(getComputedStyle(block).display); i++) block = block.parentElement;
    return block !== null && block !== doc.body && textOf(block).length >= textOf(el).length + 8;
  };
  /** The colour behind an element: its nearest ancestor's opaque background, or the page's. */
  const behind = (el: Element): string => {
    for (let e = el.parentElement; e; e = e.parentElement) {
      const c = hex(getComputedStyle(e).backgroundColor);
      if (c) return c;
    }
    return "#FFFFFF";
  };
  /** A link or button that looks like a button: its own background, padding around a short label. */
  const looksLikeButton = (el: Element, cs: CSSStyleDeclaration, rect: DOMRect): boolean => {
    const fill = hex(cs.backgroundColor);
    if (!fill || rect.width > 600 || rect.height > 120) return false;
    const [top, right, bottom, left] = [cs.paddingTop, cs.paddingRight, cs.paddingBottom, cs.paddingLeft].map(px) as [number, number, number, number];
    if (left < 6 || right < 6 || (top + bottom < 4 && rect.height < 1.8 * px(cs.fontSize))) return false;
    const label = textOf(el);
    if (label.length === 0 || label.length > MAX_BUTTON_TEXT_CHARS || label.split(" ").length > 6) return false;
    return fill.slice(0, 7) !== behind(el).slice(0, 7);
  };

  // Style samples of visible elements, per kind.
  const samples: PlacedSample[] = [];
  const seen = new Set<Element>();
  const take = (kind: SampleKind, selector: string, accept: (el: Element, cs: CSSStyleDeclaration, rect: DOMRect) => boolean = () => true) => {
    let n = 0;
    let looked = 0;
    for (const el of Array.from(doc.querySelectorAll(selector))) {
      if (n >= limits[kind] || looked++ >= MAX_CANDIDATES_PER_KIND) break;
      if (seen.has(el)) continue;
      const rect = el.getBoundingClientRect();
      if (rect.width < 1 || rect.height < 1) continue;
      const cs = getComputedStyle(el);
      if (cs.visibility === "hidden" || cs.display === "none" || Number(cs.opacity) === 0 || !accept(el, cs, rect)) continue;
      seen.add(el);
      n++;
      const borderVisible = px(cs.borderTopWidth) > 0 && cs.borderTopStyle !== "none" && cs.borderTopStyle !== "hidden";
      const heading = /^H([1-6])$/.exec(el.tagName);
      const overlay = overlayOf(el);
      const clickable = kind === "link" || kind === "button";
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
        // A link's or button's text is its whole label (`<a><span>Docs</span></a>`); other kinds count their own text.
        textLength: clickable
          ? Math.min(500, textOf(el).length)
          : Array.from(el.childNodes).reduce((s, c) => s + (c.nodeType === 3 ? (c.textContent ?? "").trim().length : 0), 0),
        ...(overlay ? { overlay } : {}),
        ...(el.closest(CHROME) ? { chrome: true } : {}),
        ...(kind === "link" && inRunningText(el) ? { inline: true } : {}),
      });
    }
  };
  take("body", "body");
  const BUTTON_HINT = /(^|[\s_-])(btn|button|cta)([\s_-]|$)/;
  // A link is a button by its class or role, or by its looks (a background of its own, padding, a short label).
  take("button", 'button, input[type="submit"], input[type="button"], [role="button"], a[href], a[class*="btn"], a[class*="button"], a[class*="cta"]', (el, cs, rect) =>
    el.tagName !== "A" || BUTTON_HINT.test(hintsOf(el)) || el.getAttribute("role") === "button" || looksLikeButton(el, cs, rect),
  );
  take("heading", "h1, h2, h3, h4, h5, h6");
  take("link", "a[href]", (_el, cs) => !hex(cs.backgroundColor));
  take("status", '[class*="success"], [class*="warning"], [class*="error"], [class*="danger"], [class*="alert"]');
  take("text", "p, li, td, dd, blockquote", (el) => (el.textContent ?? "").trim().length > 0);
  take("small", "small, figcaption, caption, .small, .text-sm, .text-muted, .caption");
  take("input", 'input:not([type]), input[type="text"], input[type="email"], input[type="search"], input[type="url"], input[type="tel"], input[type="password"], input[type="number"], textarea, select');
  take("code", "code, pre, kbd, samp");
  take("section", 'header, nav, main, section, footer, aside, [role="banner"], [class*="hero"]');

  // An inline SVG as a standalone SVG document: what the page gives it (CSS fills, the inherited colour, the size,
  // the symbols and gradients it references from elsewhere in the page) written into a copy, serialised as XML (so
  // with its namespaces). Undefined when longer than maxSvgChars.
  const SVG_NS = "http://www.w3.org/2000/svg";
  const XLINK_NS = "http://www.w3.org/1999/xlink";
  const INHERITED: Record<string, string> = {
    fill: "rgb(0, 0, 0)", stroke: "none", "stroke-width": "1px", "fill-opacity": "1", "stroke-opacity": "1", "fill-rule": "nonzero",
    "stroke-linecap": "butt", "stroke-linejoin": "miter", visibility: "visible", "font-family": "", "font-size": "", "font-weight": "", color: "",
  };
  const NOT_RENDERED = /^(symbol|defs|clippath|mask|lineargradient|radialgradient|pattern|marker|filter|style|title|desc|metadata)$/i;

  // An image does not run scripts or load anything, but a logo's `data:` URL may be opened as a document, where an
  // SVG runs scripts, follows links and animations (`<a href="javascript:…">`, `<animate attributeName="href"
  // to="javascript:…">`, `<set attributeName="onmouseover">`) and loads what it references (`@import`, an external
  // `<image>` or `<use>`: a request from whoever opens it). So the logo is what an allow-list keeps of it, the same
  // for the copy with its paint written out and for the markup as it is: shapes, text, gradients, clips, masks and
  // patterns; `<use>` of this document's `#ids`; `<image>` of `data:image/…`; `<a>` unwrapped (its children kept);
  // everything else (script, foreignObject, animate, set, animateTransform, filters, HTML…) removed with its content.
  // Attributes: geometry and presentation only, no `on…`, no `href` but a local `#id` (or `data:image/…` on an
  // image), no value with a `url()` that is not a local `#id`. A `<style>` keeps only its style rules, re-serialised
  // by the browser's CSS parser (no `@import`, `@font-face`, escapes), without a declaration that loads anything.
  const SVG_ELEMENTS = new Set([
    "svg", "g", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text", "tspan", "defs", "symbol", "use",
    "lineargradient", "radialgradient", "stop", "clippath", "mask", "pattern", "title", "desc", "image", "style",
  ]);
  const SVG_ATTRIBUTES = new Set([
    "id", "class", "style", "transform", "viewbox", "preserveaspectratio", "width", "height", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy",
    "r", "rx", "ry", "fx", "fy", "fr", "d", "points", "pathlength", "dx", "dy", "rotate", "textlength", "lengthadjust", "offset",
    "fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-opacity", "stroke-linecap", "stroke-linejoin", "stroke-miterlimit",
    "stroke-dasharray", "stroke-dashoffset", "opacity", "color", "display", "visibility", "overflow", "clip-path", "clip-rule", "mask",
    "stop-color", "stop-opacity", "font-family", "font-size", "font-weight", "font-style", "font-variant", "text-anchor", "dominant-baseline",
    "alignment-baseline", "baseline-shift", "letter-spacing", "word-spacing", "text-decoration", "writing-mode", "shape-rendering",
    "text-rendering", "vector-effect", "paint-order", "gradientunits", "gradienttransform", "spreadmethod", "patternunits",
    "patterncontentunits", "patterntransform", "clippathunits", "maskunits", "maskcontentunits", "version", "role", "aria-label",
    "aria-hidden", "focusable", "xml:space", "xmlns", "xmlns:xlink", "href", "xlink:href",
  ]);
  /** A CSS value or attribute that loads nothing: no `url()` but a local `#id`, no other image function, no escape. */
  const loadsNothing = (value: string): boolean =>
    !/\\/.test(value) && !/\b(?:url|image|image-set|cross-fade|element|src)\s*\(/i.test(value.replace(/url\(\s*(["']?)#[^"'()\s]*\1\s*\)/gi, ""));
  const cleanDeclarations = (style: CSSStyleDeclaration) => {
    for (const prop of Array.from(style)) if (!loadsNothing(style.getPropertyValue(prop))) style.removeProperty(prop);
  };
  const sanitiseSvg = <T extends Element>(rootEl: T): T => {
    const visit = (el: Element) => {
      for (const child of Array.from(el.children)) {
        const name = child.localName.toLowerCase();
        if (child.namespaceURI === SVG_NS && name === "a") {
          // A link is unwrapped: what it draws stays, where it goes does not.
          visit(child);
          child.replaceWith(...Array.from(child.childNodes));
          continue;
        }
        if (child.namespaceURI !== SVG_NS || !SVG_ELEMENTS.has(name)) {
          child.remove();
          continue;
        }
        visit(child);
      }
      clean(el);
    };
    const clean = (el: Element) => {
      const name = el.localName.toLowerCase();
      if (name === "style") {
        let css = "";
        try {
          const sheet = new CSSStyleSheet();
          sheet.replaceSync(el.textContent ?? ""); // `@import` is not allowed here: dropped
          for (const rule of Array.from(sheet.cssRules)) {
            if (!(rule instanceof CSSStyleRule)) continue;
            cleanDeclarations(rule.style);
            // Nested rules are not walked: a rule still holding a load after its own declarations are cleaned goes.
            if (loadsNothing(rule.cssText)) css += `${rule.cssText}\n`;
          }
        } catch {
          css = "";
        }
        el.textContent = css;
      }
      for (const attr of Array.from(el.attributes)) {
        const attrName = attr.name.toLowerCase();
        if (attrName === "style" && el instanceof SVGElement) {
          // Re-serialised by the CSS parser (escapes resolved), without the declarations that load something.
          cleanDeclarations(el.style);
          if (!loadsNothing(el.getAttribute("style") ?? "")) el.removeAttribute("style");
          continue;
        }
        const value = attr.value.trim();
        let keep = SVG_ATTRIBUTES.has(attrName) && attrName !== "style" && loadsNothing(value);
        if (keep && (attrName === "href" || attrName === "xlink:href")) keep = value.startsWith("#") || (name === "image" && /^data:image\//i.test(value));
        if (!keep) el.removeAttributeNode(attr);
      }
      // A reference that went (an external `<use>` or `<image>`) leaves nothing to draw.
      if ((name === "use" || name === "image") && !el.hasAttribute("href") && !el.hasAttribute("xlink:href")) el.remove();
    };
    visit(rootEl);
    return rootEl;
  };
  const svgMarkup = (svg: SVGSVGElement, rect: DOMRect): string | undefined => {
    if (svg.outerHTML.length > maxSvgChars) return undefined;
    const copy = svg.cloneNode(true) as SVGSVGElement;
    let budget = MAX_SVG_ELEMENTS;
    // Writes into `to` the computed paint of `from` that differs from what it inherits (`parent`: its parent's
    // computed values, or the initial ones for the standalone root).
    const paint = (from: Element, to: Element, parent: Record<string, string> | null, inMain: boolean) => {
      if (budget-- <= 0 || !(to instanceof SVGElement)) return;
      const cs = getComputedStyle(from);
      const own: Record<string, string> = {};
      for (const prop of Object.keys(INHERITED)) {
        let v = cs.getPropertyValue(prop);
        own[prop] = v;
        // The root's font and colour are always written ("" never equals a computed value).
        if (v === (parent ? parent[prop] : INHERITED[prop])) continue;
        if (/^currentcolor$/i.test(from.getAttribute(prop) ?? "")) continue; // resolves against the colour written here
        if (v.startsWith("url(")) {
          const ref = /#([^"')\s]+)/.exec(v);
          if (!ref) continue;
          v = `url(#${ref[1]})`;
        }
        if (v) to.style.setProperty(prop, v);
      }
      if (cs.opacity !== "1") to.style.setProperty("opacity", cs.opacity);
      if (inMain && cs.display === "none" && !NOT_RENDERED.test(from.tagName)) to.style.setProperty("display", "none");
      const a = Array.from(from.children);
      const b = Array.from(to.children);
      for (let i = 0; i < a.length && i < b.length; i++) paint(a[i]!, b[i]!, own, inMain);
    };
    paint(svg, copy, null, true);
    copy.setAttribute("width", String(Math.round(rect.width)));
    copy.setAttribute("height", String(Math.round(rect.height)));
    copy.style.setProperty("width", `${Math.round(rect.width)}px`);
    copy.style.setProperty("height", `${Math.round(rect.height)}px`);
    // What the SVG references outside itself (a sprite's <symbol>, a gradient in a shared <defs>), copied into its own <defs>.
    let defs: SVGDefsElement | undefined;
    const copied = new Set<string>();
    const queue: Element[] = [copy];
    for (let q = 0; q < queue.length && copied.size < 30; q++) {
      for (const el of [queue[q]!, ...Array.from(queue[q]!.querySelectorAll("*"))]) {
        const refs = [el.getAttribute("href"), el.getAttributeNS(XLINK_NS, "href")].filter((h): h is string => !!h && h.startsWith("#")).map((h) => h.slice(1));
        for (const attr of Array.from(el.attributes)) for (const m of attr.value.matchAll(/url\(\s*["']?#([^"')\s]+)/g)) refs.push(m[1]!);
        for (const id of refs) {
          if (copied.has(id) || copy.querySelector(`#${CSS.escape(id)}`)) continue;
          const target = doc.getElementById(id);
          if (!(target instanceof SVGElement) || svg.contains(target)) continue;
          copied.add(id);
          const clone = target.cloneNode(true) as Element;
          paint(target, clone, target.parentElement ? Object.fromEntries(Object.keys(INHERITED).map((p) => [p, getComputedStyle(target.parentElement!).getPropertyValue(p)])) : null, false);
          defs ??= copy.insertBefore(doc.createElementNS(SVG_NS, "defs") as SVGDefsElement, copy.firstChild);
          defs.appendChild(clone);
          queue.push(clone);
        }
      }
    }
    const markup = new XMLSerializer().serializeToString(sanitiseSvg(copy));
    if (markup.length <= maxSvgChars) return markup;
    // Too long with its paint written out: the markup as it is (with its namespaces), through the same allow-list.
    const plain = new XMLSerializer().serializeToString(sanitiseSvg(svg.cloneNode(true) as SVGSVGElement));
    return plain.length <= maxSvgChars ? plain : undefined;
  };

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
    else src = svgMarkup(el as SVGSVGElement, rect);
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

  // When neither body nor html paints a background: the largest element under the viewport's centre that spans its
  // width and most of the document (a `#__next`/`#app` wrapper), opaque and not in an overlay.
  const bodyBackground = doc.body ? hex(getComputedStyle(doc.body).backgroundColor) : "";
  const rootBackground = hex(rootStyle.backgroundColor);
  let wrapperBackground: string | undefined;
  if (!bodyBackground && !rootBackground) {
    const docHeight = Math.max(root.scrollHeight, doc.body?.scrollHeight ?? 0, innerHeight);
    let largest = 0;
    for (const el of doc.elementsFromPoint(innerWidth / 2, innerHeight / 2)) {
      if (el === doc.body || el === root) continue;
      const c = hex(getComputedStyle(el).backgroundColor);
      if (c.length !== 7 || overlayOf(el)) continue;
      const r = el.getBoundingClientRect();
      if (r.width < 0.9 * innerWidth || r.height < Math.min(docHeight, Math.max(innerHeight, 0.6 * docHeight)) || r.width * r.height <= largest) continue;
      [wrapperBackground, largest] = [c, r.width * r.height];
    }
  }

  const meta = (sel: string) => doc.querySelector(sel)?.getAttribute("content")?.trim() || undefined;
  const icon = doc.querySelector('link[rel~="icon"]') ?? doc.querySelector('link[rel~="apple-touch-icon"]');
  const snapshot: PlacedSnapshot = {
    url: location.href,
    title: doc.title.trim(),
    bodyBackground,
    rootBackground,
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
  if (wrapperBackground) snapshot.wrapperBackground = wrapperBackground;
  if (declaredKnown) snapshot.declaredProperties = Array.from(declared).sort();
  if (favicon) snapshot.favicon = favicon;
  if (ogImage) snapshot.ogImage = ogImage;
  if (siteName) snapshot.siteName = siteName;
  if (applicationName) snapshot.applicationName = applicationName;
  if (themeColor && CSS.supports("color", themeColor)) snapshot.themeColor = hex(themeColor) || undefined;
  return snapshot;
}
