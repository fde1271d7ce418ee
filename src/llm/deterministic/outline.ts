/**
 * @module llm/deterministic/outline
 * A compact outline of a page's HTML for the model that writes a `deterministicJson` extractor: the element tree with
 * the attributes selectors are built from (id, class, itemprop, role, aria-*, data-*, href, …), text shortened, and
 * what carries no data left out (styles, scripts other than JSON-LD and JSON, SVG, templates, comments). A 150 KB
 * article page comes to a few tens of KB, and the outline stops at the budget it is given, so the prompt fits the
 * model's context.
 */
import { parseHtml } from "../../pipeline/parse.ts";
import { showSlots } from "./outline-read.ts";
import { BlockTexts, isBlock } from "./outline-runs.ts";
import { plainShown, type RedactTexts, type Slot, slot } from "./outline-slots.ts";

export type { RedactTexts } from "./outline-slots.ts";

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

/** A line of the outline: markup of crawlbox's making, and the page's texts. */
type Piece = string | Slot;

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
    // A data-* or aria-* name is the page's text (`data-contact-ada@example.org`), redacted as values are.
    const named: Piece = extra ? slot(name, ATTR_CHARS, true) : name;
    if (value === "") out.push(" ", named);
    else if (value.startsWith("data:")) out.push(" ", named, `="data:…"`);
    else out.push(" ", named, `="`, slot(value, ATTR_CHARS, true), `"`);
  }
  return out;
}

/**
 * The outline of `html`, at most about `budgetChars` characters (a note says how much was left out). With `redact`,
 * the page's texts (text nodes, a block's together, attribute and custom element names, attribute values, JSON
 * scripts) are redacted before they are shortened, and no fragment of PII is shown (llm/deterministic/outline-slots.ts,
 * outline-runs.ts); the outline's size is measured on the texts as
 * served, so a redaction that lengthens them may bring it a little over `budgetChars`.
 */
export async function htmlOutline(html: string, budgetChars: number, redact?: RedactTexts): Promise<string> {
  const doc = parseHtml(html.length > OUTLINE_SOURCE_CHARS ? html.slice(0, OUTLINE_SOURCE_CHARS) : html);
  const lines: { indent: string; pieces: Piece[] }[] = [];
  let used = 0;
  let cut = 0;
  /** Adds a line if the budget holds it; whether it did. */
  const push = (depth: number, ...pieces: Piece[]) => {
    const length = pieces.reduce((n, p) => n + (typeof p === "string" ? p.length : plainShown(p).length), 0);
    if (used + length > budgetChars) {
      cut++;
      return false;
    }
    lines.push({ indent: " ".repeat(Math.min(depth, 20)), pieces });
    used += length + Math.min(depth, 20) + 1;
    return true;
  };
  const title = doc.querySelector("title")?.textContent;
  if (title) push(0, "<title>", slot(title, 300), "</title>");
  for (const s of Array.from(doc.querySelectorAll('script[type="application/ld+json"], script[type="application/json"]'))) {
    push(0, "<script", ...attrs(s), ">", slot(s.textContent ?? "", JSON_CHARS), "</script>");
  }
  // The text nodes of each block, read together under redaction (llm/deterministic/outline-runs.ts).
  const blocks = new BlockTexts();
  const walk = (node: Node, depth: number) => {
    for (const child of Array.from(node.childNodes)) {
      if (used >= budgetChars) {
        cut++;
        blocks.end(true);
        return;
      }
      if (child.nodeType === 3) {
        const raw = child.textContent ?? "";
        const text = slot(raw, TEXT_CHARS);
        blocks.text(raw, text, text.text !== "" && push(depth, text));
        continue;
      }
      if (child.nodeType !== 1) continue;
      const el = child as Element;
      const tag = el.tagName.toLowerCase();
      if (SKIP.has(tag) || tag === "script") continue;
      // A custom element's name is the page's text (`<contact-ada@example.org>`), redacted as attribute names are.
      const name: Piece = tag.includes("-") ? { ...slot(tag, Math.max(tag.length, ATTR_CHARS)), name: true } : tag;
      const block = isBlock(tag);
      if (block) blocks.end();
      if (el.childNodes.length === 0) push(depth, "<", name, ...attrs(el), ">");
      else if (el.childNodes.length === 1 && el.firstChild!.nodeType === 3) {
        // An element with one short text is one line.
        const raw = el.textContent ?? "";
        const text = slot(raw, TEXT_CHARS);
        blocks.text(raw, text, push(depth, "<", name, ...attrs(el), ">", text, "</", name, ">"));
      } else {
        push(depth, "<", name, ...attrs(el), ">");
        walk(el, depth + 1);
        push(depth, "</", name, ">");
      }
      if (block) blocks.end();
    }
  };
  const body = doc.body ?? doc.documentElement;
  if (body) walk(body, 0);
  blocks.end();
  const slots = lines.flatMap((l) => l.pieces.filter((p): p is Slot => typeof p !== "string"));
  const shown = await showSlots(slots, redact, blocks.runs);
  let next = 0;
  const out = lines.flatMap((l) => {
    const texts = l.pieces.map((p) => (typeof p === "string" ? p : shown[next++]!));
    // A text line whose text the redaction gave to the line before (an address split across nodes) is left out.
    return redact && l.pieces.length === 1 && texts[0] === "" ? [] : [l.indent + texts.join("")];
  });
  if (cut > 0) out.push(`<!-- the outline stops here: the page is longer than ${budgetChars} characters of outline -->`);
  return out.join("\n");
}
