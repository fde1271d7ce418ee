/**
 * @module plugins/formats/links
 * The `links` format: every link of the whole page (not only the main content), absolute and deduplicated.
 */
import type { FormatRenderer } from "../../src/scrape/renderer.ts";

/** Renders `data.links`. */
export const linksFormat: FormatRenderer = {
  type: "links",
  needs: [],
  usesOriginalDom: true,
  views: ["links"],
  render: (ctx) => ({ links: ctx.links() }),
};
