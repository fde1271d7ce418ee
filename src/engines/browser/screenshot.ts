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
 * Before a full page is captured, a page taller than its viewport is scrolled through ({@link scrollThrough}), so that
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
import { isContextLost, isolatedRealm, readAcrossNavigation, readyStateOf, untilDeadline } from "./page-reads.ts";

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

/** A page's size for a full-page capture, in CSS pixels, and its pixel ratio. */
interface FullPageSize {
  /** The document's or its body's scroll height, the larger. */
  height: number;
  /** The viewport's width (`innerWidth`). */
  width: number;
  /** The viewport's height (`innerHeight`). */
  viewportHeight: number;
  /** `devicePixelRatio`. */
  ratio: number;
  /** Where the page is scrolled to (`scrollX`, `scrollY`). */
  scrollX: number;
  scrollY: number;
}

/**
 * The page's {@link FullPageSize}, read in crawlbox's isolated world: numbers only, anything else 0 (a ratio 1).
 */
async function fullPageSize(page: Page): Promise<FullPageSize> {
  return await isolatedRealm(page).evaluate(() => {
    const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0);
    return {
      height: Math.max(num(document.documentElement?.scrollHeight), num(document.body?.scrollHeight)),
      width: num(window.innerWidth),
      viewportHeight: num(window.innerHeight),
      ratio: num(window.devicePixelRatio) || 1,
      scrollX: num(window.scrollX),
      scrollY: num(window.scrollY),
    };
  });
}

/** Longest time a full page is scrolled through before its capture ({@link scrollThrough}). */
export const FULL_PAGE_SCROLL_MAX_MS = 2_000;

/** Longest wait, after the scroll, for the images it started loading. */
export const FULL_PAGE_IMAGE_WAIT_MS = 1_500;

/**
 * Most steps of the scroll, a viewport each: a page taller than that many viewports is scrolled through its first
 * 41 viewports only (a step larger than the viewport would leave gaps that nothing scrolled into view).
 */
export const FULL_PAGE_SCROLL_MAX_STEPS = 40;

/** Longest wait for a rendering step after each step of the scroll (frames may be throttled). */
const SCROLL_STEP_WAIT_MS = 100;

/** Least time kept back from the deadline for the capture ({@link captureReserveMs}). */
const CAPTURE_RESERVE_MS = 1_000;

/**
 * Time a capture may take per megapixel of the picture once the scroll has loaded its images: a 1920 × 16384 PNG
 * (31 MP) of grey boxes took 0.4 s, of pictures (noise, as photographs are to PNG) 3.4 to 4.6 s on two busy cores.
 */
const CAPTURE_MS_PER_MEGAPIXEL = 130;

/**
 * Time kept back from the deadline for the capture of a picture of `megapixels`: a scroll that would eat into it is
 * shortened or skipped. The capture is what the scroll makes slow: a scroll of a third of a second loaded every image
 * of a 30-viewport page, whose capture then took 3.5 s, so one second kept back turned a scrape that answered 200 in
 * 1.3 s (grey boxes) into `SCRAPE_TIMEOUT` at `timeout` 2000 to 5000.
 */
function captureReserveMs(megapixels: number): number {
  return Math.max(CAPTURE_RESERVE_MS, Math.ceil(megapixels * CAPTURE_MS_PER_MEGAPIXEL));
}

/**
 * Share of the time left (less the capture's reserve) the scroll may take at most: the rest is the capture's margin,
 * whose time the reserve only estimates.
 */
const SCROLL_SHARE_OF_TIME_LEFT = 0.5;

/** Time after the scroll's own budget until the page is taken for one that does not answer ({@link scrollThrough}). */
const SCROLL_ANSWER_GRACE_MS = 2 * SCROLL_STEP_WAIT_MS + 500;

/**
 * What {@link scrollThrough} did: nothing (no time for it, or it failed), scrolled through and back to the top (with
 * the page's size after it), or no answer in time (the page may be left scrolled anywhere).
 */
type ScrollOutcome = { kind: "skipped" } | { kind: "scrolled"; size: FullPageSize } | { kind: "unanswered" };

/**
 * Scrolls the page down through its first `maxCssHeight` px a viewport at a time (a rendering step after each, where
 * Chromium computes IntersectionObserver entries, native `loading="lazy"` included), waits for the images it started
 * loading in that part, then goes back to the top, where the picture is taken (a fixed or sticky header is drawn
 * there, once, and scroll-dependent states are a visitor's first). Bounded by {@link FULL_PAGE_SCROLL_MAX_STEPS}
 * steps, {@link FULL_PAGE_SCROLL_MAX_MS} of scrolling and {@link FULL_PAGE_IMAGE_WAIT_MS} of waiting, all within
 * {@link SCROLL_SHARE_OF_TIME_LEFT} of the time left before `deadline` less `reserveMs` (the capture's,
 * {@link captureReserveMs}), by the page's own timers and, for a page whose thread does not answer, from here. Run in
 * crawlbox's isolated world, which shares the page's DOM and scroll but not its JavaScript. "skipped" when there was
 * no time for it (or it failed), "unanswered" when the page did not answer in time: the page is captured as it is.
 *
 * The scroll's time is counted in the page from wall-clock instants set here (`Date.now()`, one clock for both
 * processes), not from when the page began it: a page whose thread was stuck when it was asked begins late, and then
 * has only what is left of the budget. When the bound here gives up (the page did not answer within the budget and
 * {@link SCROLL_ANSWER_GRACE_MS}), the capture goes on without the scroll; the page's scroll, if it ever runs on, sees
 * that its time is over and stops without scrolling again (it does not go back to the top under the capture, nor undo
 * where the capture put a scroll action's position back).
 */
async function scrollThrough(page: Page, maxCssHeight: number, deadline: number, reserveMs: number): Promise<ScrollOutcome> {
  const leftMs = deadline - performance.now();
  const budgetMs = Math.min(FULL_PAGE_SCROLL_MAX_MS + FULL_PAGE_IMAGE_WAIT_MS, (leftMs - reserveMs) * SCROLL_SHARE_OF_TIME_LEFT);
  if (budgetMs < SCROLL_STEP_WAIT_MS) return { kind: "skipped" };
  const now = Date.now();
  const scroll = isolatedRealm(page).evaluate(
    async (limit: number, endAt: number, giveUpAt: number, scrollMs: number, imageMs: number, maxSteps: number, stepWaitMs: number) => {
      const started = performance.now();
      // Time left of `capMs` since the page began, and of the budget set by crawlbox (endAt, wall clock): whichever is less.
      const left = (capMs: number) => Math.max(0, Math.min(capMs - (performance.now() - started), endAt - Date.now()));
      // Past it crawlbox no longer waits for this and captures the page as it is: the scroll is left alone.
      const abandoned = () => Date.now() >= giveUpAt;
      // A rendering step, and a task after it: the step computes the intersections at this scroll position (and
      // dispatches scroll events); the next scroll must come after it, not in the same frame.
      const frame = (ms: number) =>
        new Promise<void>((done) => {
          const timer = setTimeout(done, ms);
          requestAnimationFrame(() => setTimeout(() => (clearTimeout(timer), done()), 0));
        });
      const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0);
      const pageHeight = () => Math.max(num(document.documentElement?.scrollHeight), num(document.body?.scrollHeight));
      const viewport = Math.max(1, num(window.innerHeight));
      // "instant": a page's `scroll-behavior: smooth` would otherwise leave each step under way.
      const to = (top: number) => window.scrollTo({ left: 0, top, behavior: "instant" });
      // A viewport at a time, never more: a larger step (a 40th of a page over 40 viewports) left gaps that nothing
      // scrolled into view.
      let y = 0;
      for (let i = 0; i < maxSteps && y + viewport < Math.min(limit, pageHeight()) && left(scrollMs) > 0; i++) {
        y += viewport;
        to(y);
        await frame(Math.min(stepWaitMs, left(scrollMs)));
      }
      // Images that started loading in the part scrolled through and are drawn; one never started (display: none,
      // below the part seen) is not waited for.
      const seen = y + viewport;
      const pending = Array.from(document.images).filter((img) => {
        if (img.complete || img.getClientRects().length === 0) return false;
        return img.getBoundingClientRect().top + window.scrollY < seen;
      });
      const imageWait = Math.min(imageMs, left(scrollMs + imageMs));
      if (pending.length > 0 && imageWait > 0) {
        const loaded = pending.map(
          (img) =>
            new Promise<void>((done) => {
              img.addEventListener("load", () => done(), { once: true });
              img.addEventListener("error", () => done(), { once: true });
              if (img.complete) done();
            }),
        );
        await Promise.race([Promise.all(loaded), new Promise<void>((done) => setTimeout(done, imageWait))]);
      }
      if (abandoned()) return null;
      to(0);
      await frame(stepWaitMs);
      return {
        height: pageHeight(),
        width: num(window.innerWidth),
        viewportHeight: num(window.innerHeight),
        ratio: num(window.devicePixelRatio) || 1,
        scrollX: num(window.scrollX),
        scrollY: num(window.scrollY),
      };
    },
    maxCssHeight,
    now + Math.floor(budgetMs),
    now + Math.floor(budgetMs) + SCROLL_ANSWER_GRACE_MS - SCROLL_STEP_WAIT_MS,
    FULL_PAGE_SCROLL_MAX_MS,
    FULL_PAGE_IMAGE_WAIT_MS,
    FULL_PAGE_SCROLL_MAX_STEPS,
    SCROLL_STEP_WAIT_MS,
  );
  // A page that navigated under it is read again (page-reads.ts); any other failure leaves the page as it is.
  const settled = scroll.then(
    (size): ScrollOutcome => (size ? { kind: "scrolled", size } : { kind: "unanswered" }),
    (err: unknown): ScrollOutcome => {
      if (isContextLost(err)) throw err;
      return { kind: "skipped" };
    },
  );
  // The page's timers bound it; a page whose thread is stuck answers late or never: bounded from here too.
  return await untilDeadline(settled, performance.now() + budgetMs + SCROLL_ANSWER_GRACE_MS, { kind: "unanswered" } as ScrollOutcome);
}

/** Scrolls the page back to where it was before {@link scrollThrough}; a page gone or busy is left as it is. */
async function scrollBack(page: Page, x: number, y: number): Promise<void> {
  const back = isolatedRealm(page)
    .evaluate((left: number, top: number) => window.scrollTo({ left, top, behavior: "instant" }), x, y)
    .catch(() => {});
  await untilDeadline(back, performance.now() + 500, undefined);
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
