/**
 * @module plugins/formats/attributes
 * The `attributes` format: `{selectors:[{selector, attribute}]}` → `[{selector, attribute, values}]`, read from
 * the original page. Selectors are checked before fetching, so a typo costs no request.
 */
import { BadRequestError } from "../../src/errors.ts";
import { extractAttributes } from "../../src/pipeline/attributes.ts";
import { parseHtml } from "../../src/pipeline/index.ts";
import type { FormatRenderer } from "../../src/scrape/renderer.ts";

type Selectors = { selector: string; attribute: string }[];

const probe = parseHtml("<html><body><p></p></body></html>");

/** Renders `data.attributes`. */
export const attributesFormat: FormatRenderer = {
  type: "attributes",
  needs: [],
  usesOriginalDom: true,
  validate(format) {
    for (const [i, s] of ((format.selectors as Selectors | undefined) ?? []).entries()) {
      try {
        probe.querySelectorAll(s.selector);
      } catch {
        throw new BadRequestError("Invalid CSS selector in attributes format", [
          { path: `/formats/attributes/selectors/${i}/selector`, message: `Invalid CSS selector: ${s.selector}` },
        ]);
      }
    }
  },
  render: (ctx, format) => ({
    attributes: extractAttributes(ctx.originalDom(), (format.selectors as Selectors | undefined) ?? []),
  }),
};
