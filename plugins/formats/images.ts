/**
 * @module plugins/formats/images
 * The `images` format: every image URL of the page, absolute and deduplicated; `data:` images are left out when
 * `removeBase64Images` is on (the default).
 */
import type { FormatRenderer } from "../../src/scrape/renderer.ts";

/** Renders `data.images`. */
export const imagesFormat: FormatRenderer = {
  type: "images",
  needs: [],
  usesOriginalDom: true,
  views: ["images"],
  render: (ctx) => ({ images: ctx.images() }),
};
