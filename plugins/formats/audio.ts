/**
 * @module plugins/formats/audio
 * The `audio` format ([LATEST]): the page's primary audio track — the URL itself when it serves audio or video,
 * else the main `<audio>`/`<video>` source of the page — as MP3 when ffmpeg is installed (the original audio
 * file otherwise), stored like screenshots: `data.audio` is a `/v2/files/…` URL that expires (a `data:` URL under
 * zero data retention). No playable media → 422 `SCRAPE_AUDIO_UNSUPPORTED_URL`.
 */
import { extractAudio } from "../../src/documents/media/extract-audio.ts";
import { DEFAULT_MEDIA_SETTINGS, type MediaSettings } from "../../src/documents/media/settings.ts";
import type { FormatRenderer } from "../../src/scrape/renderer.ts";
import { withinScrape } from "../../src/documents/media/within-scrape.ts";

/** Extra credits of a page with `audio` (upstream's +4: 5 in all). */
export const AUDIO_EXTRA_CREDITS = 4;

/** Creates the `data.audio` renderer with the server's media settings (limits, ffmpeg, fetcher). */
export function createAudioFormat(settings: MediaSettings = DEFAULT_MEDIA_SETTINGS): FormatRenderer {
  return {
    type: "audio",
    needs: [],
    extraCredits: AUDIO_EXTRA_CREDITS,
    usesOriginalDom: true,
    async render(ctx) {
      const file = await withinScrape(ctx, (source, signal) => extractAudio(source, settings, signal));
      return { audio: await ctx.storeFile(file.bytes, file.contentType, file.extension) };
    },
  };
}
