/**
 * @module documents/office/xml
 * Small helpers over linkedom's XML parser for office formats (element names keep their prefixes: `w:p`), and the
 * bounds the office converters apply to what a crafted file declares (nesting, levels, counts).
 */
import { DOMParser } from "linkedom";
import { DocumentCorruptError } from "../errors.ts";

/**
 * Deepest element nesting the office converters descend into. Real documents nest a few tens of levels; the
 * walks recurse, and 50k nested `<w:ins>` or `<text:span>` overflowed the stack (a RangeError answered 500).
 */
export const MAX_XML_DEPTH = 200;

/** Deepest list nesting kept (`w:ilvl` is 0–8 in WordprocessingML); deeper items stay at this depth. */
export const MAX_LIST_DEPTH = 8;

/** Parses XML text into its root element; text that yields no root element (not XML at all) is a corrupt `kind`. */
export function parseXml(xml: string, kind: string, partName: string): Element {
  const doc = new DOMParser().parseFromString(xml, "text/xml") as unknown as Document;
  const root = doc?.documentElement;
  if (!root) throw new DocumentCorruptError(kind, `${partName} is not an XML document`);
  return root;
}

/** Throws a corrupt `kind` when a walk reaches `depth` past {@link MAX_XML_DEPTH}. */
export function checkDepth(depth: number, kind: string): void {
  if (depth > MAX_XML_DEPTH) throw new DocumentCorruptError(kind, `elements nest deeper than ${MAX_XML_DEPTH} levels`);
}

/**
 * The integer an attribute declares, clamped to `min..max`; `fallback` when it is absent or not a finite number.
 * Levels and counts come straight from the file: `text:c="1e9"` or `w:ilvl="-1"` must not reach `String.repeat`.
 */
export function intAttr(value: string | null | undefined, min: number, max: number, fallback: number): number {
  const n = value == null || value.trim() === "" ? NaN : Number(value);
  if (!Number.isFinite(n)) return fallback;
  return Math.min(max, Math.max(min, Math.trunc(n)));
}

/** Direct children of `el` named `name` (all children when `name` is omitted). */
export function children(el: Element, name?: string): Element[] {
  const out: Element[] = [];
  for (let c = el.firstElementChild; c; c = c.nextElementSibling) if (!name || c.tagName === name) out.push(c);
  return out;
}

/** First direct child of `el` named `name`. */
export function child(el: Element | undefined, name: string): Element | undefined {
  if (!el) return undefined;
  for (let c = el.firstElementChild; c; c = c.nextElementSibling) if (c.tagName === name) return c;
  return undefined;
}

/** Descendants of `el` named `name`, in document order. */
export function descendants(el: Element, name: string): Element[] {
  return Array.from(el.getElementsByTagName(name));
}
