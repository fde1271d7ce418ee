/**
 * Size bounds of a webhook's `metadata` and `headers` (docs/webhooks.md "Limits"). Both are copied into every event
 * the job announces, and events are kept for 7 days after they settle: a 4 MB `metadata` on a batch grew the database
 * by ~400 MB in 40 s. Checked on arrival, through the real server: a 400 naming the field, and nothing recorded. A
 * settled event's record (kept 7 days) keeps no copy of the caller's headers, as it keeps no body.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import {
  WEBHOOK_MAX_HEADER_NAME_CHARS,
  WEBHOOK_MAX_HEADER_VALUE_CHARS,
  WEBHOOK_MAX_HEADERS,
  WEBHOOK_MAX_METADATA_BYTES,
} from "../../src/api/webhook.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { cleanupDispatcherEnvs, dispatcherEnv } from "./dispatcher-env.ts";
import { MINUTE, startReceiver, type Receiver } from "./helpers.ts";

afterEach(cleanupDispatcherEnvs);

let h: Harness;
let rx: Receiver;
beforeAll(async () => {
  h = await createHarness({ allowPrivateWebhooks: true });
  rx = startReceiver();
});
afterAll(async () => {
  await h.close();
  rx.stop();
});

type Details = { path: (string | number)[]; message: string }[];
const eventCount = () => (h.services.db.query("SELECT COUNT(*) AS n FROM webhook_events").get() as { n: number }).n;
const jobCount = () => (h.services.db.query("SELECT COUNT(*) AS n FROM jobs").get() as { n: number }).n;

/** POSTs a batch (and a crawl) with `webhook`; returns the statuses and the batch's 400 details. */
async function submit(webhook: Record<string, unknown>) {
  const full = { url: `${rx.url}/hook`, ...webhook };
  const batch = await h.request("/v2/batch/scrape", { method: "POST", json: { urls: ["https://example.com"], webhook: full } });
  const crawl = await h.request("/v2/crawl", { method: "POST", json: { url: "https://example.com", webhook: full } });
  const body = (await batch.json()) as { success: boolean; code?: string; details?: Details };
  await crawl.body?.cancel();
  return { batch: batch.status, crawl: crawl.status, body };
}

describe("webhook limits on arrival", () => {
  test("metadata whose JSON is past 16 KiB is a 400 naming webhook.metadata; nothing is recorded", async () => {
    const [jobs, events] = [jobCount(), eventCount()];
    const r = await submit({ metadata: { blob: "x".repeat(4_000_000) } });
    expect([r.batch, r.crawl]).toEqual([400, 400]);
    expect(r.body).toMatchObject({ success: false, code: "BAD_REQUEST" });
    const issue = r.body.details!.find((d) => d.path.join(".") === "webhook.metadata")!;
    expect(issue.message).toContain("webhook.metadata");
    expect(issue.message).toContain(String(WEBHOOK_MAX_METADATA_BYTES));
    expect([jobCount(), eventCount()]).toEqual([jobs, events]);
  });

  test("metadata is measured as UTF-8 JSON: exactly at the limit passes, one byte more does not", async () => {
    // {"k":""} is 8 bytes of JSON around the value; "é" is 1 character but 2 bytes.
    const fits = { k: "x".repeat(WEBHOOK_MAX_METADATA_BYTES - 8 - 2) + "é" };
    expect(new TextEncoder().encode(JSON.stringify(fits)).length).toBe(WEBHOOK_MAX_METADATA_BYTES);
    const ok = await submit({ metadata: fits });
    expect([ok.batch, ok.crawl]).toEqual([200, 200]);
    const over = await submit({ metadata: { k: fits.k + "a" } });
    expect([over.batch, over.crawl]).toEqual([400, 400]);
    expect(over.body.details!.map((d) => d.path.join("."))).toContain("webhook.metadata");
  });

  test(`more than ${WEBHOOK_MAX_HEADERS} headers is a 400 naming webhook.headers`, async () => {
    const many = Object.fromEntries(Array.from({ length: WEBHOOK_MAX_HEADERS + 1 }, (_, i) => [`x-h${i}`, "1"]));
    const r = await submit({ headers: many });
    expect([r.batch, r.crawl]).toEqual([400, 400]);
    const issue = r.body.details!.find((d) => d.path.join(".") === "webhook.headers")!;
    expect(issue.message).toContain(`${WEBHOOK_MAX_HEADERS + 1} headers`);
    const exactly = Object.fromEntries(Array.from({ length: WEBHOOK_MAX_HEADERS }, (_, i) => [`x-h${i}`, "1"]));
    expect((await submit({ headers: exactly })).batch).toBe(200);
  });

  test("a header name or value past its length, or a value with CR/LF, is a 400 naming that header", async () => {
    const longName = "x".repeat(WEBHOOK_MAX_HEADER_NAME_CHARS + 1);
    const cases: [Record<string, string>, string][] = [
      [{ [longName]: "1" }, `webhook.headers.${longName}`],
      [{ Authorization: "B".repeat(WEBHOOK_MAX_HEADER_VALUE_CHARS + 1) }, "webhook.headers.Authorization"],
      [{ "X-Split": "a\r\nX-Injected: 1" }, "webhook.headers.X-Split"],
    ];
    for (const [headers, path] of cases) {
      const r = await submit({ headers });
      expect([path, r.batch, r.crawl]).toEqual([path, 400, 400]);
      expect(r.body.details!.map((d) => d.path.join("."))).toContain(path);
    }
    const atLimit = { ["x".repeat(WEBHOOK_MAX_HEADER_NAME_CHARS)]: "v".repeat(WEBHOOK_MAX_HEADER_VALUE_CHARS) };
    expect((await submit({ headers: atLimit })).batch).toBe(200);
  });

  test("the same bounds apply to extract, agent and monitor webhooks", async () => {
    const webhook = { url: `${rx.url}/hook`, metadata: { blob: "x".repeat(WEBHOOK_MAX_METADATA_BYTES) } };
    const extract = await h.request("/v2/extract", { method: "POST", json: { urls: ["https://example.com"], prompt: "p", webhook } });
    const agent = await h.request("/v2/agent", { method: "POST", json: { prompt: "p", webhook } });
    const monitor = await h.request("/v2/monitor", {
      method: "POST",
      json: { name: "m", schedule: { text: "daily" }, targets: [{ type: "scrape", urls: ["https://example.com"] }], webhook },
    });
    for (const res of [extract, agent, monitor]) {
      const body = (await res.json()) as { details?: Details };
      expect(res.status).toBe(400);
      expect(body.details!.map((d) => d.path.join("."))).toContain("webhook.metadata");
    }
  });
});


describe("webhook events on arrival", () => {
  test("a list of 100,000 repeated event names is accepted and stored once each, in first-seen order", async () => {
    const events = [...Array.from({ length: 100_000 }, () => "page"), "completed", "page", "started", "completed"];
    const full = { url: `${rx.url}/hook`, events };
    const batch = await h.request("/v2/batch/scrape", { method: "POST", json: { urls: ["https://example.com"], webhook: full } });
    const crawl = await h.request("/v2/crawl", { method: "POST", json: { url: "https://example.com", webhook: full } });
    expect([batch.status, crawl.status]).toEqual([200, 200]);
    for (const res of [batch, crawl]) {
      const { id } = (await res.json()) as { id: string };
      const stored = h.services.jobStore.get(id)!.options.webhook as { events: string[] };
      expect(stored.events).toEqual(["page", "completed", "started"]);
      await h.request(`/v2/crawl/${id}`, { method: "DELETE" });
    }
  });
});

describe("what a settled event keeps", () => {
  test("a delivered or failed event drops its copy of the caller's headers (credentials among them) and its body", async () => {
    const e = dispatcherEnv({ retryDelaysMs: [] });
    const rx = e.receiver();
    const headers = { Authorization: "Bearer secret-token" };
    const delivered = e.enqueue(rx.url, { webhook: { url: "", headers, metadata: {}, events: [] } });
    const failing = e.receiver({ status: 500 });
    const failed = e.enqueue(failing.url, { jobId: "job-2", webhook: { url: "", headers, metadata: {}, events: [] } });
    const retrying = dispatcherEnv({ retryDelaysMs: [MINUTE] });
    const pending = retrying.enqueue(failing.url, { webhook: { url: "", headers, metadata: {}, events: [] } });
    await e.d.drain();
    await retrying.d.drain();
    expect(rx.received[0]!.headers.get("authorization")).toBe("Bearer secret-token");
    const row = (db: typeof e.t.db, id: string) => db.query("SELECT state, headers, body IS NULL AS dropped FROM webhook_events WHERE id = ?").get(id);
    expect(row(e.t.db, delivered)).toEqual({ state: "delivered", headers: "{}", dropped: 1 });
    expect(row(e.t.db, failed)).toEqual({ state: "failed", headers: "{}", dropped: 1 });
    // Still needed for the retry.
    expect(row(retrying.t.db, pending)).toEqual({ state: "pending", headers: JSON.stringify(headers), dropped: 0 });
  });
});
