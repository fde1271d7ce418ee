/**
 * @module plugins/formats/screenshot
 * The `screenshot` format (api-v2.md §6.5): `{fullPage=false, quality?, viewport?}`. The browser engine takes
 * the picture (PNG, or JPEG when `quality` is given); this renderer stores it through the render context, so
 * `data.screenshot` is a `/v2/files/…` URL that expires after 24 hours, or a `data:` URL under zero data
 * retention. A URL that turned out to be a document (PDF) has no screenshot, nor has a page Chromium never
 * rendered (its `<head>` waits for a script or stylesheet that never arrives): the document gets a warning.
 */
import { MAX_VIEWPORT_HEIGHT, MAX_VIEWPORT_WIDTH } from "../../src/api/formats.ts";
import { BadRequestError } from "../../src/errors.ts";
import type { FormatRenderer } from "../../src/scrape/renderer.ts";

const MAX_VIEWPORT = { width: MAX_VIEWPORT_WIDTH, height: MAX_VIEWPORT_HEIGHT } as const;

const EXTENSIONS: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg" };

/** Renders `data.screenshot`. */
export const screenshotFormat: FormatRenderer = {
  type: "screenshot",
  needs: ["browser"],
  views: [],
  validate(format) {
    const v = format.viewport as { width?: number; height?: number } | undefined;
    if (v && ((v.width ?? 0) > MAX_VIEWPORT.width || (v.height ?? 0) > MAX_VIEWPORT.height || (v.width ?? 1) < 1 || (v.height ?? 1) < 1)) {
      throw new BadRequestError(`Screenshot viewport must be between 1×1 and ${MAX_VIEWPORT.width}×${MAX_VIEWPORT.height}.`);
    }
  },
  async render(ctx) {
    const shot = ctx.page.artifacts?.screenshot;
    if (!shot) {
      // The browser engine leaves the picture out only for a page Chromium never rendered (engines/browser/scrape.ts).
      if (ctx.page.engine === "browser") return { warning: "No screenshot was taken: the browser had not rendered the page (it still waits for a script or stylesheet that never arrived)." };
      return { warning: "No screenshot was taken: the URL is not a web page the browser rendered." };
    }
    const screenshot = await ctx.storeFile(shot.bytes, shot.contentType, EXTENSIONS[shot.contentType] ?? "png");
    if (shot.clippedAtPx === undefined) return { screenshot };
    return { screenshot, warning: `The full-page screenshot was cut at ${shot.clippedAtPx} px: the page is taller than a screenshot can be.` };
  },
};
