import { afterEach, describe, expect, test } from "bun:test";
import { immediate } from "../../src/storage/database.ts";
import { enqueueWebhookEvent, webhookEventMatchesFilter, webhookPayload } from "../../src/webhooks/index.ts";
import { eventInput, tempDb, type TempDb } from "./helpers.ts";

let t: TempDb;
afterEach(() => {
  t?.cleanup();
  t = undefined as unknown as TempDb;
});

const count = (t: TempDb) => (t.db.query("SELECT COUNT(*) AS n FROM webhook_events").get() as { n: number }).n;

describe("events filter (api-v2.md §4, upstream webhookEventMatchesFilter)", () => {
  test("empty filter passes everything", () => {
    expect(webhookEventMatchesFilter([], "crawl.page")).toBe(true);
    expect(webhookEventMatchesFilter(undefined, "batch_scrape.cancelled")).toBe(true);
  });
  test("short names, full names and the namespace suffix", () => {
    expect(webhookEventMatchesFilter(["page"], "crawl.page")).toBe(true);
    expect(webhookEventMatchesFilter(["page"], "batch_scrape.page")).toBe(true);
    expect(webhookEventMatchesFilter(["crawl.page"], "crawl.page")).toBe(true);
    expect(webhookEventMatchesFilter(["crawl.page"], "batch_scrape.page")).toBe(false);
    expect(webhookEventMatchesFilter(["completed", "failed"], "crawl.started")).toBe(false);
    expect(webhookEventMatchesFilter(["check.completed"], "monitor.check.completed")).toBe(true);
    expect(webhookEventMatchesFilter(["check"], "monitor.check.completed")).toBe(true);
  });
  test("the last part matches too (api-v2.md §4): `completed` passes monitor.check.completed, not monitor.check.failed", () => {
    expect(webhookEventMatchesFilter(["completed"], "monitor.check.completed")).toBe(true);
    expect(webhookEventMatchesFilter(["completed"], "monitor.check.failed")).toBe(false);
    expect(webhookEventMatchesFilter(["failed"], "monitor.check.failed")).toBe(true);
    expect(webhookEventMatchesFilter(["monitor.check.completed"], "monitor.check.completed")).toBe(true);
    expect(webhookEventMatchesFilter(["monitor.check"], "monitor.check.completed")).toBe(false);
  });
  test("the default four do not include cancelled (upstream behaviour)", () => {
    expect(webhookEventMatchesFilter(["completed", "failed", "page", "started"], "crawl.cancelled")).toBe(false);
  });
});

describe("enqueueWebhookEvent", () => {
  test("stores the serialised payload once, in upstream's shape", () => {
    t = tempDb();
    const doc = { markdown: "# hi", metadata: { sourceURL: "https://example.com/" } };
    const id = immediate(t.db, () =>
      enqueueWebhookEvent(
        t.db,
        eventInput("https://hooks.example/x", {
          event: "page",
          data: [doc],
          webhook: { url: "https://hooks.example/x", headers: { "X-Token": "t" }, metadata: { run: "42" }, events: ["page"] },
        }),
        { now: 1000 },
      ),
    )!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const row = t.db.query("SELECT * FROM webhook_events").get() as Record<string, unknown>;
    expect(row).toMatchObject({ id, job_id: "job-1", key_id: "key-1", type: "crawl.page", url: "https://hooks.example/x", state: "pending", failures: 0, created_at: 1000, next_attempt_at: 1000 });
    expect(JSON.parse(row.headers as string)).toEqual({ "X-Token": "t" });
    expect(row.body).toBe(JSON.stringify({ success: true, type: "crawl.page", id: "job-1", webhookId: id, data: [doc], metadata: { run: "42" } }));
  });

  test("error sits between data and metadata; absent when not given", () => {
    const failed = webhookPayload(eventInput("https://h/", { jobKind: "batch_scrape", event: "failed", success: false, error: "boom" }), "w1");
    expect(Object.keys(failed)).toEqual(["success", "type", "id", "webhookId", "data", "error", "metadata"]);
    expect(failed).toEqual({ success: false, type: "batch_scrape.failed", id: "job-1", webhookId: "w1", data: [], error: "boom", metadata: {} });
    expect("error" in webhookPayload(eventInput("https://h/"), "w2")).toBe(false);
  });

  test("filtered-out events store nothing", () => {
    t = tempDb();
    const webhook = { url: "https://h/", headers: {}, metadata: {}, events: ["completed"] };
    expect(enqueueWebhookEvent(t.db, eventInput("https://h/", { event: "page", webhook }))).toBeUndefined();
    expect(enqueueWebhookEvent(t.db, eventInput("https://h/", { event: "started", webhook }))).toBeUndefined();
    expect(count(t)).toBe(0);
    expect(enqueueWebhookEvent(t.db, eventInput("https://h/", { event: "completed", webhook }))).toBeString();
    expect(count(t)).toBe(1);
  });

  test("the event exists iff the surrounding transaction commits", () => {
    t = tempDb();
    t.db.exec("CREATE TABLE demo_jobs (id TEXT PRIMARY KEY, status TEXT)");
    t.db.exec("INSERT INTO demo_jobs VALUES ('job-1', 'scraping')");
    expect(() =>
      immediate(t.db, () => {
        t.db.query("UPDATE demo_jobs SET status = 'completed' WHERE id = 'job-1'").run();
        enqueueWebhookEvent(t.db, eventInput("https://h/", { event: "completed" }));
        throw new Error("the job store changed its mind");
      }),
    ).toThrow("changed its mind");
    expect(count(t)).toBe(0);
    expect((t.db.query("SELECT status FROM demo_jobs").get() as { status: string }).status).toBe("scraping");
    immediate(t.db, () => {
      t.db.query("UPDATE demo_jobs SET status = 'completed' WHERE id = 'job-1'").run();
      enqueueWebhookEvent(t.db, eventInput("https://h/", { event: "completed" }));
    });
    expect(count(t)).toBe(1);
  });
});
