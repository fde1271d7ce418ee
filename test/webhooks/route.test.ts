import { afterEach, describe, expect, test } from "bun:test";
import { immediate } from "../../src/storage/database.ts";
import { enqueueWebhookEvent, WEBHOOK_RETENTION_MS } from "../../src/webhooks/index.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { eventInput, startReceiver } from "./helpers.ts";

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(): Promise<{ h: Harness; rx: ReturnType<typeof startReceiver>; ownerKeyId: string }> {
  const h = await createHarness({ webhookSecret: "route-secret" });
  const rx = startReceiver();
  cleanups.push(() => h.close(), () => rx.stop());
  const ownerKeyId = h.services.keys.verify(h.key)!.keyId;
  return { h, rx, ownerKeyId };
}

describe("GET /v2/webhooks/deliveries", () => {
  test("lists the owner's deliveries with attempts; other keys see nothing", async () => {
    const { h, rx, ownerKeyId } = await setup();
    rx.script = [{ status: 500 }, { status: 500 }];
    const { db, webhooks } = h.services;
    const ids = immediate(db, () => [
      enqueueWebhookEvent(db, eventInput(rx.url + "/in", { jobId: "crawl-9", keyId: ownerKeyId, event: "started" })),
      enqueueWebhookEvent(db, eventInput(rx.url + "/in", { jobId: "crawl-9", keyId: ownerKeyId, event: "completed" })),
    ]);
    webhooks.kick();
    await Bun.sleep(10);
    await webhooks.drain();
    // The first failed once; the job's end waits for its retry (a minute later), untried.
    expect(rx.received).toHaveLength(1);
    // Delivered through the real services: signed with the configured secret.
    expect(rx.received[0]!.headers.get("x-firecrawl-signature")).toStartWith("sha256=");

    const res = await h.request("/v2/webhooks/deliveries?jobId=crawl-9");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { success: boolean; total: number; data: Record<string, any>[] };
    expect(body.success).toBe(true);
    expect(body.total).toBe(2);
    expect(body.data.map((d) => [d.webhookId, d.type, d.status])).toEqual([
      [ids[0], "crawl.started", "pending"],
      [ids[1], "crawl.completed", "pending"],
    ]);
    const [first, second] = body.data;
    expect(first!.url).toBe(rx.url + "/in");
    expect(first!.attempts).toHaveLength(1);
    expect(first!.attempts[0]).toMatchObject({ attempt: 1, statusCode: 500, error: "HTTP 500" });
    expect(Date.parse(first!.attempts[0].startedAt)).toBeGreaterThan(0);
    expect(Date.parse(first!.attempts[0].finishedAt)).toBeGreaterThanOrEqual(Date.parse(first!.attempts[0].startedAt));
    const wait = Date.parse(first!.nextAttemptAt) - Date.parse(first!.attempts[0].finishedAt);
    expect(wait).toBeGreaterThanOrEqual(54_000); // 1 minute ± 10 % jitter
    expect(wait).toBeLessThanOrEqual(66_000);
    expect(first!.lastError).toBe("HTTP 500");
    expect(second!.attempts).toEqual([]);
    expect("headers" in first! || "body" in first!).toBe(false);

    const page = (await (await h.request("/v2/webhooks/deliveries?jobId=crawl-9&skip=1&limit=1")).json()) as { total: number; data: { webhookId: string }[] };
    expect(page.total).toBe(2);
    expect(page.data.map((d) => d.webhookId)).toEqual([ids[1]!]);

    const other = h.services.keys.create("other").key;
    const foreign = await h.request("/v2/webhooks/deliveries?jobId=crawl-9", { auth: other });
    expect(foreign.status).toBe(200);
    expect(await foreign.json()).toEqual({ success: true, total: 0, data: [] });
  });

  test("delivered events show their 2xx and settle time", async () => {
    const { h, rx, ownerKeyId } = await setup();
    const { db, webhooks } = h.services;
    immediate(db, () => enqueueWebhookEvent(db, eventInput(rx.url, { jobId: "b-1", keyId: ownerKeyId, jobKind: "batch_scrape" })));
    await webhooks.drain();
    const body = (await (await h.request("/v2/webhooks/deliveries?jobId=b-1")).json()) as { data: Record<string, any>[] };
    expect(body.data[0]).toMatchObject({ type: "batch_scrape.started", status: "delivered", nextAttemptAt: null, lastError: null });
    expect(body.data[0]!.settledAt).toBeString();
    expect(body.data[0]!.attempts[0]).toMatchObject({ attempt: 1, statusCode: 200, error: null });
  });

  test("requires a key and a jobId; validates pagination", async () => {
    const { h } = await setup();
    expect((await h.request("/v2/webhooks/deliveries?jobId=x", { auth: null })).status).toBe(401);
    const missing = await h.request("/v2/webhooks/deliveries");
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ success: false, code: "BAD_REQUEST" });
    expect((await h.request("/v2/webhooks/deliveries?jobId=")).status).toBe(400);
    expect((await h.request("/v2/webhooks/deliveries?jobId=x&limit=0")).status).toBe(400);
    expect((await h.request("/v2/webhooks/deliveries?jobId=x&skip=-1")).status).toBe(400);
    expect(await (await h.request("/v2/webhooks/deliveries?jobId=unknown")).json()).toEqual({ success: true, total: 0, data: [] });
  });

  test("settled events are pruned after the retention period; pending ones never", async () => {
    const { h, rx, ownerKeyId } = await setup();
    const { db, webhooks } = h.services;
    rx.fallback = { status: 200 };
    immediate(db, () => enqueueWebhookEvent(db, eventInput(rx.url, { jobId: "old", keyId: ownerKeyId })));
    await webhooks.drain();
    db.query("UPDATE webhook_events SET settled_at = settled_at - ? WHERE job_id = 'old'").run(WEBHOOK_RETENTION_MS + 1);
    immediate(db, () => enqueueWebhookEvent(db, eventInput(rx.url, { jobId: "new", keyId: ownerKeyId }), { now: Date.now() + 3_600_000 }));
    expect(webhooks.prune()).toBe(1);
    expect(webhooks.deliveries("old", ownerKeyId).total).toBe(0);
    expect(webhooks.deliveries("new", ownerKeyId).total).toBe(1);
    expect((db.query("SELECT COUNT(*) AS n FROM webhook_attempts").get() as { n: number }).n).toBe(0);
  });
});
