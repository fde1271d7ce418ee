/**
 * @module pipeline/clean
 * The `html` format: a parsed page minus scripts and other non-content, optionally narrowed to the main content,
 * with every link and image URL made absolute.
 *
 * Order of operations (Firecrawl /v2 semantics):
 * 1. `includeTags` and `excludeTags` are matched against the original DOM;
 * 2. with `includeTags`, only the matched elements are kept (blank and unusable selectors ignored; `body` or `html`
 *    keeps the whole body), and with `onlyMainContent` upstream's furniture list is removed inside them
 *    (non-main-selectors.ts) instead of running the scorer: the caller already said what the content is; without
 *    `includeTags`, with `onlyMainContent`, the scorer in `main-content/` picks it;
 * 3. the result is serialised by a dedicated writer that skips dropped nodes and rewrites URLs on the way, so the
 *    input `Document` is never modified and never cloned. It writes what a browser shows where linkedom's tree
 *    differs from a browser's: a declarative shadow root's `<template>` is unwrapped, a nested `<html>`/`<body>` is
 *    unwrapped and a nested `<head>` dropped, and `<textarea>`/`<xmp>` text is escaped once.
 */
import { NON_CONTENT_TAGS } from "./main-content/features.ts";
import { furnitureInside } from "./non-main-selectors.ts";
import { selectMainContent } from "./main-content/index.ts";
import { imageSource, LAZY_SRCSET_ATTRIBUTES, lazySrcset } from "./lazy-images.ts";
import { parseSrcset } from "./srcset.ts";
import { unwrappedElements } from "./unwrapped.ts";
import { documentBaseUrl } from "./url.ts";

/** Options of {@link cleanHtml}; names and meaning follow Firecrawl's scrape options. */
export interface CleanOptions {
  /**
   * Final URL of the page, used to resolve relative `href`/`src`/`srcset`. A `<base href>` takes precedence
   * ({@link documentBaseUrl}): pass the page URL, not an already resolved base, or a relative base applies twice.
   */
  baseUrl: string;
  /** Keep only the main content. Firecrawl's default is `true`. */
  onlyMainContent: boolean;
  /** CSS selectors; when non-empty only matching elements (and their descendants) are kept. */
  includeTags?: string[];
  /** CSS selectors of elements to remove. */
  excludeTags?: string[];
  /** Remove `data:` image sources, keeping the `alt` text. */
  removeBase64Images: boolean;
}

/**
 * Never part of the `html` output. `head` is one found inside the body (a pasted document): a browser ignores a
 * second `<head>` tag and shows none of what it holds (title, meta, style), which the markdown would otherwise show.
 */
const ALWAYS_REMOVED_TAGS = new Set(["script", "style", "noscript", "template", "meta", "link", "base", "head"]);
/** Also removed when only the main content is requested: form controls and inline icons. */
const MAIN_CONTENT_REMOVED_TAGS = new Set([...NON_CONTENT_TAGS].filter((tag) => tag !== "iframe"));
const VOID_TAGS = new Set([
  "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param", "source", "track", "wbr",
]);
/** Attributes that hold one URL. */
const URL_ATTRIBUTES = new Set(["href", "src", "poster"]);
/**
 * Whether attribute `name` of a `tag` element shows an image (`src`, a video's `poster`, an SVG `<image href>`), and
 * so leaves with `removeBase64Images` when it holds a `data:` one.
 */
const isImageUrlAttribute = (tag: string, name: string): boolean =>
  name === "src" || name === "poster" || (tag === "image" && (name === "href" || name === "xlink:href"));
/** A `data:` image URL, in any case and after the spaces a browser strips from a URL attribute. */
const DATA_IMAGE_RE = /^\s*data:image\//i;
/** A value (a `srcset`, a `style`) that holds a `data:` image somewhere: the cheap test before taking it apart. */
const DATA_IMAGE_ANYWHERE_RE = /data:image\//i;
/**
 * A CSS `url()` holding a `data:` image, quoted or not (a quoted SVG may hold parentheses). Replaced by `none` in a
 * `style` attribute, the value that shows no image wherever a `url()` image goes (`background`, `list-style-image`).
 */
const CSS_DATA_IMAGE_URL_RE = /url\(\s*(?:"\s*data:image\/[^"]*"|'\s*data:image\/[^']*'|data:image\/[^)]*)\s*\)/gi;
/**
 * A second `<html>` or `<body>` inside the body (two documents concatenated, a pasted one): a browser ignores the
 * tag and keeps its content in place, so the writer writes the content without the tag. htmlparser2 keeps such a
 * tag as an element wherever it stands; the writer visits every element anyway, so this costs no extra pass.
 */
const UNWRAPPED_SHELL_TAGS = new Set(["html", "body"]);
/** On `<img>` and `<source>`: lazy loaders' srcset attributes (lazy-images.ts), made absolute as `srcset` is. */
const LAZY_SRCSET_NAMES = new Set(LAZY_SRCSET_ATTRIBUTES);
const NON_HTTP_SCHEME_RE = /^(?:data|javascript|mailto|tel|blob|about|sms|callto):/i;

interface WriteContext {
  base: string;
  drop: ReadonlySet<Element>;
  /**
   * Elements of a removed tag that are unwrapped instead, children written and tag omitted: `<noscript>` fallbacks
   * and declarative shadow roots ({@link unwrappedElements}).
   */
  unwrap: ReadonlySet<Element>;
  removedTags: ReadonlySet<string>;
  removeBase64Images: boolean;
}

/**
 * Produce the `html` format of a page.
 *
 * Does not modify `doc`. Invalid selectors in `includeTags`/`excludeTags` are ignored.
 *
 * @param doc - a document from `parseHtml`
 * @param opts - see {@link CleanOptions}
 * @returns an HTML fragment (the body's content, the main-content element, or the included elements in order)
 * @example
 * cleanHtml(parseHtml(html), { baseUrl: "https://example.com/a/", onlyMainContent: true, removeBase64Images: true });
 */
export function cleanHtml(doc: Document, opts: CleanOptions): string {
  const body = doc.body as Element;
  const ctx: WriteContext = {
    base: documentBaseUrl(doc, opts.baseUrl),
    drop: new Set<Element>(),
    unwrap: unwrappedElements(body),
    removedTags: opts.onlyMainContent ? MAIN_CONTENT_REMOVED_TAGS : ALWAYS_REMOVED_TAGS,
    removeBase64Images: opts.removeBase64Images,
  };
  const excluded = opts.excludeTags?.length ? new Set(matchSelectors(body, opts.excludeTags)) : new Set<Element>();
  const includes = usableSelectors(body, opts.includeTags ?? []);
  if (includes.length > 0) {
    // `body` or `html` names the whole body, which a search below it never finds.
    const html = body.ownerDocument.documentElement;
    const wholeBody = includes.some((s) => body.matches(s) || (html !== null && html.matches(s)));
    const included = wholeBody ? [body] : topMost(Array.from(body.querySelectorAll(includes.join(","))));
    const drop = opts.onlyMainContent ? new Set([...excluded, ...furnitureInside(included)]) : excluded;
    const parts: string[] = [];
    for (const el of included) {
      if (!excluded.has(el)) parts.push(write(el, el !== body, { ...ctx, drop, removedTags: ALWAYS_REMOVED_TAGS }));
    }
    return parts.join("\n");
  }
  if (!opts.onlyMainContent) return write(body, false, { ...ctx, drop: excluded });
  const main = selectMainContent(doc, excluded, ctx.unwrap);
  if (!main) return "";
  for (const el of excluded) main.drop.add(el);
  // A `<noscript>` fallback chosen as the root is unwrapped as it is anywhere else: written with its tag, the markdown
  // converter (which skips noscript) made nothing of the page.
  return write(main.root, main.root !== body && !ctx.unwrap.has(main.root), { ...ctx, drop: main.drop });
}

/** `selectors` trimmed, less blank ones (upstream drops them) and ones the DOM cannot run. */
function usableSelectors(root: Element, selectors: string[]): string[] {
  return selectors.map((s) => s.trim()).filter((s) => s && isValidSelector(root, s));
}

/** All elements under `root` matching any selector, in document order; invalid selectors are skipped. */
function matchSelectors(root: Element, selectors: string[]): Element[] {
  const valid = usableSelectors(root, selectors);
  if (valid.length === 0) return [];
  return Array.from(root.querySelectorAll(valid.join(",")));
}

function isValidSelector(root: Element, selector: string): boolean {
  try {
    root.querySelector(selector);
    return true;
  } catch {
    return false;
  }
}

/** Drop matches nested inside another match: their content is already written by the outer one. */
function topMost(elements: Element[]): Element[] {
  const set = new Set(elements);
  return elements.filter((el) => {
    for (let p = el.parentElement; p; p = p.parentElement) if (set.has(p)) return false;
    return true;
  });
}

function resolveUrl(value: string, base: string): string {
  const url = value.trim();
  if (!url || NON_HTTP_SCHEME_RE.test(url)) return url;
  try {
    return new URL(url, base).href;
  } catch {
    return value;
  }
}

/** `value`'s candidates with absolute URLs; without its `data:` images when `removeDataImages`. */
function resolveSrcset(value: string, base: string, removeDataImages = false): string {
  const candidates = parseSrcset(value);
  return (removeDataImages ? candidates.filter(({ url }) => !DATA_IMAGE_RE.test(url)) : candidates)
    .map(({ url, descriptors }) => [resolveUrl(url, base), ...descriptors].join(" "))
    .join(", ");
}

const TEXT_ESCAPE_RE = /[&<>]/;
const ATTR_ESCAPE_RE = /[&"]/;
const escapeText = (s: string): string =>
  TEXT_ESCAPE_RE.test(s) ? s.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;")) : s;
const escapeAttr = (s: string): string =>
  ATTR_ESCAPE_RE.test(s) ? s.replace(/[&"]/g, (c) => (c === "&" ? "&amp;" : "&quot;")) : s;

/** Attributes of one element as written to the output, with URLs resolved and images fixed up. */
function writeAttributes(el: Element, tag: string, ctx: WriteContext): string {
  let out = "";
  let src: string | null = null;
  if (tag === "img") src = imageSource(el);
  // What a lazy loader would copy into `srcset` (lazysizes' data-srcset), shown as the element's srcset.
  const imageLike = tag === "img" || tag === "source";
  const srcset = imageLike ? lazySrcset(el) : null;
  // One pass over the attribute nodes. getAttributeNames() then getAttribute(name) scanned linkedom's attribute list
  // once per name: one element with 100k attributes took 13 s. `class` still goes through getAttribute, which
  // linkedom answers with the normalised class list (tokens deduplicated, single spaces), not the raw value.
  const attributes = el.hasAttributes() ? el.attributes : [];
  for (let i = 0; i < attributes.length; i++) {
    const attr = attributes[i] as Attr;
    const name = attr.name;
    let value =
      name === "src" && src !== null ? src : name === "srcset" && srcset !== null ? srcset : name === "class" ? (el.getAttribute(name) ?? "") : attr.value;
    if (ctx.removeBase64Images && isImageUrlAttribute(tag, name) && DATA_IMAGE_RE.test(value)) continue;
    if (URL_ATTRIBUTES.has(name)) {
      value = resolveUrl(value, ctx.base);
    } else if (name === "srcset" || (imageLike && LAZY_SRCSET_NAMES.has(name))) {
      if (ctx.removeBase64Images && DATA_IMAGE_ANYWHERE_RE.test(value)) {
        // Only the `data:` candidates go: the others are the image's real sources.
        value = resolveSrcset(value, ctx.base, true);
        if (value === "") continue;
      } else {
        value = resolveSrcset(value, ctx.base);
      }
    } else if (name === "style" && ctx.removeBase64Images && DATA_IMAGE_ANYWHERE_RE.test(value)) {
      value = value.replace(CSS_DATA_IMAGE_URL_RE, "none");
    }
    out += ` ${name}="${escapeAttr(value)}"`;
  }
  if (tag === "img" && src && !el.hasAttribute("src") && !(ctx.removeBase64Images && /^\s*data:/i.test(src))) {
    out += ` src="${escapeAttr(resolveUrl(src, ctx.base))}"`;
  }
  if (srcset !== null && !el.hasAttribute("srcset")) {
    const resolved = resolveSrcset(srcset, ctx.base, ctx.removeBase64Images);
    if (resolved !== "") out += ` srcset="${escapeAttr(resolved)}"`;
  }
  return out;
}

/**
 * Serialise `root` (or only its children) skipping dropped elements, removed tags and comments.
 * Iterative, so pathological nesting depth cannot overflow the stack.
 */
function write(root: Element, includeRoot: boolean, ctx: WriteContext): string {
  const rootTag = root.localName;
  if (includeRoot && isRawTextTag(rootTag)) return writeRawTextElement(root, rootTag, ctx);
  const withRoot = includeRoot && !UNWRAPPED_SHELL_TAGS.has(rootTag);
  const out: string[] = [];
  const open: Element[] = [];
  if (withRoot) out.push(`<${rootTag}${writeAttributes(root, rootTag, ctx)}>`);
  let node: ChildNode | null = root.firstChild;
  for (;;) {
    if (node) {
      const type = node.nodeType;
      if (type === 3) {
        out.push(escapeText((node as Text).data));
      } else if (type === 1) {
        const el = node as Element;
        const tag = el.localName;
        if ((ctx.unwrap.has(el) || UNWRAPPED_SHELL_TAGS.has(tag)) && !ctx.drop.has(el)) {
          const first: ChildNode | null = el.firstChild;
          if (first) {
            open.push(el);
            node = first;
            continue;
          }
        } else if (ctx.removedTags.has(tag) || ctx.drop.has(el)) {
          // skipped with its content
        } else if (isRawTextTag(tag)) {
          out.push(writeRawTextElement(el, tag, ctx));
        } else {
          out.push(`<${tag}${writeAttributes(el, tag, ctx)}>`);
          if (!VOID_TAGS.has(tag)) {
            const first: ChildNode | null = el.firstChild;
            if (first) {
              open.push(el);
              node = first;
              continue;
            }
            out.push(`</${tag}>`);
          }
        }
      }
      node = node.nextSibling;
      continue;
    }
    const closed = open.pop();
    if (!closed) break;
    if (!ctx.unwrap.has(closed) && !UNWRAPPED_SHELL_TAGS.has(closed.localName)) out.push(`</${closed.localName}>`);
    node = closed.nextSibling;
  }
  if (withRoot && !VOID_TAGS.has(rootTag)) out.push(`</${rootTag}>`);
  return out.join("");
}

type RawTextTag = "textarea" | "xmp";
const isRawTextTag = (tag: string): tag is RawTextTag => tag === "textarea" || tag === "xmp";

/**
 * A `<textarea>` or `<xmp>`, its text escaped exactly once. htmlparser2 keeps both elements' text as the page wrote
 * it, undecoded: right for `<xmp>` (raw text: a browser shows `&lt;` as those four characters), wrong for
 * `<textarea>` (escapable raw text: a browser shows `&lt;` as `<`), whose text is decoded here before it is escaped.
 * An `<xmp>` is written as the `<pre>` it displays as, its text escaped: kept as `<xmp>` its text would have to stay
 * raw, and a reader that is not an HTML parser (the markdown converter) would take the tags in it for elements.
 */
function writeRawTextElement(el: Element, tag: RawTextTag, ctx: WriteContext): string {
  const raw = el.textContent ?? "";
  const text = tag === "textarea" ? decodeCharacterReferences(el, raw) : raw;
  const outTag = tag === "xmp" ? "pre" : tag;
  return `<${outTag}${writeAttributes(el, tag, ctx)}>${escapeText(text)}</${outTag}>`;
}

/**
 * `text` with its character references (`&lt;`, `&amp`, `&#65;`) decoded as a browser decodes them in text, by
 * linkedom's own decoder: its `<` escaped first, so that no tag is read in it.
 */
function decodeCharacterReferences(el: Element, text: string): string {
  if (!text.includes("&")) return text;
  const holder = el.ownerDocument.createElement("p");
  holder.innerHTML = text.replace(/</g, "&lt;");
  return holder.textContent ?? "";
}
