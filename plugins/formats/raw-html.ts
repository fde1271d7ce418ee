/**
 * @module plugins/formats/raw-html
 * The `rawHtml` format: the page exactly as served (decoded with its sniffed charset), untouched.
 */
import type { FormatRenderer } from "../../src/scrape/renderer.ts";

/** Renders `data.rawHtml`. */
export const rawHtmlFormat: FormatRenderer = {
  type: "rawHtml",
  needs: [],
  views: [],
  render: (ctx) => ({ rawHtml: ctx.rawHtml() }),
};
