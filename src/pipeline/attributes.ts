/**
 * @module pipeline/attributes
 * The `attributes` format: for each `{selector, attribute}` the values of that attribute on every element the
 * selector matches in the original page, in document order. An element without the attribute gives its `data-`
 * form when it has that (`price` finds `data-price`), as upstream's extractAttributes does.
 */

/** One requested selector/attribute pair and what it found. */
export interface AttributeResult {
  selector: string;
  attribute: string;
  values: string[];
}

/** Runs each selector against `doc`; an invalid selector throws (the request is rejected before fetching). */
export function extractAttributes(doc: Document, selectors: { selector: string; attribute: string }[]): AttributeResult[] {
  return selectors.map(({ selector, attribute }) => {
    const values: string[] = [];
    for (const el of doc.querySelectorAll(selector)) {
      const v = el.getAttribute(attribute) ?? (attribute.toLowerCase().startsWith("data-") ? null : el.getAttribute(`data-${attribute}`));
      if (v !== null) values.push(v);
    }
    return { selector, attribute, values };
  });
}
