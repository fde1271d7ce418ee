/**
 * @module llm/deterministic/outline
 * A compact outline of a page's HTML for the model that writes a `deterministicJson` extractor: the element tree with
 * the attributes selectors are built from (id, class, itemprop, role, aria-*, data-*, href, …), text shortened, and
 * what carries no data left out (styles, scripts other than JSON-LD and JSON, SVG, templates, comments). A 150 KB
 * article page comes to a few tens of KB, and the outline stops at the budget it is given, so the prompt fits the
 * model's context.
 */
import { parseHtml } from "../../pipeline/parse.ts";

/** Elements left out with all they hold. */
const SKIP = new Set(["style", "noscript", "svg", "template", "iframe", "link", "meta", "head", "canvas", "video", "audio", "picture", "source", "object", "embed", "map"]);
/** Attributes kept, besides `data-*` and `aria-*`. */
const KEEP = new Set(["id", "class", "itemprop", "itemscope", "itemtype", "role", "name", "type", "href", "src", "alt", "title", "datetime", "content", "value", "for", "headers", "colspan", "lang"]);
/** Longest text node kept, in characters. */
const TEXT_CHARS = 160;
/** Longest attribute value kept. */
const ATTR_CHARS = 100;
/** Longest JSON script kept. */
const JSON_CHARS = 4_000;
/**
 * Characters of the page's HTML outlined at most: the outline is a few tens of KB, and parsing a 25 MB page for it
 * would hold the event loop for seconds (the beginning of a page is where its structure shows).
 */
export const OUTLINE_SOURCE_CHARS = 1_000_000;

/**
 * Characters read past a text's cut when the outline is redacted: a run of PII that starts before the cut (an
 * address, a phone) is redacted whole before the text is shortened, so no fragment of it (`carol.smi…`) is sent.
 */
const READ_PAST_CUT_CHARS = 100;

/** A text from the page in an outline line (a text node, an attribute value, a JSON script): shortened to `max`. */
interface Slot {
  /** The text, its white space collapsed. */
  text: string;
  max: number;
  /** An attribute value: its quotes escaped once shortened. */
  attr?: true;
}
/** A line of the outline: markup of crawlbox's making, and the page's texts. */
type Piece = string | Slot;

const slot = (s: string, max: number, attr = false): Slot => ({ text: s.replace(/\s+/g, " ").trim(), max, ...(attr ? { attr: true as const } : {}) });

/**
 * What of a slot is redacted: all of it when it fits, else its first `max` characters and {@link READ_PAST_CUT_CHARS}
 * more, less a word the window itself cuts (a fragment the redaction could not recognise, which a redaction that
 * shortens the text could otherwise bring before the cut).
 */
function readWindow(s: Slot): string {
  if (s.text.length <= s.max) return s.text;
  const end = s.max + READ_PAST_CUT_CHARS;
  const window = s.text.slice(0, end);
  return end < s.text.length && /\S/.test(s.text[end]!) ? window.replace(/\S+$/, "") : window;
}

/**
 * A slot as shown: `read` (its window, redacted or not) cut to `max` characters, marked when cut (also when the
 * window left the end out).
 */
function shown(s: Slot, read: string): string {
  const text = read.length > s.max || s.text.length > s.max + READ_PAST_CUT_CHARS ? `${read.slice(0, s.max)}…` : read;
  return s.attr ? text.replace(/"/g, "&quot;") : text;
}

function attrs(el: Element): Piece[] {
  const out: Piece[] = [];
  let data = 0;
  for (const a of Array.from(el.attributes)) {
    const name = a.name.toLowerCase();
    const extra = name.startsWith("data-") || name.startsWith("aria-");
    if (!KEEP.has(name) && !extra) continue;
    if (extra && ++data > 4) continue;
    let value = a.value;
    if (name === "class") value = value.trim().split(/\s+/).slice(0, 4).join(" ");
    if (value === "") out.push(` ${name}`);
    else if (value.startsWith("data:")) out.push(` ${name}="data:…"`);
    else out.push(` ${name}="`, slot(value, ATTR_CHARS, true), `"`);
  }
  return out;
}

/** Redacts the page's texts of an outline (in order, as many as given), as `redactPII` asks. */
export type RedactTexts = (texts: string[]) => Promise<string[]>;

/**
 * The outline of `html`, at most about `budgetChars` characters (a note says how much was left out). With `redact`,
 * the page's texts are redacted before they are shortened ({@link READ_PAST_CUT_CHARS}); the outline's size is
 * measured on the texts as served, so a redaction that lengthens them may bring it a little over `budgetChars`.
 */
export async function htmlOutline(html: string, budgetChars: number, redact?: RedactTexts): Promise<string> {
  const doc = parseHtml(html.length > OUTLINE_SOURCE_CHARS ? html.slice(0, OUTLINE_SOURCE_CHARS) : html);
  const lines: { indent: string; pieces: Piece[] }[] = [];
  let used = 0;
  let cut = 0;
  const push = (depth: number, ...pieces: Piece[]) => {
    const length = pieces.reduce((n, p) => n + (typeof p === "string" ? p.length : shown(p, p.text).length), 0);
    if (used + length > budgetChars) {
      cut++;
      return;
    }
    lines.push({ indent: " ".repeat(Math.min(depth, 20)), pieces });
    used += length + Math.min(depth, 20) + 1;
  };
  const title = doc.querySelector("title")?.textContent;
  if (title) push(0, "<title>", slot(title, 300), "</title>");
  for (const s of Array.from(doc.querySelectorAll('script[type="application/ld+json"], script[type="application/json"]'))) {
    push(0, "<script", ...attrs(s), ">", slot(s.textContent ?? "", JSON_CHARS), "</script>");
  }
  const walk = (node: Node, depth: number) => {
    for (const child of Array.from(node.childNodes)) {
      if (used >= budgetChars) {
        cut++;
        return;
      }
      if (child.nodeType === 3) {
        const text = slot(child.textContent ?? "", TEXT_CHARS);
        if (text.text) push(depth, text);
        continue;
      }
      if (child.nodeType !== 1) continue;
      const el = child as Element;
      const tag = el.tagName.toLowerCase();
      if (SKIP.has(tag) || tag === "script") continue;
      if (el.childNodes.length === 0) {
        push(depth, `<${tag}`, ...attrs(el), ">");
        continue;
      }
      // An element with one short text is one line.
      if (el.childNodes.length === 1 && el.firstChild!.nodeType === 3) {
        push(depth, `<${tag}`, ...attrs(el), ">", slot(el.textContent ?? "", TEXT_CHARS), `</${tag}>`);
        continue;
      }
      push(depth, `<${tag}`, ...attrs(el), ">");
      walk(el, depth + 1);
      push(depth, `</${tag}>`);
    }
  };
  const body = doc.body ?? doc.documentElement;
  if (body) walk(body, 0);
  const slots = lines.flatMap((l) => l.pieces.filter((p): p is Slot => typeof p !== "string"));
  const windows = slots.map(readWindow);
  const read = redact && windows.length > 0 ? await redact(windows) : windows;
  if (read.length !== windows.length) throw new TypeError("the outline's redaction gave back another number of texts");
  let next = 0;
  const out = lines.map((l) => l.indent + l.pieces.map((p) => (typeof p === "string" ? p : shown(p, read[next++]!))).join(""));
  if (cut > 0) out.push(`<!-- the outline stops here: the page is longer than ${budgetChars} characters of outline -->`);
  return out.join("\n");
}
