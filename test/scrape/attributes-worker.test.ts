/**
 * The `attributes` format's selectors are the caller's, and some cost seconds on a small page: `div:has(~ div:has(~
 * span))` is cubic in the siblings (7.8 s on 1,000 sibling <div>, 11 kB; 184 s on 3,000). Matched on the main thread,
 * such a selector held every request of the server (`/health` too) for as long and ignored the scrape's `timeout`.
 * Now the values are a parsed view computed on a parse worker (scrape/parse-workers): the main thread keeps answering,
 * the scrape ends with the usual 408 at its `timeout` and its worker is stopped and replaced. The same holds beside a
 * format that reads the DOM itself (`product`), for `includeTags` there, and for a converted document (XLSX).
 * Ordinary selectors give the documents the main thread gives. Real workers, real HTTP.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { matchesCallerSelectors } from "../../src/scrape/parse-workers/pool.ts";
import { buildXlsx } from "../fixtures/documents/fixtures.ts";
import { startFixtureSite, type FixtureSite } from "../fixtures/site.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

/** Sibling <div> of the hostile page: the old code held the main thread ~8 s on it with the selector below. */
const SIBLINGS = 1_000;
const HOSTILE_SELECTOR = "div:has(~ div:has(~ span))";
const TIMEOUT_MS = 1_500;
/** How long the main thread may go without answering while a hostile selector runs. */
const RESPONSIVE_MS = 200;
const TICK_MS = 25;

const XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const SHEET_NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
/** A workbook whose first sheet has `rows` rows: a table of as many sibling <tr> once converted. */
const workbook = (rows: number) =>
  buildXlsx({ 1: `<worksheet ${SHEET_NS}><sheetData>${Array.from({ length: rows }, (_, i) => `<row r="${i + 1}"><c r="A${i + 1}" t="inlineStr"><is><t>row ${i}</t></is></c></row>`).join("")}</sheetData></worksheet>` });

let site: FixtureSite;
let hostile: ReturnType<typeof Bun.serve>;
let hostileUrl: string;
let inline: Harness;

beforeAll(async () => {
  site = startFixtureSite();
  const flat = `<html><head><title>Flat</title></head><body><div>${'<div data-n="1"></div>'.repeat(SIBLINGS)}</div></body></html>`;
  const sheets: Record<string, Uint8Array> = { "/big.xlsx": workbook(SIBLINGS), "/small.xlsx": workbook(6) };
  hostile = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => {
      const sheet = sheets[new URL(req.url).pathname];
      return sheet ? new Response(sheet as Uint8Array<ArrayBuffer>, { headers: { "content-type": XLSX_TYPE } }) : new Response(flat, { headers: { "content-type": "text/html" } });
    },
  });
  hostileUrl = `http://127.0.0.1:${hostile.port}`;
  inline = await createHarness({ parseWorkers: 0 });
});

afterAll(async () => {
  await inline.close();
  site.stop();
  hostile.stop(true);
});

async function scrape(h: Harness, body: Record<string, unknown>) {
  const res = await h.request("/v2/scrape", { method: "POST", json: { maxAge: 0, ...body } });
  return { status: res.status, body: (await res.json()) as any };
}

/** A document without what differs between two runs of the same scrape. */
function comparable(doc: any) {
  const { scrapeId, concurrencyLimited, concurrencyQueueDurationMs, ...metadata } = doc.metadata;
  return { ...doc, metadata };
}

/**
 * Runs `work` while the main thread is watched: the slowest `/health` answer (asked every {@link TICK_MS}) and the
 * longest a timer fired late. A selector matched on the main thread shows as seconds in both.
 */
async function watchingMainThread<T>(h: Harness, work: () => Promise<T>) {
  let done = false;
  let worstTimerLagMs = 0;
  let worstHealthMs = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worstTimerLagMs = Math.max(worstTimerLagMs, now - last - TICK_MS);
    last = now;
  }, TICK_MS);
  const probe = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await h.request("/health", { auth: null });
      worstHealthMs = Math.max(worstHealthMs, performance.now() - started);
      expect(res.status).toBe(200);
      await Bun.sleep(TICK_MS);
    }
  })();
  const started = performance.now();
  try {
    const value = await work();
    return { value, elapsedMs: performance.now() - started, worstTimerLagMs, worstHealthMs };
  } finally {
    done = true;
    clearInterval(timer);
    await probe;
  }
}

const attributes = (...selectors: [string, string][]) => ({ type: "attributes", selectors: selectors.map(([selector, attribute]) => ({ selector, attribute })) });

describe("a hostile selector runs on a parse worker, bounded by the scrape's timeout", () => {
  let workers: Harness;
  beforeAll(async () => {
    workers = await createHarness({ parseWorkers: 2 });
  });
  afterAll(async () => {
    await workers.close();
  });

  const CASES: [string, () => Record<string, unknown>][] = [
    ["the attributes format", () => ({ url: `${hostileUrl}/flat`, formats: [attributes([HOSTILE_SELECTOR, "data-n"])] })],
    ["the attributes format beside product (which reads the DOM itself)", () => ({ url: `${hostileUrl}/flat`, formats: [attributes([HOSTILE_SELECTOR, "data-n"]), "product"] })],
    ["includeTags beside product", () => ({ url: `${hostileUrl}/flat`, formats: ["markdown", "product"], includeTags: [HOSTILE_SELECTOR] })],
    ["the attributes format on a converted XLSX", () => ({ url: `${hostileUrl}/big.xlsx`, formats: [attributes(["tr:has(~ tr:has(~ span))", "id"])] })],
  ];
  for (const [name, body] of CASES) {
    test(`${name}: /health answers within ${RESPONSIVE_MS} ms meanwhile; a 408 at the timeout; the worker is replaced`, async () => {
      const before = workers.services.parseWorkers.stats().timedOut;
      const run = await watchingMainThread(workers, () => scrape(workers, { ...body(), timeout: TIMEOUT_MS }));
      expect(run.worstHealthMs).toBeLessThan(RESPONSIVE_MS);
      expect(run.worstTimerLagMs).toBeLessThan(RESPONSIVE_MS);
      expect(run.value).toMatchObject({ status: 408, body: { success: false, code: "SCRAPE_TIMEOUT" } });
      expect(run.elapsedMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(run.elapsedMs).toBeLessThan(TIMEOUT_MS + 1_000);
      expect(workers.services.parseWorkers.stats().timedOut).toBe(before + 1);
      // The stopped worker's place is taken: the next scrape with selectors is answered.
      const after = await scrape(workers, { url: `${site.url}/article`, formats: [attributes([".product", "sku"])] });
      expect(after.status).toBe(200);
      expect(after.body.data.attributes).toEqual([{ selector: ".product", attribute: "sku", values: ["T-100", "T-200"] }]);
    }, 30_000);
  }
});

describe("ordinary selectors: the same documents as on the main thread", () => {
  test("an attributes request is matched by a caller-selector rule (it always goes to a worker)", () => {
    expect(matchesCallerSelectors({ formats: [{ type: "attributes", selectors: [{ selector: "a", attribute: "href" }] }] })).toBe(true);
    expect(matchesCallerSelectors({ formats: [{ type: "attributes", selectors: [] }, { type: "markdown" }] })).toBe(false);
    expect(matchesCallerSelectors({ includeTags: [], excludeTags: [] })).toBe(false);
  });

  test("each request, parsed on a worker even alone, gives the document the main thread gives", async () => {
    const workers = await createHarness({ parseWorkers: 2 });
    try {
      const article = `${site.url}/article`;
      const bodies: Record<string, unknown>[] = [
        // Values, `data-` fallback (sku → data-sku), an empty selector, a pair asked twice, no match, with other views.
        { url: article, formats: ["markdown", "links", attributes(["a", "href"], [".product", "sku"], ["", "x"], ["a", "href"], ["meta[name=author]", "content"], ["video", "src"])] },
        // Two attributes formats: the last one's fields, as before.
        { url: article, formats: [attributes(["a", "href"]), "html", attributes([".product", "data-price"], ["title", "lang"])] },
        { url: article, formats: [attributes(["li a", "href"]), "markdown"], includeTags: ["article"], excludeTags: ["figure"], onlyMainContent: false },
        { url: article, formats: [attributes([".product", "sku"]), "product", "markdown"] },
        { url: article, formats: ["markdown", "product"], includeTags: ["main"] },
        { url: `${hostileUrl}/small.xlsx`, formats: ["markdown", attributes(["td", "x"], ["tr:nth-child(2n) td", "id"], ["th", "class"])] },
      ];
      for (const body of bodies) {
        const before = workers.services.parseWorkers.stats().offloaded;
        const [viaWorker, viaMain] = [await scrape(workers, body), await scrape(inline, body)];
        expect(viaWorker.status).toBe(200);
        expect(comparable(viaWorker.body.data)).toEqual(comparable(viaMain.body.data));
        expect(workers.services.parseWorkers.stats().offloaded).toBe(before + 1);
      }
      expect(workers.services.parseWorkers.stats().failed).toBe(0);
    } finally {
      await workers.close();
    }
  }, 30_000);
});
