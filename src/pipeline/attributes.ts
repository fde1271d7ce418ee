/**
 * @module pipeline/attributes
 * The `attributes` format: for each `{selector, attribute}` the values of that attribute on every element the
 * selector matches in the original page, in document order. An element without the attribute gives its `data-`
 * form when it has that (`price` finds `data-price`), as upstream's extractAttributes does.
 */

/** One requested selector/attribute pair. */
export interface AttributeSelector {
  selector: string;
  attribute: string;
}

/** One requested selector/attribute pair and what it found. */
export interface AttributeResult extends AttributeSelector {
  values: string[];
}

/** Runs each selector against `doc`; an invalid selector throws (the request is rejected before fetching). */
export function extractAttributes(doc: Document, selectors: readonly AttributeSelector[]): AttributeResult[] {
  return selectors.map(({ selector, attribute }) => {
    const values: string[] = [];
    // HTML attribute names are lower-case once parsed (a browser's getAttribute lower-cases the name asked of an HTML
    // element); SVG's keep their case (`viewBox`), so the name as asked is tried first.
    const name = attribute.toLowerCase();
    for (const el of doc.querySelectorAll(selector)) {
      const v = el.getAttribute(attribute) ?? el.getAttribute(name) ?? (name.startsWith("data-") ? null : el.getAttribute(`data-${name}`));
      if (v !== null) values.push(v);
    }
    return { selector, attribute, values };
  });
}

/**
 * The pairs of one `attributes` format request (`{type: "attributes", selectors}`), none when it has no
 * `selectors` (validation refuses that before a scrape starts).
 */
export function attributeSelectorsOf(format: { type: string; selectors?: unknown }): AttributeSelector[] {
  return (format.selectors as AttributeSelector[] | undefined) ?? [];
}

/**
 * The pairs the request's `attributes` format asks for, in order: its first entry's, the only one a scrape renders
 * (a format type given twice is rendered once, from its first entry: scrape/service.ts). They are the caller's own
 * selectors, so a page matched against them is parsed on a worker that can be stopped at the scrape's deadline
 * (scrape/parse-workers/pool.ts); a second entry's are never run.
 */
export function requestedAttributeSelectors(formats: readonly { type: string; selectors?: unknown }[] | undefined): AttributeSelector[] {
  const first = (formats ?? []).find((f) => f.type === "attributes");
  return first ? attributeSelectorsOf(first) : [];
}
