/**
 * `rawBase64` is "the fetched bytes, unparsed" (README) also when the browser is involved: a JavaScript shell is not
 * sent to the browser for it (its bytes are what is asked for), and a scrape that needs the browser anyway
 * (`waitFor`, `mobile`, `proxy: "enhanced"`) returns the main document's bytes as they arrived, not Chromium's
 * re-serialised DOM (UTF-8, after the page's scripts). Windows-1252 pages whose script rewrites their text show both
 * differences. Real Chromium, a local fixture server.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Harness } from "../helpers/harness.ts";
import { browserHarness, closeAndAssertNoChromium, scrape } from "./helpers.ts";

/** A windows-1252 page (`é` is the one byte 0xE9) whose script rewrites its text. */
const PAGE_1252 = Buffer.from(
  `<html><head><title>Caf\xe9</title></head><body><p id="p">${"Caf\xe9 cr\xe8me as served. ".repeat(10)}</p>` +
    `<script>document.getElementById("p").textContent = "changed by script";</script></body></html>`,
  "latin1",
);
/** A windows-1252 JavaScript shell: an empty mount point its script fills. */
const SHELL_1252 = Buffer.from(
  `<html><head><title>Caf\xe9</title></head><body><div id="root"></div>` +
    `<script>document.getElementById("root").innerHTML = "<h1>Rendered caf\\u00e9</h1><p>${"Filled in by the script. ".repeat(10)}</p>";</script></body></html>`,
  "latin1",
);
const UTF8 = new TextEncoder().encode(`<html><head><title>Café</title></head><body><p id="p">Café as served.</p><script>document.getElementById("p").textContent = "changed";</script></body></html>`);

let server: ReturnType<typeof Bun.serve>;
let base: string;
let h: Harness;

beforeAll(async () => {
  const cp1252 = { "content-type": "text/html; charset=windows-1252" };
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      switch (new URL(req.url).pathname) {
        case "/page":
          return new Response(PAGE_1252, { headers: cp1252 });
        case "/shell":
          return new Response(SHELL_1252, { headers: cp1252 });
        case "/no-store":
          return new Response(PAGE_1252, { headers: { ...cp1252, "cache-control": "no-store" } });
        case "/no-store-utf8":
          return new Response(UTF8, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });
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

const decoded = (body: { data: { rawBase64: string } }) => new Uint8Array(Buffer.from(body.data.rawBase64, "base64"));

test("a JavaScript shell: markdown goes to the browser, rawBase64 is the served bytes from the HTTP engine", async () => {
  const md = await scrape(h, { url: `${base}/shell`, formats: ["markdown"], maxAge: 0 });
  expect(md.body.data.metadata.engine).toBe("browser");
  expect(md.body.data.markdown).toContain("Rendered café");
  const { status, body } = await scrape(h, { url: `${base}/shell`, formats: ["rawBase64"], maxAge: 0 });
  expect(status).toBe(200);
  expect(decoded(body)).toEqual(new Uint8Array(SHELL_1252));
  expect(body.data.metadata.engine).toBe("http");
  expect(body.data.warning).toBeUndefined();
}, 60_000);

for (const option of [{ waitFor: 200 }, { mobile: true }, { proxy: "enhanced" }]) {
  test(`a scrape that needs the browser (${JSON.stringify(option)}): rawBase64 is the bytes served, not the DOM`, async () => {
    const { status, body } = await scrape(h, { url: `${base}/page`, formats: ["rawBase64"], maxAge: 0, ...option });
    expect(status).toBe(200);
    expect(body.data.metadata.engine).toBe("browser");
    expect(decoded(body)).toEqual(new Uint8Array(PAGE_1252));
    expect(body.data.warning).toBeUndefined();
  }, 60_000);
}

test("a page the browser does not cache: a UTF-8 page's bytes exactly; another charset's source as UTF-8, said so", async () => {
  const utf8 = await scrape(h, { url: `${base}/no-store-utf8`, formats: ["rawBase64"], maxAge: 0, waitFor: 100 });
  expect(utf8.body.data.metadata.engine).toBe("browser");
  expect(decoded(utf8.body)).toEqual(UTF8);
  expect(utf8.body.data.warning).toBeUndefined();
  const other = await scrape(h, { url: `${base}/no-store`, formats: ["rawBase64"], maxAge: 0, waitFor: 100 });
  expect(new TextDecoder().decode(decoded(other.body))).toBe(PAGE_1252.toString("latin1"));
  expect(other.body.data.warning).toContain("re-encoded from windows-1252 to UTF-8");
}, 60_000);

test("a browser's copy from the page cache (lockdown: the cache only) is said to be the DOM, not the fetched bytes", async () => {
  const url = `${base}/page?cached=1`;
  expect((await scrape(h, { url, formats: ["markdown"], waitFor: 100 })).body.data.metadata.engine).toBe("browser");
  const { body } = await scrape(h, { url, formats: ["rawBase64"], waitFor: 100, lockdown: true });
  expect(body.data.metadata.cacheState).toBe("hit");
  expect(body.data.warning).toContain("not the bytes it fetched");
}, 60_000);
