/**
 * @module plugins/formats/attributes
 * The `attributes` format: `{selectors:[{selector, attribute}]}` → `[{selector, attribute, values}]`, read from
 * the original page. Selectors are checked before fetching, so a typo costs no request.
 */
import { cssSelectorIssues } from "../../src/api/css-selector.ts";
import { BadRequestError } from "../../src/errors.ts";
import { extractAttributes } from "../../src/pipeline/attributes.ts";
import { formatIndex, type FormatRenderer } from "../../src/scrape/renderer.ts";

type Selectors = { selector: string; attribute: string }[];

/** Renders `data.attributes`. */
export const attributesFormat: FormatRenderer = {
  type: "attributes",
  needs: [],
  usesOriginalDom: true,
  validate(format, spec) {
    // Issues in the request's own shape (`{code, path: ["formats", 1, "selectors", 0, "selector"], message}`), as
    // every other 400's.
    const selectors = ((format.selectors as Selectors | undefined) ?? []).map((s) => s.selector);
    const issues = cssSelectorIssues(selectors, ["formats", formatIndex(spec, format), "selectors"]).map((issue) => ({ ...issue, path: [...issue.path, "selector"] }));
    if (issues.length > 0) throw new BadRequestError("Invalid CSS selector in attributes format", issues);
  },
  render: (ctx, format) => ({
    attributes: extractAttributes(ctx.originalDom(), (format.selectors as Selectors | undefined) ?? []),
  }),
};
