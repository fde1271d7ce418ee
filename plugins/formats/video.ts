/**
 * @module plugins/formats/video
 * The `video` format ([LATEST]): the page's primary video, the URL itself when it serves one, else the page's first
 * `<video>` source or `og:video` (src/documents/media/extract-video.ts), stored as served like screenshots:
 * `data.video` is a `/v2/files/…` URL that expires (a `data:` URL under zero data retention). No playable video →
 * 422 `SCRAPE_VIDEO_UNSUPPORTED_URL`. +4 credits, as upstream bills it.
 */
import { extractVideo } from "../../src/documents/media/extract-video.ts";
import { DEFAULT_MEDIA_SETTINGS, type MediaSettings } from "../../src/documents/media/settings.ts";
import { withinScrape } from "../../src/documents/media/within-scrape.ts";
import type { FormatRenderer } from "../../src/scrape/renderer.ts";

/** Extra credits of a page with `video` (upstream's +4: 5 in all). */
export const VIDEO_EXTRA_CREDITS = 4;

/** Creates the `data.video` renderer with the server's media settings (limits, fetcher). */
export function createVideoFormat(settings: MediaSettings = DEFAULT_MEDIA_SETTINGS): FormatRenderer {
  return {
    type: "video",
    needs: [],
    extraCredits: VIDEO_EXTRA_CREDITS,
    usesOriginalDom: true,
    async render(ctx) {
      const file = await withinScrape(ctx, (source, signal) => extractVideo(source, settings, signal));
      return { video: await ctx.storeFile(file.bytes, file.contentType, file.extension) };
    },
  };
}
