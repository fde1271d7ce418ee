/**
 * @module documents/media/within-scrape
 * Runs a media format's work (the `audio` and `video` formats: a download, ffmpeg) inside its scrape: it ends with
 * the scrape's deadline or the client's abort, not after them, and a deadline that passes is the scrape's 408.
 */
import { ScrapeTimeoutError } from "../../errors.ts";
import type { RenderContext } from "../../scrape/renderer.ts";
import type { AudioSource } from "./extract-audio.ts";

/** Calls `work` with the page as a media source, bounded by `ctx`'s scrape; returns what it returns. */
export async function withinScrape<T>(ctx: RenderContext, work: (source: AudioSource, signal: AbortSignal) => Promise<T>): Promise<T> {
  const left = ctx.run ? Math.max(1, ctx.run.deadline - Date.now()) : ctx.spec.timeoutMs;
  const deadline = AbortSignal.timeout(left);
  const signal = ctx.run?.signal ? AbortSignal.any([deadline, ctx.run.signal]) : deadline;
  const source: AudioSource = { page: ctx.page, dom: () => ctx.originalDom(), baseUrl: () => ctx.baseUrl(), timeoutMs: Math.min(ctx.spec.timeoutMs, left) };
  return work(source, signal).catch((err: unknown) => {
    if (deadline.aborted) throw new ScrapeTimeoutError(ctx.spec.timeoutMs);
    throw err;
  });
}
