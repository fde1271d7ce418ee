/**
 * @module plugins/formats/attributes
 * The `attributes` format: `{selectors:[{selector, attribute}]}` → `[{selector, attribute, values}]`, read from
 * the original page. Selectors are checked before fetching, so a typo costs no request. They are the caller's, and
 * some cost seconds on a small page (`div:has(~ span)` is quadratic in the siblings): the values are a parsed view
 * (`ctx.attributes`), computed on a parse worker that the scrape's `timeout` can stop, not on the main thread.
 */
import { cssSelectorIssues } from "../../src/api/css-selector.ts";
import { BadRequestError } from "../../src/errors.ts";
import { attributeSelectorsOf } from "../../src/pipeline/attributes.ts";
import { formatIndex, type FormatRenderer } from "../../src/scrape/renderer.ts";

/** Renders `data.attributes`. */
export const attributesFormat: FormatRenderer = {
  type: "attributes",
  needs: [],
  usesOriginalDom: true,
  views: ["attributes"],
  validate(format, spec) {
    // Issues in the request's own shape (`{code, path: ["formats", 1, "selectors", 0, "selector"], message}`), as
    // every other 400's.
    const selectors = attributeSelectorsOf(format).map((s) => s.selector);
    const issues = cssSelectorIssues(selectors, ["formats", formatIndex(spec, format), "selectors"]).map((issue) => ({ ...issue, path: [...issue.path, "selector"] }));
    if (issues.length > 0) throw new BadRequestError("Invalid CSS selector in attributes format", issues);
  },
  render: (ctx, format) => ({ attributes: ctx.attributes(attributeSelectorsOf(format)) }),
};
