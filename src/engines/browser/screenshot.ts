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
 *
 * Before a full page is captured, a page taller than its viewport is scrolled through (full-page-scroll.ts), so that
 * what loads as it comes into view (`loading="lazy"` images, IntersectionObserver loaders) is in the picture: it
 * was grey (firecrawl/firecrawl#3384 is the same complaint upstream, whose capture is Playwright's `fullPage`).
 *
 * Pictures are in CSS pixels, a phone's too (412 px wide, not its 1082 device pixels): a picture is as large as the
 * `viewport` asked for (at most 7680 × 4320), never that times the phone's 2.625 (20160 × 11340, 228 MP), and a full
 * page cut at {@link FULL_PAGE_MAX_HEIGHT_PX} rows holds 16384 px of the page, not 6241. A full page with the page's
 * device (`device`) is captured through the CDP session that emulates it: captured through puppeteer's own session,
 * Chromium dropped the emulation for the capture and after it (a phone became a desktop at ratio 1 for the rest of
 * the scrape, a page without `<meta viewport>` 412 px wide instead of 980), and the picture, in CSS pixels, was cut
 * as if in device pixels (at 6241 px).
 */
import type { CDPSession, Page } from "puppeteer-core";
import { captureReserveMs, fullPageSize, scrollBack, scrollThrough, type ScrollOutcome } from "./full-page-scroll.ts";
import { readAcrossNavigation } from "./page-reads.ts";

/**
 * Tallest full-page screenshot taken, in the picture's pixels (CSS pixels, see the module comment): Chromium refuses
 * very tall captures outright ("Page is too large"), and 16384 is also a common texture limit.
 */
export const FULL_PAGE_MAX_HEIGHT_PX = 16_384;

/**
 * Largest full-page bitmap, in the picture's pixels (width × height): 1920 × 16384, about 120 MB of RGBA. The height
 * is cut to stay within it, so a wide viewport gets a shorter picture, not a larger bitmap (a 7680-px-wide page cut at
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
   * The page's device: with it, `viewport` keeps the device's pixel ratio and phone mode, and a full page is captured
   * through its session, in CSS pixels. Without it (a page whose device puppeteer set), puppeteer's `setViewport`
   * and capture are used.
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
 * Tallest full page captured, in CSS pixels, for a viewport `cssWidth` wide at `ratio` picture pixels per CSS pixel:
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
      let size = await fullPageSize(page);
      // No layout yet (a document just replaced): puppeteer's own words for it, so that untilLaidOut tries again.
      if (size.width === 0 || size.height === 0) throw new Error(`Cannot take screenshot with 0 ${size.width === 0 ? "width" : "height"}.`);
      // Picture pixels per CSS pixel: 1 through the device's session (the clip's scale undoes its ratio); puppeteer's
      // capture of a page whose device puppeteer set is in its device pixels.
      const pictureRatio = o.device ? 1 : size.ratio;
      const from = { x: size.scrollX, y: size.scrollY };
      let scroll: ScrollOutcome = { kind: "skipped" };
      if (size.height > size.viewportHeight) {
        const maxHeight = maxFullPageCssHeight(size.width, pictureRatio);
        const pictureMegapixels = (size.width * Math.min(size.height, maxHeight) * pictureRatio ** 2) / 1e6;
        scroll = await scrollThrough(page, maxHeight, deadline, captureReserveMs(pictureMegapixels));
        if (scroll.kind === "scrolled") size = scroll.size;
      }
      if (size.width === 0 || size.height === 0) throw new Error(`Cannot take screenshot with 0 ${size.width === 0 ? "width" : "height"}.`);
      const maxCssHeight = maxFullPageCssHeight(size.width, pictureRatio);
      const cut = size.height > maxCssHeight;
      const clip = { x: 0, y: 0, width: size.width, height: cut ? maxCssHeight : size.height };
      let bytes: Uint8Array;
      try {
        bytes = o.device
          ? await captureThrough(o.device.session, { format: type, ...quality, clip: { ...clip, scale: 1 / size.ratio } })
          : new Uint8Array(await page.screenshot({ type, ...quality, clip, captureBeyondViewport: true }));
      } finally {
        // Where a scroll action (or the page) had left it: later actions go on from there. A scroll ends at the top; one
        // that did not answer in time may have stopped anywhere.
        if (scroll.kind === "unanswered" || (scroll.kind === "scrolled" && (from.x !== 0 || from.y !== 0))) await scrollBack(page, from.x, from.y);
      }
      return cut ? { bytes, contentType, clippedAtPx: clip.height } : { bytes, contentType };
    }),
    deadline,
  );
}

/** A full page captured through `session` (the one that emulates the page's device), beyond the viewport. */
async function captureThrough(
  session: CDPSession,
  o: { format: "png" | "jpeg"; quality?: number; clip: { x: number; y: number; width: number; height: number; scale: number } },
): Promise<Uint8Array> {
  const { data } = await session.send("Page.captureScreenshot", {
    format: o.format,
    ...(o.quality !== undefined ? { quality: Math.round(o.quality) } : {}),
    clip: o.clip,
    captureBeyondViewport: true,
  });
  return new Uint8Array(Buffer.from(data, "base64"));
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
