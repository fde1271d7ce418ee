/**
 * @module plugins/formats/html
 * The `html` format: the page after cleaning (scripts and styles removed, tag filters and main-content
 * selection applied, links made absolute).
 */
import type { FormatRenderer } from "../../src/scrape/renderer.ts";

/** Renders `data.html`. */
export const htmlFormat: FormatRenderer = {
  type: "html",
  needs: [],
  views: ["html"],
  render: (ctx) => ({ html: ctx.cleanedHtml() }),
};
