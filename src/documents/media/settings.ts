/**
 * @module documents/media/settings
 * Settings of the `audio` format: limits, the ffmpeg executable, and how to fetch a page's media file (through
 * the egress gate). Format plugins are plain objects registered once and have no constructor arguments, so the
 * server installs these settings when it builds its parser registry (plugins/parsers/index.ts); the last server
 * built in a process wins, which is what a process running one server needs.
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

let current: MediaSettings = { maxBytes: 100 * 1024 * 1024, maxSeconds: 14_400 };

/** Installs the media settings of this process's server. */
export function configureMedia(settings: MediaSettings): void {
  current = settings;
}

/** The media settings in force. */
export function mediaSettings(): MediaSettings {
  return current;
}

/** Finds ffmpeg: the configured path, else `ffmpeg` on PATH; undefined when absent. */
export function findFfmpeg(configured: string): string | undefined {
  if (configured) return configured;
  return Bun.which("ffmpeg") ?? undefined;
}
