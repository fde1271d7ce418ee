/**
 * @module documents/media/extract-video
 * The `video` format's work: the page's primary video file, as served (no transcoding): the page itself when it is
 * a video, else the first `<video>` source (or `og:video`) its HTML names, fetched through the egress gate within
 * the media size limit (`CRAWLBOX_MAX_MEDIA_BYTES`). Anything that is not a video is upstream's
 * `SCRAPE_VIDEO_UNSUPPORTED_URL`.
 */
import type { Page } from "../../engines/types.ts";
import { detectKind } from "../detect.ts";
import { MediaTooLargeError, VideoUnsupportedError } from "../errors.ts";
import type { AudioSource } from "./extract-audio.ts";
import { findMediaUrl } from "./find-media.ts";
import type { MediaSettings } from "./settings.ts";

/** A video file to store. */
export interface VideoFile {
  bytes: Uint8Array;
  contentType: string;
  extension: string;
}

/** The container a video's bytes are (by their signature), with its MIME type and file extension. */
function videoTypeOf(bytes: Uint8Array, contentType: string): { contentType: string; extension: string } {
  const head = String.fromCharCode(...bytes.subarray(0, 12));
  if (head.slice(4, 8) === "ftyp") return head.slice(8, 10) === "qt" ? { contentType: "video/quicktime", extension: "mov" } : { contentType: "video/mp4", extension: "mp4" };
  if (bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) return contentType.includes("matroska") ? { contentType: "video/x-matroska", extension: "mkv" } : { contentType: "video/webm", extension: "webm" };
  if (head.startsWith("OggS")) return { contentType: "video/ogg", extension: "ogv" };
  return { contentType: contentType || "application/octet-stream", extension: "bin" };
}

/** Whether `page` is a video: by its bytes, or an Ogg stream served as `video/*` (Ogg's signature says only "Ogg"). */
function isVideo(page: Page): boolean {
  const kind = detectKind(page);
  if (kind === "video") return true;
  const b = page.body;
  return page.contentType.startsWith("video/") && b[0] === 0x4f && b[1] === 0x67 && b[2] === 0x67 && b[3] === 0x53;
}

/** Gets the primary video of `source.page`; throws `SCRAPE_VIDEO_UNSUPPORTED_URL` when there is none. */
export async function extractVideo(source: AudioSource, settings: MediaSettings, signal?: AbortSignal): Promise<VideoFile> {
  let media: Page = source.page;
  if (!isVideo(media)) {
    if (media.text === undefined || !source.dom) throw new VideoUnsupportedError(`the URL serves ${media.contentType || "an unknown type"}, not a video`);
    const url = findMediaUrl(source.dom(), source.baseUrl?.() ?? media.finalUrl, ["video"])?.url;
    if (!url) throw new VideoUnsupportedError("the page has no <video> element with a playable source, nor an og:video");
    if (!settings.fetch) throw new VideoUnsupportedError("fetching media is not available in this process");
    media = await settings.fetch(url, settings.maxBytes, source.timeoutMs, signal);
    if (media.statusCode >= 400) throw new VideoUnsupportedError(`the video URL answered HTTP ${media.statusCode}`);
    if (!isVideo(media)) throw new VideoUnsupportedError(`the video URL serves ${media.contentType || "an unknown type"}`);
  }
  if (media.body.byteLength > settings.maxBytes) throw new MediaTooLargeError("size", settings.maxBytes, "bytes");
  return { bytes: media.body, ...videoTypeOf(media.body, media.contentType) };
}
