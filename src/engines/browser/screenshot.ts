/**
 * @module engines/browser/screenshot
 * Screenshots of the page, for the `screenshot` format and the `screenshot` action: PNG, or JPEG when a quality is
 * given; of the viewport, or of the whole page cut to a bounded bitmap ({@link maxFullPageCssHeight}).
 *
 * A `viewport` (the action's) changes only the width and height of the page's device, for that picture: the
 * device's pixel ratio, phone mode and touch stay (a phone stays a phone), and the size the page had is restored
 * after it, so later actions and the format's screenshot see the page as they would have without it.
 */
import type { CDPSession, Page } from "puppeteer-core";
import { readAcrossNavigation } from "./page-reads.ts";

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
  /** The whole page (cut to {@link maxFullPageCssHeight}) rather than the viewport. @default false */
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
    async () => {
      let clip: { x: number; y: number; width: number; height: number } | undefined;
      if (o.fullPage) {
        const size = await page.evaluate(() => {
          const d = document.documentElement;
          return { height: Math.max(d.scrollHeight, document.body?.scrollHeight ?? 0), width: window.innerWidth, ratio: window.devicePixelRatio || 1 };
        });
        const maxCssHeight = maxFullPageCssHeight(size.width, size.ratio);
        if (size.height > maxCssHeight) clip = { x: 0, y: 0, width: size.width, height: maxCssHeight };
      }
      const bytes = clip
        ? await page.screenshot({ type, ...quality, clip, captureBeyondViewport: true })
        : await page.screenshot({ type, ...quality, fullPage: o.fullPage ?? false, captureBeyondViewport: o.fullPage ?? false });
      return { bytes: new Uint8Array(bytes), contentType: jpeg ? "image/jpeg" : "image/png", ...(clip ? { clippedAtPx: clip.height } : {}) };
    },
    deadline,
  );
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
