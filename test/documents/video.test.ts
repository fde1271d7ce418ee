/**
 * The video format's reading of a page (documents/media/extract-video.ts) as a unit: an MP4 by its bytes, an Ogg
 * stream served as video/* (its signature alone says only "Ogg"), and an Ogg served as audio refused.
 */
import { describe, expect, test } from "bun:test";
import { extractVideo } from "../../src/documents/media/extract-video.ts";
import { DEFAULT_MEDIA_SETTINGS } from "../../src/documents/media/settings.ts";

const page = (bytes: number[] | string, contentType: string) => {
  const body = typeof bytes === "string" ? new TextEncoder().encode(bytes) : new Uint8Array(bytes);
  return { requestedUrl: "http://x/v", finalUrl: "http://x/v", statusCode: 200, headers: {}, contentType, body, engine: "http" } as never;
};

describe("extractVideo", () => {
  test("MP4 by its bytes; Ogg when served as video; Ogg served as audio is not a video", async () => {
    const mp4 = await extractVideo({ page: page([0, 0, 0, 24, ..."ftypisom".split("").map((c) => c.charCodeAt(0)), 0, 0, 2, 0], "application/octet-stream"), timeoutMs: 1000 }, DEFAULT_MEDIA_SETTINGS);
    expect(mp4).toMatchObject({ contentType: "video/mp4", extension: "mp4" });
    const ogv = await extractVideo({ page: page("OggS\u0000\u0002theora-ish", "video/ogg"), timeoutMs: 1000 }, DEFAULT_MEDIA_SETTINGS);
    expect(ogv).toMatchObject({ contentType: "video/ogg", extension: "ogv" });
    await expect(extractVideo({ page: page("OggS\u0000\u0002vorbis-ish", "audio/ogg"), timeoutMs: 1000 }, DEFAULT_MEDIA_SETTINGS)).rejects.toMatchObject({ code: "SCRAPE_VIDEO_UNSUPPORTED_URL" });
  });
});
