/**
 * @module engines/browser/screenshot
 * Screenshots of the page, for the `screenshot` format and the `screenshot` action: PNG, or JPEG when a quality is
 * given; of the viewport, or of the whole page cut to a bounded bitmap ({@link maxFullPageCssHeight}).
 *
 * A `viewport` (the action's) changes only the width and height of the page's device, for that picture: the
 * device's pixel ratio, phone mode and touch stay (a phone stays a phone), and the size the page had is restored
 * after it, so later actions and the format's screenshot see the page as they would have without it.
 *
 * A full page is measured in crawlbox's isolated world (page-reads.ts), where the page cannot redefine `scrollHeight`
 * (a page that said 0 was captured whole, and Chromium refused it). The picture is always a clip as wide as the
 * viewport (never the page's scroll width: a page 8000 px wide gave an 8000-px-wide bitmap, and one wider than
 * Chromium captures was refused with "Page is too large") and as tall as the page, cut to the bounded height.
 */
import type { CDPSession, Page } from "puppeteer-core";
import { isolatedRealm, readAcrossNavigation, readyStateOf, untilDeadline } from "./page-reads.ts";

/**
 * Tallest full-page screenshot taken, in device pixels (CSS pixels × devicePixelRatio): Chromium refuses very tall
 * captures outright ("Page is too large"), and 16384 is also a common texture limit.
 */
export const FULL_PAGE_MAX_HEIGHT_PX = 16_384;

/**
 * Largest full-page bitmap, in device pixels (width × height): 1920 × 16384, about 120 MB of RGBA. The height is cut
 * to stay within it, so a wide viewport gets a shorter picture, not a larger bitmap (a 7680-px-wide page cut at
 * 16384 rows made Chromium grow by about 2.3 GB).
 */
export const FULL_PAGE_MAX_AREA_PX = 1_920 * FULL_PAGE_MAX_HEIGHT_PX;

/** What the page's device is (the emulation applied to it), so a screenshot's `viewport` can keep all but its size. */
export interface DeviceMetrics {
  width: number;
  height: number;
  deviceScaleFactor: number;
  mobile: boolean;
}

/** The page's device and the CDP session it was emulated through (engines/browser/emulation.ts). */
export interface DeviceControl {
  session: CDPSession;
  metrics: DeviceMetrics;
}

/** Options of {@link takeScreenshot}. */
export interface ScreenshotOptions {
  /** The whole page, as wide as the viewport and cut to {@link maxFullPageCssHeight}, rather than the viewport. @default false */
  fullPage?: boolean;
  /** JPEG quality; PNG when absent. */
  quality?: number;
  /** Size of the viewport for this picture only (CSS pixels). */
  viewport?: { width: number; height: number };
  /**
   * The page's device: with it, `viewport` keeps the device's pixel ratio and phone mode. Without it (a page whose
   * device puppeteer set), puppeteer's `setViewport` is used.
   */
  device?: DeviceControl;
  /** `performance.now()` time until which a read the page's navigation interrupted is made again. @default now + 5 s */
  deadline?: number;
}

/** A screenshot; `clippedAtPx`: a full page cut at that height, in CSS pixels. */
export interface Screenshot {
  bytes: Uint8Array;
  contentType: string;
  clippedAtPx?: number;
}

/** Default time a screenshot without a deadline retries reads across a navigation. */
const DEFAULT_READ_RETRY_MS = 5_000;

/**
 * Tallest full page captured, in CSS pixels, for a viewport `cssWidth` wide at `ratio` device pixels per CSS pixel:
 * within both {@link FULL_PAGE_MAX_HEIGHT_PX} rows and {@link FULL_PAGE_MAX_AREA_PX} pixels.
 */
export function maxFullPageCssHeight(cssWidth: number, ratio: number): number {
  const byRows = FULL_PAGE_MAX_HEIGHT_PX / ratio;
  const byArea = FULL_PAGE_MAX_AREA_PX / (Math.max(1, cssWidth) * ratio * ratio);
  return Math.max(1, Math.floor(Math.min(byRows, byArea)));
}

/** Takes a screenshot of `page` (see the module comment). */
export async function takeScreenshot(page: Page, o: ScreenshotOptions): Promise<Screenshot> {
  const deadline = o.deadline ?? performance.now() + DEFAULT_READ_RETRY_MS;
  if (!o.viewport) return await capture(page, o, deadline);
  if (!o.device) {
    const current = page.viewport();
    await page.setViewport({ ...(current ?? { deviceScaleFactor: 1 }), width: o.viewport.width, height: o.viewport.height });
    return await capture(page, o, deadline);
  }
  const { session, metrics } = o.device;
  await setMetrics(session, { ...metrics, width: o.viewport.width, height: o.viewport.height });
  try {
    return await capture(page, o, deadline);
  } finally {
    await setMetrics(session, metrics).catch(() => {}); // the page may be gone (a crash): nothing to restore then
  }
}

async function capture(page: Page, o: ScreenshotOptions, deadline: number): Promise<Screenshot> {
  const jpeg = o.quality !== undefined;
  const type = jpeg ? ("jpeg" as const) : ("png" as const);
  const quality = jpeg ? { quality: o.quality } : {};
  return await readAcrossNavigation(
    page,
    () => untilLaidOut(deadline, async () => {
      const contentType = jpeg ? "image/jpeg" : "image/png";
      if (!o.fullPage) return { bytes: new Uint8Array(await page.screenshot({ type, ...quality, captureBeyondViewport: false })), contentType };
      // Always a clip as wide as the viewport: puppeteer's `fullPage` captures the whole scroll width, and an 8000-px-wide
      // page came back 8000 × 12000 (96 MP; Chromium grew by about 2.9 GB), past the documented 1920 × 16384.
      const size = await fullPageSize(page);
      // No layout yet (a document just replaced): puppeteer's own words for it, so that untilLaidOut tries again.
      if (size.width === 0 || size.height === 0) throw new Error(`Cannot take screenshot with 0 ${size.width === 0 ? "width" : "height"}.`);
      const maxCssHeight = maxFullPageCssHeight(size.width, size.ratio);
      const cut = size.height > maxCssHeight;
      const clip = { x: 0, y: 0, width: size.width, height: cut ? maxCssHeight : size.height };
      const bytes = new Uint8Array(await page.screenshot({ type, ...quality, clip, captureBeyondViewport: true }));
      return cut ? { bytes, contentType, clippedAtPx: clip.height } : { bytes, contentType };
    }),
    deadline,
  );
}

/** puppeteer's refusal of a full-page capture while the page has no layout yet (a document just replaced). */
const NOT_LAID_OUT = /Cannot take screenshot with 0 (?:width|height)/;

/**
 * `capture()`, tried again every 100 ms while the page has no layout yet, until the deadline: a page that reloads
 * itself is, for a moment after each reload, 0 pixels wide, and a full-page screenshot then failed the scrape (500).
 */
export async function untilLaidOut<T>(deadline: number, capture: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await capture();
    } catch (err) {
      if (!NOT_LAID_OUT.test(err instanceof Error ? err.message : String(err)) || performance.now() + 100 >= deadline) throw err;
      await Bun.sleep(100);
    }
  }
}

/**
 * The page's height (the document's or its body's scroll height, the larger), its viewport's width and its pixel
 * ratio, in CSS pixels, read in crawlbox's isolated world: numbers only, anything else 0 (a ratio 1).
 */
async function fullPageSize(page: Page): Promise<{ height: number; width: number; ratio: number }> {
  return await isolatedRealm(page).evaluate(() => {
    const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0);
    return {
      height: Math.max(num(document.documentElement?.scrollHeight), num(document.body?.scrollHeight)),
      width: num(window.innerWidth),
      ratio: num(window.devicePixelRatio) || 1,
    };
  });
}

/** Sets the page's device metrics (its screen the same size as its viewport, as emulation.ts does). */
async function setMetrics(session: CDPSession, m: DeviceMetrics): Promise<void> {
  await session.send("Emulation.setDeviceMetricsOverride", {
    width: m.width,
    height: m.height,
    deviceScaleFactor: m.deviceScaleFactor,
    mobile: m.mobile,
    screenWidth: m.width,
    screenHeight: m.height,
  });
}

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
