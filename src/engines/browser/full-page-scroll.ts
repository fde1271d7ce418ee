/**
 * @module engines/browser/full-page-scroll
 * A page's size for a full-page screenshot, and the scroll through it before the capture (screenshot.ts): what loads
 * as it comes into view (`loading="lazy"` images, IntersectionObserver loaders) was grey in the picture
 * (firecrawl/firecrawl#3384 is the same complaint upstream). Both run in crawlbox's isolated world (page-reads.ts),
 * which shares the page's DOM and scroll but not its JavaScript, so a page cannot redefine `scrollHeight` or
 * `scrollTo` under them; the scroll is bounded by steps, time and the capture's own reserve.
 */
import type { Page } from "puppeteer-core";
import { isContextLost, isolatedRealm, untilDeadline } from "./page-reads.ts";

/** A page's size for a full-page capture, in CSS pixels, and its pixel ratio. */
export interface FullPageSize {
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
export async function fullPageSize(page: Page): Promise<FullPageSize> {
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
export function captureReserveMs(megapixels: number): number {
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
export type ScrollOutcome = { kind: "skipped" } | { kind: "scrolled"; size: FullPageSize } | { kind: "unanswered" };

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
export async function scrollThrough(page: Page, maxCssHeight: number, deadline: number, reserveMs: number): Promise<ScrollOutcome> {
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
export async function scrollBack(page: Page, x: number, y: number): Promise<void> {
  const back = isolatedRealm(page)
    .evaluate((left: number, top: number) => window.scrollTo({ left, top, behavior: "instant" }), x, y)
    .catch(() => {});
  await untilDeadline(back, performance.now() + 500, undefined);
}
