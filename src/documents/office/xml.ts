/**
 * @module documents/office/xml
 * Small helpers over linkedom's XML parser for office formats (element names keep their prefixes: `w:p`).
 */
import { DOMParser } from "linkedom";

/** Parses XML text into its root element. */
export function parseXml(xml: string): Element {
  const doc = new DOMParser().parseFromString(xml, "text/xml") as unknown as Document;
  return doc.documentElement;
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
