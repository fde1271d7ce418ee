/**
 * @module plugins/formats/images
 * The `images` format: every image URL of the page, absolute and deduplicated; `data:` images are left out when
 * `removeBase64Images` is on (the default).
 */
import { extractImages } from "../../src/pipeline/links.ts";
import type { FormatRenderer } from "../../src/scrape/renderer.ts";

/** Renders `data.images`. */
export const imagesFormat: FormatRenderer = {
  type: "images",
  needs: [],
  usesOriginalDom: true,
  render: (ctx) => ({ images: extractImages(ctx.originalDom(), ctx.baseUrl(), !ctx.spec.removeBase64Images) }),
};
