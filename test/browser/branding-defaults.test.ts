/**
 * The `branding` format does not report the browser's defaults as the brand: a page with no CSS got
 * `fonts: [{family: "Times New Roman"}]` and `textPrimary: #000000` (Chromium's), against "a field the page gives no
 * evidence for is left out" (docs/browser.md). A page that sets black text and Times itself keeps them. Real
 * Chromium on local fixture pages, and the derivation as a unit (src/branding/evidence.ts).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { BrandingSnapshot, StyleSample } from "../../src/engines/browser/branding.ts";
import { deriveBranding } from "../../src/branding/derive.ts";
import type { Harness } from "../helpers/harness.ts";
import { browserHarness, closeAndAssertNoChromium, htmlPage, scrape } from "./helpers.ts";

const TEXT = `<h1>Plain page</h1><p>${"Just a paragraph of ordinary text. ".repeat(8)}</p><a href="/x">a link</a>`;

let server: ReturnType<typeof Bun.serve>;
let base: string;
let h: Harness;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      switch (new URL(req.url).pathname) {
        case "/no-css":
          return htmlPage(TEXT);
        case "/explicit":
          return htmlPage(TEXT, `<style>body { color: #000000; font-family: "Times New Roman", serif; }</style>`);
        case "/inline":
          return new Response(`<!doctype html><html><body style="color: black; font-family: 'Times New Roman'">${TEXT}</body></html>`, { headers: { "content-type": "text/html" } });
        default:
          return new Response("not found", { status: 404 });
      }
    },
  });
  base = server.url.href.replace(/\/$/, "");
  h = await browserHarness();
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  server.stop(true);
});

test("a page without CSS gets no fonts, text or link colours, sizes or spacing from the browser's defaults; one that sets black text and Times itself keeps them", async () => {
  const { status, body } = await scrape(h, { url: `${base}/no-css`, formats: ["branding"], maxAge: 0 });
  expect(status).toBe(200);
  const b = body.data.branding;
  // The background is documented as white when the page sets none.
  expect(b.colors).toEqual({ background: "#FFFFFF" });
  expect(b.fonts).toEqual([]);
  expect(b.typography).toEqual({ fontFamilies: {}, fontStacks: {}, fontSizes: {}, fontWeights: {}, lineHeights: {} });
  expect(b.spacing).toEqual({ padding: {}, margins: {} });
  expect(b.components).toEqual({});
  for (const path of ["/explicit", "/inline"]) {
    const own = (await scrape(h, { url: `${base}${path}`, formats: ["branding"], maxAge: 0 })).body.data.branding;
    expect([path, own.colors.textPrimary, own.fonts, own.typography.fontFamilies.primary]).toEqual([path, "#000000", [{ family: "Times New Roman", role: "primary" }], "Times New Roman"]);
  }
}, 60_000);

test("derivation: values of properties the page sets nowhere are left out; an unknown list keeps them all", () => {
  const sample = (over: Partial<StyleSample>): StyleSample => ({
    kind: "text", tag: "p", hints: "", color: "#000000", background: "", borderColor: "", borderRadius: "0px", boxShadow: "none",
    fontFamily: '"Times New Roman"', fontSize: 16, fontWeight: 400, lineHeight: null, padding: [0, 0, 0, 0], margin: [16, 16], area: 1000, textLength: 200, ...over,
  });
  const snapshot: BrandingSnapshot = {
    url: "https://plain.test/", title: "Plain", bodyBackground: "", rootBackground: "", bodyColor: "#000000", colorSchemeProperty: "normal",
    cssVars: {}, samples: [sample({}), sample({ kind: "link", tag: "a", color: "#0000EE" })], logos: [],
  };
  const unknown = deriveBranding(snapshot);
  expect(unknown.colors).toMatchObject({ textPrimary: "#000000", link: "#0000EE", primary: "#0000EE" });
  expect(unknown.fonts).toEqual([{ family: "Times New Roman", role: "primary" }]);
  const none = deriveBranding({ ...snapshot, declaredProperties: [] });
  expect(none.colors).toEqual({ background: "#FFFFFF" });
  expect(none.fonts).toEqual([]);
  expect(none.typography.fontSizes).toEqual({});
  expect(none.spacing.margins).toEqual({});
  // Colour set somewhere, font family nowhere: the colours stay, the font does not.
  const colourOnly = deriveBranding({ ...snapshot, declaredProperties: ["color"] });
  expect(colourOnly.colors).toMatchObject({ textPrimary: "#000000", link: "#0000EE" });
  expect(colourOnly.fonts).toEqual([]);
});
