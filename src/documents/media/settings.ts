/**
 * @module documents/media/settings
 * Settings of the `audio` format: limits, the ffmpeg executable, and how to fetch a page's media file (through
 * the egress gate). The server builds them from its configuration and hands them to the format's factory
 * (plugins/formats/audio.ts), so two servers in one process (tests) never share them.
 */
import type { Page } from "../../engines/types.ts";

/** What the `audio` format needs from the server. */
export interface MediaSettings {
  /** ffmpeg executable; undefined = not installed (the original audio stream is returned). */
  ffmpegPath?: string;
  /** Largest media file read, in bytes. */
  maxBytes: number;
  /** Longest media extracted, in seconds (checked when ffmpeg can tell the duration). */
  maxSeconds: number;
  /** Fetches a media URL (through the egress gate) with at most `maxBytes` of body. */
  fetch?(url: string, maxBytes: number, timeoutMs: number, signal?: AbortSignal): Promise<Page>;
}

/** Defaults when the server passes nothing: 100 MiB, 4 hours, ffmpeg from PATH, direct media URLs only. */
export const DEFAULT_MEDIA_SETTINGS: MediaSettings = { maxBytes: 100 * 1024 * 1024, maxSeconds: 14_400 };

/** Finds ffmpeg: the configured path, else `ffmpeg` on PATH; undefined when absent. */
export function findFfmpeg(configured: string): string | undefined {
  if (configured) return configured;
  return Bun.which("ffmpeg") ?? undefined;
}
