/**
 * A full-page screenshot is as wide as the viewport, whatever the page's scroll width (docs/browser.md, "at most
 * 1920 × 16384 device pixels in all"): puppeteer's `fullPage` captured the whole scroll width, and a page 8000 px wide
 * and 12000 px tall came back as an 8000 × 12000 PNG (96 MP; Chromium grew by about 2.9 GB). Real Chromium, a local
 * fixture server; small pages (5000 × 2000) show the width rule without the memory.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Harness } from "../helpers/harness.ts";
import { browserHarness, closeAndAssertNoChromium, fetchFile, htmlPage, imageSize, scrape } from "./helpers.ts";

let server: ReturnType<typeof Bun.serve>;
let base: string;
let h: Harness;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const url = new URL(req.url);
      if (url.pathname !== "/wide") return new Response("not found", { status: 404 });
      const [w, hgt] = [Number(url.searchParams.get("w")), Number(url.searchParams.get("h"))];
      return htmlPage(`<div style="width:${w}px;height:${hgt}px;background:linear-gradient(45deg,red,blue)">wide and tall</div>`, `<style>body{margin:0}</style>`);
    },
  });
  base = server.url.href.replace(/\/$/, "");
  h = await browserHarness();
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  server.stop(true);
});

const sizeOf = async (url: string) => imageSize(new Uint8Array(await (await fetchFile(h, url)).arrayBuffer()));

test("the screenshot format's full page of a page wider than the viewport is as wide as the viewport, as tall as the page", async () => {
  const { status, body } = await scrape(h, { url: `${base}/wide?w=5000&h=2000`, formats: [{ type: "screenshot", fullPage: true }], maxAge: 0 });
  expect(status).toBe(200);
  expect(await sizeOf(body.data.screenshot)).toEqual({ width: 1920, height: 2000, type: "png" });
  expect(body.data.warning).toBeUndefined();
}, 60_000);

test("with the format's viewport, the picture is that viewport's width", async () => {
  const { status, body } = await scrape(h, {
    url: `${base}/wide?w=3000&h=1500`,
    formats: [{ type: "screenshot", fullPage: true, quality: 50, viewport: { width: 800, height: 600 } }],
    maxAge: 0,
  });
  expect(status).toBe(200);
  expect(await sizeOf(body.data.screenshot)).toEqual({ width: 800, height: 1500, type: "jpeg" });
}, 60_000);

test("a full-page screenshot action on a wide page is as wide as the viewport too", async () => {
  const { status, body } = await scrape(h, { url: `${base}/wide?w=4000&h=1200`, actions: [{ type: "screenshot", fullPage: true }], maxAge: 0 });
  expect(status).toBe(200);
  expect(await sizeOf(body.data.actions.screenshots[0])).toEqual({ width: 1920, height: 1200, type: "png" });
}, 60_000);
