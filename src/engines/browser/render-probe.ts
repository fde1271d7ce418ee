/**
 * @module engines/browser/render-probe
 * Whether Chromium renders a page at all, asked before a screenshot: Chromium answers `Page.captureScreenshot` only
 * with the page's next frame, and a page whose `<head>` waits for a script or stylesheet that never arrives never
 * draws one, so a capture of it waited until the scrape's or script's time ran out. The screenshot format, the
 * `screenshot` action and an interact script's screenshot ask {@link canCapture} first and leave the picture out.
 */
import type { Page } from "puppeteer-core";
import { isolatedRealm, readyStateOf, untilDeadline } from "./page-reads.ts";

/** Longest wait for an animation frame before a page is taken for one Chromium does not render. */
export const RENDER_PROBE_MS = 1_000;

/**
 * Whether Chromium renders `page` (an animation frame comes within `timeoutMs`), asked in crawlbox's isolated world
 * with the page's own timer as the bound, so nothing is left waiting. A page whose `<head>` still waits for a
 * script or stylesheet that never arrives is never rendered, and a screenshot of it waits for ever (Chromium answers
 * `Page.captureScreenshot` with the next frame): that scrape was a 408 with nothing. Asked only of a page that did not
 * finish loading. A read that fails (the page navigated) counts as rendering: the capture decides then.
 */
export async function rendersFrames(page: Page, timeoutMs = RENDER_PROBE_MS): Promise<boolean> {
  const probe = isolatedRealm(page)
    .evaluate(
      (ms: number) =>
        new Promise<boolean>((resolve) => {
          requestAnimationFrame(() => resolve(true));
          setTimeout(() => resolve(false), ms);
        }),
      Math.max(0, Math.floor(timeoutMs)),
    )
    .catch(() => true);
  // A page whose main thread is stuck never answers either: bounded from here too.
  return await untilDeadline(probe, performance.now() + timeoutMs + 500, false);
}

/** Time kept back from a render probe's deadline for what follows it (the capture, the rest of the scrape). */
const PROBE_MARGIN_MS = 200;

/**
 * Whether a screenshot of `page` can be taken: its document finished loading (`readyState` "complete"), or it did not
 * but Chromium renders it ({@link rendersFrames}, for {@link RENDER_PROBE_MS} at most, within `deadline` less a
 * margin). Chromium answers a capture of a page it does not render only with its next frame, so a `screenshot`
 * action or an interact script's screenshot of a page whose `<head>` waits for what never arrives waited until the
 * scrape's or script's time ran out: they ask this first and leave the picture out (a warning, or an error the script
 * can catch). A page that finished loading costs one round trip; one whose thread does not answer within the probe's
 * time is taken for one that does not render (a capture would wait on it too).
 */
export async function canCapture(page: Page, deadline: number): Promise<boolean> {
  const stateWaitMs = Math.min(RENDER_PROBE_MS, Math.max(50, deadline - performance.now()));
  const state = await untilDeadline(readyStateOf(page).catch(() => "unknown" as const), performance.now() + stateWaitMs, "stuck" as const);
  if (state === "complete") return true;
  if (state === "stuck") return false;
  return await rendersFrames(page, Math.min(RENDER_PROBE_MS, Math.max(0, deadline - performance.now() - PROBE_MARGIN_MS)));
}
