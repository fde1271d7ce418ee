/**
 * Full-page screenshots show the whole page as a visitor would have seen it, and a phone's are in the phone's CSS
 * pixels throughout (engines/browser/screenshot.ts):
 * - what loads as it comes into view (`loading="lazy"` images, IntersectionObserver loaders) is in the picture: it was
 *   grey, since nothing scrolled the page before the capture;
 * - a fixed header is drawn once, at the top, and a page a scroll action moved is left where it was;
 * - `mobile: true`: the picture (CSS pixels) is cut at 16384 px, not at 6241 (16384 / 2.625, as if in device pixels),
 *   and the phone is still a phone after it (captured through puppeteer's own session, the page became a desktop at
 *   ratio 1 for the rest of the scrape).
 * - the formats do not depend on each other: the markdown, metadata and branding are the page's before the full page
 *   is scrolled through for its picture (an infinite feed grew, a scroll handler's pushState or navigation became
 *   the result);
 * - a short timeout still answers: the scroll takes at most half of what is left after the capture's share, which
 *   grows with the picture (a scroll that loads 30 viewports of pictures makes a capture of 3.5 s);
 * - a viewport under 410 px tall is scrolled a viewport at a time (a step of a 40th of the page left gaps);
 * - a page whose thread is stuck during the scroll: the capture goes on, and the page is put back where it was.
 * Real Chromium, a local fixture server.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { inflateSync } from "node:zlib";
import type { Harness } from "../helpers/harness.ts";
import { browserHarness, closeAndAssertNoChromium, fetchFile, htmlPage, imageSize, scrape, timedScrape } from "./helpers.ts";

/** Colours of the gallery's eight images: 1–4 `loading="lazy"`, 5–8 loaded by an IntersectionObserver. */
const COLOURS = ["#e11d48", "#2563eb", "#16a34a", "#f59e0b", "#7c3aed", "#0891b2", "#db2777", "#65a30d"];
/** The gallery: a 1400-px header, then the images, 500 px tall, one every 600 px, at x 0–800. */
const GALLERY_TOP = 1400;
const IMAGE_PITCH = 600;
/** Time each image takes to arrive: the capture waits for the images the scroll started. */
const IMAGE_DELAY_MS = 400;
/** Time each picture of noise takes to arrive (the 30-viewport page). */
const NOISE_DELAY_MS = 100;
/** Items the feed shows before it is scrolled, and how many its scroll handler adds at most. */
const FEED_FIRST = 6;
const FEED_MAX = 30;
/** A 20-px marker every 400 px, 340 px into each: between the windows a 300-px viewport moved 400 px at a time shows. */
const MARKERS = 30;
/** How long the busy page's scroll handler holds its thread: past the scroll's budget and the bound on its answer. */
const BUSY_MS = 5_000;

const META = `<meta name="viewport" content="width=device-width, initial-scale=1">`;

const PAGES: Record<string, () => Response> = {
  "/lazy": () =>
    htmlPage(
      `<div class="top">Scroll down for the gallery</div>` +
        COLOURS.slice(0, 4).map((_, i) => `<img loading="lazy" src="/img/${i}.svg" alt="native ${i}">`).join("") +
        COLOURS.slice(4).map((_, i) => `<img class="js-lazy" data-src="/img/${i + 4}.svg" alt="js ${i + 4}">`).join("") +
        `<script>const io = new IntersectionObserver((es) => es.forEach((e) => { if (e.isIntersecting) { e.target.src = e.target.dataset.src; io.unobserve(e.target); } }));
document.querySelectorAll(".js-lazy").forEach((i) => io.observe(i));</script>`,
      `<style>body{margin:0} .top{height:${GALLERY_TOP}px;background:#f3f4f6} img{display:block;width:800px;height:500px;margin:0 0 ${IMAGE_PITCH - 500}px;background:#dddddd}</style>`,
    ),
  "/fixed": () =>
    htmlPage(
      `<div class="bar">FIXED HEADER</div>${[1, 2, 3, 4].map((i) => `<div class="sec">Section ${i}</div>`).join("")}`,
      `<style>body{margin:0;padding-top:64px} .bar{position:fixed;top:0;left:0;right:0;height:64px;background:#dc2626;color:#fff;z-index:10} .sec{height:1000px;background:#ffffff}</style>`,
    ),
  "/short": () => htmlPage(`<h1>A short page</h1><p>Nothing below the fold.</p>`, `<style>body{margin:0}</style>`),
  "/tall": () =>
    htmlPage(
      Array.from({ length: 30 }, (_, i) => `<div style="height:1000px;background:hsl(${i * 12},70%,80%)">Band ${i + 1}</div>`).join(""),
      `${META}<style>body{margin:0}</style>`,
    ),
  "/tall-no-meta": () => htmlPage(`<div style="height:20000px;width:900px;background:#fde68a">a desktop-only page</div>`, `<style>body{margin:0}</style>`),
  "/feed": () =>
    htmlPage(
      `<h1>The feed</h1><div id="feed"></div><script>let n = 0; const feed = document.getElementById("feed");
const more = (k) => { for (let i = 0; i < k && n < ${FEED_MAX}; i++) { const p = document.createElement("p"); p.className = "item"; p.textContent = "Feed item " + ++n; feed.appendChild(p); } };
more(${FEED_FIRST});
addEventListener("scroll", () => { if (innerHeight + scrollY >= document.documentElement.scrollHeight - 400) more(6); });</script>`,
      `<style>body{margin:0} .item{height:400px;margin:0;background:#eef}</style>`,
    ),
  "/article-1": () =>
    new Response(
      `<!doctype html><html><head><title>Article one</title><style>body{margin:0}</style></head><body><h1>Article one</h1><p>The first article of a continuous stream. <a href="/article-0">The one before</a>.</p><div style="height:5000px"></div><script>let moved = false;
addEventListener("scroll", () => { if (!moved && scrollY > 1500) { moved = true; history.pushState({}, "", "/article-2"); document.title = "Article two"; } });</script></body></html>`,
      { headers: { "content-type": "text/html; charset=utf-8" } },
    ),
  "/leaves": () =>
    htmlPage(
      `<h1>A page that leaves</h1><p>Scrolling it takes you elsewhere.</p><div style="height:5000px"></div><script>let gone = false;
addEventListener("scroll", () => { if (!gone && scrollY > 1500) { gone = true; location.href = "/elsewhere"; } });</script>`,
      `<style>body{margin:0}</style>`,
    ),
  "/elsewhere": () => htmlPage(`<h1>Somewhere else</h1><p>Not the page asked for.</p>`),
  "/lazy-30": () =>
    htmlPage(
      Array.from({ length: 30 }, (_, i) => `<section><h2>Band ${i + 1}</h2><img loading="lazy" src="/noise/${i}.svg" alt="band ${i + 1}"></section>`).join(""),
      `<style>body{margin:0} section{height:1080px} img{display:block;width:1920px;height:1000px;background:#dddddd}</style>`,
    ),
  "/markers": () =>
    htmlPage(
      `<div style="height:16000px;position:relative">${Array.from({ length: MARKERS }, (_, k) => `<div class="marker" style="position:absolute;top:${400 * k + 340}px;height:20px;width:100px;background:#999"></div>`).join("")}</div>
<script>const io = new IntersectionObserver((es) => es.forEach((e) => { if (e.isIntersecting) e.target.classList.add("seen"); }));
document.querySelectorAll(".marker").forEach((m) => io.observe(m));</script>`,
      `<style>body{margin:0}</style>`,
    ),
  "/busy": () => htmlPage(`<div style="height:6000px;background:linear-gradient(#fff,#ccc)">A page that hangs when scrolled</div>`, `<style>body{margin:0}</style>`),
  "/huge": () => htmlPage(`<div style="width:8000px;height:40000px;background:linear-gradient(45deg,red,blue)">wide and tall</div>`, `${META}<style>body{margin:0}</style>`),
};

let server: ReturnType<typeof Bun.serve>;
let base: string;
let h: Harness;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const image = /^\/img\/(\d)\.svg$/.exec(path);
      if (image) {
        await Bun.sleep(IMAGE_DELAY_MS);
        const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="800" height="500"><rect width="800" height="500" fill="${COLOURS[Number(image[1])]}"/></svg>`;
        return new Response(svg, { headers: { "content-type": "image/svg+xml" } });
      }
      // A picture of noise: costly to draw and to encode, as photographs are (grey boxes cost nothing).
      const noise = /^\/noise\/(\d+)\.svg$/.exec(path);
      if (noise) {
        await Bun.sleep(NOISE_DELAY_MS);
        const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1920" height="1000"><filter id="n"><feTurbulence type="fractalNoise" baseFrequency="0.9" seed="${noise[1]}"/></filter><rect width="1920" height="1000" filter="url(#n)"/></svg>`;
        return new Response(svg, { headers: { "content-type": "image/svg+xml" } });
      }
      return PAGES[path]?.() ?? new Response("not found", { status: 404 });
    },
  });
  base = server.url.href.replace(/\/$/, "");
  h = await browserHarness();
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  server.stop(true);
});

const bytesOf = async (url: string) => new Uint8Array(await (await fetchFile(h, url)).arrayBuffer());

test("a full page shows images that load as they come into view, native lazy and IntersectionObserver alike", async () => {
  const { status, body } = await scrape(h, { url: `${base}/lazy`, formats: [{ type: "screenshot", fullPage: true }], maxAge: 0 });
  expect(status).toBe(200);
  const png = decodePng(await bytesOf(body.data.screenshot));
  expect([png.width, png.height]).toEqual([1920, GALLERY_TOP + COLOURS.length * IMAGE_PITCH]);
  const seen = COLOURS.map((_, i) => png.hex(400, GALLERY_TOP + i * IMAGE_PITCH + 250));
  expect(seen).toEqual(COLOURS);
}, 60_000);

test("a fixed header is drawn once, at the top; a page a scroll action moved is left where it was", async () => {
  const { status, body } = await scrape(h, {
    url: `${base}/fixed`,
    formats: [{ type: "screenshot", fullPage: true }],
    actions: [
      { type: "scroll", direction: "down" },
      { type: "executeJavascript", script: "scrollY" },
      { type: "screenshot", fullPage: true },
      { type: "executeJavascript", script: "scrollY" },
    ],
    maxAge: 0,
  });
  expect(status).toBe(200);
  const [before, after] = body.data.actions.javascriptReturns.map((r: { value: number }) => r.value);
  expect(before).toBeGreaterThan(0);
  expect(after).toBe(before);
  for (const url of [body.data.actions.screenshots[0], body.data.screenshot]) {
    const png = decodePng(await bytesOf(url));
    expect([png.width, png.height]).toEqual([1920, 4064]);
    // Red rows at x = 1900 (right of its text): the header's 64, once.
    const red: number[] = [];
    for (let y = 0; y < png.height; y++) if (png.hex(1900, y) === "#dc2626") red.push(y);
    expect([red.length, red[0], red.at(-1)]).toEqual([64, 0, 63]);
  }
}, 60_000);

test("mobile: a full page is in the phone's CSS pixels and cut at 16384 of them; a viewport is 412 × 915", async () => {
  const full = await scrape(h, { url: `${base}/tall`, mobile: true, formats: [{ type: "screenshot", fullPage: true }], maxAge: 0 });
  expect(full.status).toBe(200);
  expect(imageSize(await bytesOf(full.body.data.screenshot))).toEqual({ width: 412, height: 16384, type: "png" });
  expect(full.body.data.warning).toContain("cut at 16384 px");
  const view = await scrape(h, { url: `${base}/tall`, mobile: true, formats: [{ type: "screenshot", quality: 70 }], maxAge: 0 });
  expect(imageSize(await bytesOf(view.body.data.screenshot))).toEqual({ width: 412, height: 915, type: "jpeg" });
}, 60_000);

test("mobile: the phone is still a phone after a full-page screenshot, for later actions and the format's picture", async () => {
  const ENV = "[innerWidth, devicePixelRatio, matchMedia('(pointer: coarse)').matches]";
  const { status, body } = await scrape(h, {
    url: `${base}/tall-no-meta`,
    mobile: true,
    formats: [{ type: "screenshot", fullPage: true }],
    actions: [{ type: "executeJavascript", script: ENV }, { type: "screenshot", fullPage: true }, { type: "executeJavascript", script: ENV }],
    maxAge: 0,
  });
  expect(status).toBe(200);
  const [before, after] = body.data.actions.javascriptReturns.map((r: { value: unknown }) => r.value);
  // A page without <meta viewport> has a phone's 980-px layout viewport.
  expect(before).toEqual([981, 2.625, true]);
  expect(after).toEqual(before);
  // Both pictures the page's layout width, in CSS pixels, and as tall as the page.
  expect(imageSize(await bytesOf(body.data.actions.screenshots[0]))).toEqual({ width: 981, height: 16384, type: "png" });
  expect(imageSize(await bytesOf(body.data.screenshot))).toEqual({ width: 981, height: 16384, type: "png" });
}, 60_000);

test("mobile: a full page of a very wide, very tall page stays within 1920 × 16384 px in all", async () => {
  const { status, body } = await scrape(h, { url: `${base}/huge`, mobile: true, formats: [{ type: "screenshot", fullPage: true, quality: 50 }], maxAge: 0 });
  expect(status).toBe(200);
  const size = imageSize(await bytesOf(body.data.screenshot));
  expect(size.width * size.height).toBeLessThanOrEqual(1920 * 16384);
  expect(size.height).toBeLessThanOrEqual(16384);
  expect(body.data.warning).toMatch(/cut at \d+ px/);
}, 60_000);

test("a short page's full page is the page, and it is not scrolled", async () => {
  const { status, body } = await scrape(h, {
    url: `${base}/short`,
    formats: [{ type: "screenshot", fullPage: true }],
    actions: [{ type: "executeJavascript", script: "addEventListener('scroll', () => { window.scrolled = true }); 0" }, { type: "screenshot", fullPage: true }, { type: "executeJavascript", script: "window.scrolled === true" }],
    maxAge: 0,
  });
  expect(status).toBe(200);
  expect(body.data.actions.javascriptReturns[1].value).toBe(false);
  expect(imageSize(await bytesOf(body.data.screenshot))).toEqual({ width: 1920, height: 1080, type: "png" });
}, 60_000);

test("a full-page screenshot does not change the markdown, links, metadata or branding: an infinite feed, a pushState article, a page that navigates", async () => {
  for (const path of ["/feed", "/article-1", "/leaves"]) {
    const formats = ["markdown", "links", "branding"];
    const alone = await scrape(h, { url: `${base}${path}`, formats, maxAge: 0 });
    const withShot = await scrape(h, { url: `${base}${path}`, formats: [...formats, { type: "screenshot", fullPage: true }], maxAge: 0 });
    expect([path, alone.status, withShot.status]).toEqual([path, 200, 200]);
    expect([path, withShot.body.data.markdown, withShot.body.data.links]).toEqual([path, alone.body.data.markdown, alone.body.data.links]);
    expect([path, withShot.body.data.metadata.url, withShot.body.data.metadata.title]).toEqual([path, alone.body.data.metadata.url, alone.body.data.metadata.title]);
    expect([path, withShot.body.data.branding]).toEqual([path, alone.body.data.branding]);
    expect(withShot.body.data.screenshot).toBeString();
  }
  const feed = await scrape(h, { url: `${base}/feed`, formats: ["markdown", { type: "screenshot", fullPage: true }], maxAge: 0 });
  expect(String(feed.body.data.markdown).match(/Feed item \d+/g)?.length).toBe(FEED_FIRST);
  const article = await scrape(h, { url: `${base}/article-1`, formats: ["markdown", { type: "screenshot", fullPage: true }], maxAge: 0 });
  expect([article.body.data.metadata.url, article.body.data.metadata.title]).toEqual([`${base}/article-1`, "Article one"]);
  const leaves = await scrape(h, { url: `${base}/leaves`, formats: ["markdown", { type: "screenshot", fullPage: true }], maxAge: 0 });
  expect(leaves.body.data.markdown).toContain("A page that leaves");
  expect(leaves.body.data.metadata.url).toBe(`${base}/leaves`);
}, 120_000);

test("a short timeout still answers: a 30-viewport page of lazy pictures, full page, timeout 3000", async () => {
  // Without the scroll this answered in about 1.3 s (grey boxes); a scroll that loads the pictures makes the capture
  // take 3.5 s or more (a 64 MB PNG), so it is skipped when the time left would not hold that capture.
  const r = await timedScrape(h, { url: `${base}/lazy-30`, formats: ["markdown", { type: "screenshot", fullPage: true }], timeout: 3000, maxAge: 0 });
  expect([r.status, r.body.error]).toEqual([200, undefined]);
  expect(imageSize(await bytesOf(r.body.data.screenshot))).toEqual({ width: 1920, height: 16384, type: "png" });
  expect(r.ms).toBeLessThan(3000);
}, 60_000);

test("a viewport under 410 px tall is scrolled a viewport at a time: no gaps that nothing scrolled into view", async () => {
  const { status, body } = await scrape(h, {
    url: `${base}/markers`,
    actions: [{ type: "screenshot", fullPage: true, viewport: { width: 800, height: 300 } }, { type: "executeJavascript", script: "document.querySelectorAll('.seen').length" }],
    formats: ["markdown"],
    maxAge: 0,
  });
  expect(status).toBe(200);
  // 40 steps of 300 px reach 12300 px: the markers down to 11940 px.
  expect(body.data.actions.javascriptReturns[0].value).toBe(MARKERS);
}, 60_000);

test("a page whose thread hangs while it is scrolled: the capture goes on, and the page is left where a scroll put it", async () => {
  const hang = `addEventListener("scroll", () => { if (!window.hung) { window.hung = true; const t = Date.now(); while (Date.now() - t < ${BUSY_MS}) {} } }); scrollY`;
  const { status, body } = await scrape(h, {
    url: `${base}/busy`,
    actions: [
      { type: "executeJavascript", script: "scrollTo(0, 500); scrollY" },
      { type: "executeJavascript", script: hang },
      { type: "screenshot", fullPage: true },
      { type: "executeJavascript", script: "[window.hung === true, scrollY]" },
    ],
    formats: ["markdown"],
    maxAge: 0,
  });
  expect(status).toBe(200);
  expect(body.data.actions.javascriptReturns.map((r: { value: unknown }) => r.value)).toEqual([500, 500, [true, 500]]);
  expect(imageSize(await bytesOf(body.data.actions.screenshots[0]))).toEqual({ width: 1920, height: 6000, type: "png" });
}, 60_000);

/** A PNG's size and the colour of its pixels (8-bit RGB or RGBA, as Chromium writes them). */
function decodePng(bytes: Uint8Array): { width: number; height: number; hex(x: number, y: number): string } {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const width = dv.getUint32(16);
  const height = dv.getUint32(20);
  const channels = bytes[25] === 6 ? 4 : bytes[25] === 2 ? 3 : 0;
  if (channels === 0 || bytes[24] !== 8) throw new Error(`unsupported PNG (colour type ${bytes[25]}, depth ${bytes[24]})`);
  const chunks: Uint8Array[] = [];
  for (let at = 8; at < bytes.length; ) {
    const length = dv.getUint32(at);
    if (String.fromCharCode(...bytes.subarray(at + 4, at + 8)) === "IDAT") chunks.push(bytes.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(chunks));
  const stride = width * channels;
  const px = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = y * (stride + 1) + 1;
    for (let i = 0; i < stride; i++) {
      const left = i >= channels ? px[y * stride + i - channels]! : 0;
      const up = y > 0 ? px[(y - 1) * stride + i]! : 0;
      const upLeft = i >= channels && y > 0 ? px[(y - 1) * stride + i - channels]! : 0;
      const p = left + up - upLeft;
      const paeth = Math.abs(p - left) <= Math.abs(p - up) && Math.abs(p - left) <= Math.abs(p - upLeft) ? left : Math.abs(p - up) <= Math.abs(p - upLeft) ? up : upLeft;
      const predictor = [0, left, up, (left + up) >> 1, paeth][filter] ?? 0;
      px[y * stride + i] = (raw[line + i]! + predictor) & 0xff;
    }
  }
  const hex = (x: number, y: number) =>
    "#" + Array.from(px.subarray(y * stride + x * channels, y * stride + x * channels + 3), (v) => v.toString(16).padStart(2, "0")).join("");
  return { width, height, hex };
}
