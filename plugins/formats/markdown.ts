/**
 * @module plugins/formats/markdown
 * The `markdown` format: the cleaned (by default main-content) HTML converted to GitHub-flavoured markdown.
 */
import type { FormatRenderer } from "../../src/scrape/renderer.ts";

/** Renders `data.markdown`. */
export const markdownFormat: FormatRenderer = {
  type: "markdown",
  needs: [],
  views: ["markdown"],
  render: (ctx) => ({ markdown: ctx.markdown() }),
};
