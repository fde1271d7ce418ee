/**
 * @module documents/media/extract-audio
 * The `audio` format's work: get the page's primary media file (the page itself when it is audio or video,
 * else the media its HTML points to, fetched through the egress gate), then extract the first audio track as
 * MP3 with ffmpeg when it is installed, or return the audio file as served when it is not. Limits: size
 * (`CRAWLBOX_MAX_MEDIA_BYTES`) and duration (`CRAWLBOX_MAX_MEDIA_SECONDS`, read from ffmpeg's probe).
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "../../engines/types.ts";
import { detectKind } from "../detect.ts";
import { AudioUnsupportedError, MediaTooLargeError } from "../errors.ts";
import { findMediaUrl } from "./find-media.ts";
import type { MediaSettings } from "./settings.ts";

/** An extracted audio file. */
export interface AudioFile {
  bytes: Uint8Array;
  contentType: string;
  extension: string;
}

const AUDIO_TYPES: Record<string, { contentType: string; extension: string }> = {
  mp3: { contentType: "audio/mpeg", extension: "mp3" },
  wav: { contentType: "audio/wav", extension: "wav" },
  ogg: { contentType: "audio/ogg", extension: "ogg" },
  flac: { contentType: "audio/flac", extension: "flac" },
  m4a: { contentType: "audio/mp4", extension: "m4a" },
};

function audioTypeOf(bytes: Uint8Array, contentType: string): { contentType: string; extension: string } {
  const a = String.fromCharCode(...bytes.subarray(0, 12));
  if (a.startsWith("ID3") || (bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0)) return AUDIO_TYPES.mp3!;
  if (a.startsWith("RIFF") && a.slice(8, 12) === "WAVE") return AUDIO_TYPES.wav!;
  if (a.startsWith("OggS")) return AUDIO_TYPES.ogg!;
  if (a.startsWith("fLaC")) return AUDIO_TYPES.flac!;
  if (a.slice(4, 8) === "ftyp") return AUDIO_TYPES.m4a!;
  return { contentType: contentType || "application/octet-stream", extension: "bin" };
}

/** Media duration in seconds from ffmpeg's banner (`Duration: 00:01:02.50`), if it says. */
export function parseDuration(stderr: string): number | undefined {
  const m = /Duration:\s*(\d+):(\d{2}):(\d{2}(?:\.\d+)?)/.exec(stderr);
  return m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) : undefined;
}

/**
 * The container formats ffmpeg may read a downloaded file as, and only from that file. Without this, ffmpeg picks
 * the format from the bytes, and a site could serve an HLS playlist (or a concat or DASH manifest) as `audio/mpeg`
 * whose entries are `file:///…` paths on this server: ffmpeg would read them, outside the egress gate, and the
 * "audio" of the answer would be a local recording (found in a security review). None of these formats refers to
 * other files (mov's external references are off by default in ffmpeg).
 */
const MEDIA_DEMUXERS = "mp3,aac,wav,flac,ogg,matroska,mov,avi,asf,flv,mpegts,mpeg,aiff,caf,amr,au,w64,wv,ape,ac3,eac3,dts,truehd,loas,tta";
/** ffmpeg input options: the file itself and nothing else. */
const INPUT_GUARDS = ["-protocol_whitelist", "file", "-format_whitelist", MEDIA_DEMUXERS];

async function runFfmpeg(ffmpeg: string, input: Uint8Array, maxSeconds: number, signal?: AbortSignal): Promise<Uint8Array> {
  const dir = await mkdtemp(join(tmpdir(), "crawlbox-audio-"));
  try {
    const inPath = join(dir, "input");
    const outPath = join(dir, "audio.mp3");
    await writeFile(inPath, input);
    const probe = Bun.spawn([ffmpeg, "-hide_banner", "-nostdin", ...INPUT_GUARDS, "-i", inPath], { stdout: "ignore", stderr: "pipe", signal });
    const probeErr = await new Response(probe.stderr).text();
    await probe.exited;
    const duration = parseDuration(probeErr);
    if (duration !== undefined && duration > maxSeconds) throw new MediaTooLargeError("duration", maxSeconds, "seconds");
    if (!/Stream #\d+:\d+.*: Audio:/.test(probeErr)) throw new AudioUnsupportedError("the media has no audio track");
    const proc = Bun.spawn(
      [ffmpeg, "-hide_banner", "-nostdin", "-loglevel", "error", ...INPUT_GUARDS, "-i", inPath, "-map", "0:a:0", "-vn", "-t", String(maxSeconds), "-codec:a", "libmp3lame", "-q:a", "4", "-f", "mp3", "-y", outPath],
      { stdout: "ignore", stderr: "pipe", signal },
    );
    const err = await new Response(proc.stderr).text();
    if ((await proc.exited) !== 0) throw new AudioUnsupportedError(`ffmpeg could not extract the audio track: ${err.trim().split("\n").pop() ?? "unknown error"}`);
    return new Uint8Array(await readFile(outPath));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Input for {@link extractAudio}. */
export interface AudioSource {
  page: Page;
  /** The page's DOM and base URL, for HTML pages. */
  dom?: () => Document;
  baseUrl?: () => string;
  timeoutMs: number;
}

/** Extracts the primary audio of `source.page`; throws `SCRAPE_AUDIO_UNSUPPORTED_URL` when there is none. */
export async function extractAudio(source: AudioSource, settings: MediaSettings, signal?: AbortSignal): Promise<AudioFile> {
  let media: Page = source.page;
  let kind = detectKind(media);
  if (kind !== "audio" && kind !== "video") {
    if (media.text === undefined || !source.dom) throw new AudioUnsupportedError(`the URL serves ${media.contentType || "an unknown type"}, not audio or video`);
    const found = findMediaUrl(source.dom(), source.baseUrl?.() ?? media.finalUrl);
    if (!found) throw new AudioUnsupportedError("the page has no <audio> or <video> element with a playable source");
    if (!settings.fetch) throw new AudioUnsupportedError("fetching media is not available in this process");
    media = await settings.fetch(found.url, settings.maxBytes, source.timeoutMs, signal);
    if (media.statusCode >= 400) throw new AudioUnsupportedError(`the media URL answered HTTP ${media.statusCode}`);
    kind = detectKind(media);
    if (kind !== "audio" && kind !== "video") throw new AudioUnsupportedError(`the media URL serves ${media.contentType || "an unknown type"}`);
  }
  if (media.body.byteLength > settings.maxBytes) throw new MediaTooLargeError("size", settings.maxBytes, "bytes");
  if (settings.ffmpegPath) {
    const mp3 = await runFfmpeg(settings.ffmpegPath, media.body, settings.maxSeconds, signal);
    return { bytes: mp3, contentType: "audio/mpeg", extension: "mp3" };
  }
  if (kind === "video") throw new AudioUnsupportedError("extracting the audio track of a video needs ffmpeg, which is not installed");
  return { bytes: media.body, ...audioTypeOf(media.body, media.contentType) };
}
