/**
 * `rawBase64` and crawlbox's page cache: a copy the browser made (another format's scrape with `waitFor`, or of a
 * JavaScript shell) is the page's DOM re-serialised, not the bytes the server sent. Before, a `rawBase64` request with
 * a `maxAge` got that copy, with a warning; now it passes over it and fetches the bytes (scrape/page-source.ts), leaves
 * the copy in the cache for the other formats, and does not cache a shell's bytes for them either. Only `lockdown`,
 * which allows nothing but the cache, still gets the browser's copy (with the warning). Real Chromium, a local
 * fixture server.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Harness } from "../helpers/harness.ts";
import { browserHarness, closeAndAssertNoChromium, scrape } from "./helpers.ts";

/** A windows-1252 page (`é` is the one byte 0xE9) whose script rewrites its text: the DOM differs from the bytes. */
const PAGE_1252 = Buffer.from(
  `<html><head><title>Caf\xe9</title></head><body><p id="p">${"Caf\xe9 cr\xe8me as served. ".repeat(10)}</p>` +
    `<script>document.getElementById("p").textContent = "changed by script";</script></body></html>`,
  "latin1",
);
/** A JavaScript shell: an empty mount point its script fills (the router renders it for every format but rawBase64). */
const SHELL = Buffer.from(
  `<html><head><title>Shell</title></head><body><div id="root"></div>` +
    `<script>document.getElementById("root").innerHTML = "<h1>Rendered shell</h1><p>${"Filled in by the script. ".repeat(10)}</p>";</script></body></html>`,
);
/** An hour: every copy made in this file is fresh enough. */
const MAX_AGE_MS = 3_600_000;

let server: ReturnType<typeof Bun.serve>;
let base: string;
let h: Harness;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/page") return new Response(PAGE_1252, { headers: { "content-type": "text/html; charset=windows-1252" } });
      if (path === "/shell") return new Response(SHELL, { headers: { "content-type": "text/html; charset=utf-8" } });
      return new Response("not found", { status: 404 });
    },
  });
  base = server.url.href.replace(/\/$/, "");
  h = await browserHarness();
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  server.stop(true);
});

const decoded = (body: { data: { rawBase64: string } }) => new Uint8Array(Buffer.from(body.data.rawBase64, "base64"));

test("a waitFor page cached by the browser: rawBase64 with a maxAge gets the bytes served, not the cached DOM", async () => {
  const url = `${base}/page?case=waitfor`;
  const md = await scrape(h, { url, formats: ["markdown"], waitFor: 100, maxAge: MAX_AGE_MS });
  expect([md.body.data.metadata.engine, md.body.data.metadata.cacheState]).toEqual(["browser", "miss"]);
  const raw = await scrape(h, { url, formats: ["rawBase64"], waitFor: 100, maxAge: MAX_AGE_MS });
  expect(raw.status).toBe(200);
  expect(raw.body.data.metadata.cacheState).toBe("miss");
  expect(decoded(raw.body)).toEqual(new Uint8Array(PAGE_1252));
  expect(raw.body.data.warning).toBeUndefined();
  // The browser's copy is still there for the other formats.
  const again = await scrape(h, { url, formats: ["markdown"], waitFor: 100, maxAge: MAX_AGE_MS });
  expect([again.body.data.metadata.engine, again.body.data.metadata.cacheState]).toEqual(["browser", "hit"]);
  expect(again.body.data.markdown).toContain("changed by script");
  // lockdown allows only the cache: the browser's copy, said to be the DOM.
  const locked = await scrape(h, { url, formats: ["rawBase64"], waitFor: 100, lockdown: true });
  expect([locked.status, locked.body.data.metadata.cacheState]).toEqual([200, "hit"]);
  expect(new TextDecoder().decode(decoded(locked.body))).toContain("changed by script");
  expect(locked.body.data.warning).toContain("not the bytes it fetched");
  expect(locked.body.data.warning).toContain("minAge and lockdown");
}, 60_000);

test("a JavaScript shell rendered and cached for markdown: rawBase64 gets its bytes, markdown keeps the rendered copy", async () => {
  const url = `${base}/shell?case=rendered-first`;
  const md = await scrape(h, { url, formats: ["markdown"], maxAge: MAX_AGE_MS });
  expect(md.body.data.metadata.engine).toBe("browser");
  expect(md.body.data.markdown).toContain("Rendered shell");
  const raw = await scrape(h, { url, formats: ["rawBase64"], maxAge: MAX_AGE_MS });
  expect([raw.status, raw.body.data.metadata.engine, raw.body.data.metadata.cacheState]).toEqual([200, "http", "miss"]);
  expect(decoded(raw.body)).toEqual(new Uint8Array(SHELL));
  expect(raw.body.data.warning).toBeUndefined();
  const again = await scrape(h, { url, formats: ["markdown"], maxAge: MAX_AGE_MS });
  expect([again.body.data.metadata.engine, again.body.data.metadata.cacheState]).toEqual(["browser", "hit"]);
  expect(again.body.data.markdown).toContain("Rendered shell");
}, 60_000);

test("a JavaScript shell fetched for rawBase64 first: its bytes are not cached as the page markdown then reads", async () => {
  const url = `${base}/shell?case=bytes-first`;
  const raw = await scrape(h, { url, formats: ["rawBase64"], maxAge: MAX_AGE_MS });
  expect([raw.body.data.metadata.engine, raw.body.data.metadata.cacheState]).toEqual(["http", "miss"]);
  expect(decoded(raw.body)).toEqual(new Uint8Array(SHELL));
  // Before: a cache hit on the shell's bytes, an empty page's markdown from the HTTP engine.
  const md = await scrape(h, { url, formats: ["markdown"], maxAge: MAX_AGE_MS });
  expect([md.body.data.metadata.engine, md.body.data.metadata.cacheState]).toEqual(["browser", "miss"]);
  expect(md.body.data.markdown).toContain("Rendered shell");
}, 60_000);

test("a page the HTTP engine served and cached: rawBase64 is still answered from the cache", async () => {
  const url = `${base}/page?case=http`;
  const md = await scrape(h, { url, formats: ["markdown"], maxAge: MAX_AGE_MS });
  expect([md.body.data.metadata.engine, md.body.data.metadata.cacheState]).toEqual(["http", "miss"]);
  const raw = await scrape(h, { url, formats: ["rawBase64"], maxAge: MAX_AGE_MS });
  expect([raw.body.data.metadata.engine, raw.body.data.metadata.cacheState]).toEqual(["http", "hit"]);
  expect(decoded(raw.body)).toEqual(new Uint8Array(PAGE_1252));
  expect(raw.body.data.warning).toBeUndefined();
}, 60_000);
