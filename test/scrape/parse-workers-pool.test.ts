/**
 * The parse-worker pool on its own (src/scrape/parse-workers/pool.ts): invalid sizes are refused and a closed or
 * empty pool refuses work instead of hanging; a worker takes a second page only behind a small one; a large page
 * always goes to a worker, queued behind others, and one whose deadline passes while it waits leaves the worker be.
 */
import { describe, expect, test } from "bun:test";
import { createParsePool, ParseTimeoutError, ParseWorkerError } from "../../src/scrape/parse-workers/pool.ts";
import type { ViewOptions } from "../../src/scrape/parse-workers/protocol.ts";
import { rejectionOf } from "../helpers/settled.ts";

const VIEW_OPTIONS = { onlyMainContent: true, removeBase64Images: true } as ViewOptions;

describe("the pool", () => {
  test("rejects invalid sizes; a closed or empty pool refuses work instead of hanging", async () => {
    expect(() => createParsePool({ size: -1 })).toThrow(TypeError);
    const empty = createParsePool({ size: 0 });
    expect(empty.shouldOffload(10_000_000, 5)).toBe(false);
    await expect(empty.compute({ html: "<p>x</p>", pageUrl: "http://x/", contentType: "text/html", options: VIEW_OPTIONS, views: ["markdown"] })).rejects.toBeInstanceOf(ParseWorkerError);
    const pool = createParsePool({ size: 1, largePageChars: 0 });
    expect(pool.shouldOffload(10, 0)).toBe(true);
    const views = await pool.compute({ html: "<html><head><title>T</title></head><body><main><h1>Hi</h1><p>Some words here.</p></main></body></html>", pageUrl: "http://x/", contentType: "text/html", options: VIEW_OPTIONS, views: ["metadata", "markdown"] });
    expect(views.metadata).toMatchObject({ title: "T" });
    expect(views.markdown).toContain("# Hi");
    await pool.close();
    expect(pool.shouldOffload(10_000_000, 5)).toBe(false);
    await expect(pool.compute({ html: "", pageUrl: "http://x/", contentType: "text/html", options: VIEW_OPTIONS, views: [] })).rejects.toBeInstanceOf(ParseWorkerError);
  });

  test("a worker takes a second page only behind a small one", async () => {
    const pool = createParsePool({ size: 1, largePageChars: 1000, queueBehindMaxChars: 1000 });
    const small = { html: "<p>small</p>", pageUrl: "http://x/", contentType: "text/html", options: VIEW_OPTIONS, views: ["markdown" as const] };
    const large = { ...small, html: `<p>${"large ".repeat(400)}</p>` };
    const first = pool.compute(large);
    expect(pool.shouldOffload(10, 1)).toBe(false); // queued behind a large page: parse on the main thread instead
    await first;
    const a = pool.compute(small);
    expect(pool.shouldOffload(10, 1)).toBe(true);
    const b = pool.compute(small);
    expect(pool.shouldOffload(10, 1)).toBe(false); // two jobs: full
    await Promise.all([a, b]);
    expect(pool.stats()).toMatchObject({ offloaded: 3, live: 1 });
    await pool.close();
  });

  test("a large page always goes to a worker, queued behind others; one that times out waiting leaves the worker be", async () => {
    const pool = createParsePool({ size: 1, largePageChars: 1000, queueBehindMaxChars: 1000 });
    const large = { html: `<main><p>${"large ".repeat(400)}</p></main>`, pageUrl: "http://x/", contentType: "text/html", options: VIEW_OPTIONS, views: ["markdown" as const] };
    const first = pool.compute(large);
    // Parsed on the main thread it would hold every other request: it waits for the busy worker instead.
    expect(pool.shouldOffload(large.html.length, 0)).toBe(true);
    expect(pool.shouldOffload(10, 1)).toBe(false); // a small page still does not wait behind a large one
    const second = pool.compute(large);
    const third = pool.compute(large, Date.now()); // its deadline passes while it waits
    await expect(third).rejects.toBeInstanceOf(ParseTimeoutError);
    expect((await first).markdown).toContain("large large");
    expect((await second).markdown).toContain("large large");
    // Its timing out left the worker be; the worker was stopped only when the page it would start on next was that
    // one, which nobody waited for any more.
    expect(pool.stats()).toMatchObject({ live: 0, timedOut: 1, failed: 0 });
    await pool.close();
  });
});

/** A map page of 300,000 links: ~0.5 s of parsing on a worker, long enough to be seen busy. */
const BIG_MAP_PAGE = `<html><body>${Array.from({ length: 300_000 }, (_, i) => `<a href="/p/${i}">l</a>`).join("")}</body></html>`;
const SMALL_PAGE = { html: "<html><head><title>s</title></head><body><p>hi</p></body></html>", pageUrl: "http://x/", contentType: "text/html", options: VIEW_OPTIONS, views: ["metadata" as const] };

describe("a page given up", () => {
  test("while it waits stays on its worker's books: no small page is put behind it; a large one is not parsed for nobody", async () => {
    const pool = createParsePool({ size: 1 });
    try {
      const first = pool.readMapPage!({ html: BIG_MAP_PAGE, pageUrl: "http://x/" });
      const stop = new AbortController();
      const ghost = pool.readMapPage!({ html: BIG_MAP_PAGE, pageUrl: "http://x/" }, undefined, stop.signal);
      stop.abort(new Error("the map answered"));
      await expect(ghost).rejects.toThrow("the map answered"); // told at once
      // The page given up still holds its place behind the first (before, the worker looked free, and a small page
      // put behind the ghost was blamed for its time: ParseTimeoutError, worker stopped).
      expect(pool.hasIdleWorker!()).toBe(false);
      await expect(pool.compute(SMALL_PAGE, Date.now() + 60_000)).rejects.toBeInstanceOf(ParseWorkerError); // no room: main thread
      await first;
      // The ghost was next: a large page nobody waits for, which no deadline would stop any more, so its worker was
      // stopped as it answered the first (before, it went on parsing it, ~0.5 s here, 10.6 s for a `:has()` chain).
      expect(pool.stats()).toMatchObject({ live: 0, offloaded: 1, timedOut: 0, failed: 0 });
      expect((await pool.compute(SMALL_PAGE, Date.now() + 60_000)).metadata).toMatchObject({ title: "s" });
      expect(pool.stats()).toMatchObject({ live: 1, offloaded: 2, timedOut: 0, failed: 0 });
    } finally {
      await pool.close();
    }
  }, 60_000);

  test("at its deadline, with the page ahead of it stopped at the same time, is timed out, not moved to a fresh worker", async () => {
    const warnings: string[] = [];
    const pool = createParsePool({ size: 1, onWorkerError: (m) => warnings.push(m) });
    try {
      const at = Date.now() + 300;
      const parsing = rejectionOf(pool.readMapPage!({ html: BIG_MAP_PAGE, pageUrl: "http://x/" }, at));
      const waiting = rejectionOf(pool.readMapPage!({ html: BIG_MAP_PAGE, pageUrl: "http://x/" }, at + 5));
      expect((await parsing).message).toContain("still being parsed at its deadline");
      // Before: moved to a fresh worker, stopped again by its own timer 5 ms later ("being parsed", a second warning).
      expect((await waiting).message).toContain("still waiting for a parse worker at its deadline");
      expect(pool.stats()).toMatchObject({ live: 0, timedOut: 2, failed: 0 });
      expect(warnings).toHaveLength(1);
    } finally {
      await pool.close();
    }
  }, 60_000);

  test("while it is parsed stops its worker; the pages waiting behind it go to a fresh worker, not the main thread", async () => {
    const warnings: string[] = [];
    const pool = createParsePool({ size: 1, onWorkerError: (m) => warnings.push(m) });
    try {
      const stop = new AbortController();
      const map = pool.readMapPage!({ html: BIG_MAP_PAGE, pageUrl: "http://x/" }, undefined, stop.signal);
      const selectorPage = { ...SMALL_PAGE, html: `<html><body>${"<div>x</div>".repeat(50)}</body></html>`, options: { ...VIEW_OPTIONS, includeTags: ["div:has(~ div)"], excludeTags: [] }, views: ["markdown" as const] };
      const behind = pool.compute(selectorPage, Date.now() + 60_000);
      stop.abort(new Error("the map answered"));
      await expect(map).rejects.toThrow("the map answered");
      // Before: rejected with ParseWorkerError, and offload.ts ran the caller's selectors on the main thread.
      expect((await behind).markdown).toContain("x");
      expect(pool.stats()).toMatchObject({ live: 1, offloaded: 1, failed: 0, timedOut: 0 });
      expect(warnings).toEqual([]); // stopping a worker for a caller that gave up is no warning
    } finally {
      await pool.close();
    }
  }, 60_000);
});
