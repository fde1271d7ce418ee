/**
 * A monitor's webhook (docs/monitor.md "Webhook"): `events` takes the names upstream's clients send
 * (`monitor.check.completed`) and the short forms api-v2.md §4 matches (`check.completed`, `completed`, `check`),
 * answered as given and honoured, and `monitor.page` (one event per page, when asked for); a name that matches nothing
 * a monitor sends is a 400. A check a stopped server left is announced with the pages it had recorded.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startHookReceiver, type HookReceiver } from "../fixtures/hook-receiver.ts";
import { MONITOR_WEBHOOK_EVENT_FILTERS } from "../../src/api/monitor.ts";
import { webhookEventMatchesFilter } from "../../src/webhooks/index.ts";
import { untilCheckEnds } from "../helpers/monitor-checks.ts";

let site: ReturnType<typeof Bun.serve>;
let hooks: HookReceiver;
let h: Harness;
let base: string;

beforeAll(async () => {
  site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("<html><body><main><p>A page.</p></main></body></html>", { headers: { "content-type": "text/html" } }) });
  base = `http://127.0.0.1:${site.port}`;
  hooks = startHookReceiver();
  h = await createHarness({ allowPrivateWebhooks: true });
});
afterAll(async () => {
  await h.close();
  site.stop(true);
  hooks.stop();
});

const post = async (webhook: unknown) => {
  const res = await h.request("/v2/monitor", { method: "POST", json: { name: "hooked", schedule: { text: "daily" }, targets: [{ type: "scrape", urls: [`${base}/a`] }], webhook } });
  return { status: res.status, body: (await res.json()) as any };
};

/** Runs a check of the monitor and waits until it has ended. */
async function check(monitorId: string): Promise<any> {
  const started = (await (await h.request(`/v2/monitor/${monitorId}/run`, { method: "POST", json: {} })).json()) as any;
  return untilCheckEnds(async () => ((await (await h.request(`/v2/monitor/${monitorId}/checks/${started.data.id}`)).json()) as any).data);
}

/** The event types the outbox recorded for a check (the filter is applied before an event is stored). */
const announced = (checkId: string) => (h.services.db.query("SELECT type FROM webhook_events WHERE job_id = ?").all(checkId) as { type: string }[]).map((r) => r.type);

describe("monitor webhook events", () => {
  test("upstream's full names and the short forms are accepted, answered as given and honoured", async () => {
    for (const [events, sent] of [
      [["monitor.check.completed"], true],
      [["completed"], true],
      [["check.completed"], true],
      [["check"], true],
      [["monitor.check.failed"], false],
      [["failed"], false],
    ] as const) {
      const r = await post({ url: hooks.url, events });
      expect([events, r.status]).toEqual([events, 200]);
      expect(r.body.data.webhook.events).toEqual(events);
      const c = await check(r.body.data.id);
      expect(c.status).toBe("completed");
      expect([events, announced(c.id)]).toEqual([events, sent ? ["monitor.check.completed"] : []]);
      await h.request(`/v2/monitor/${r.body.data.id}`, { method: "DELETE" });
    }
    // No events given: both, stored as the short names.
    expect((await post(hooks.url)).body.data.webhook.events).toEqual(["check.completed", "check.failed"]);
  });

  test("every accepted name matches an event a monitor sends", () => {
    for (const name of MONITOR_WEBHOOK_EVENT_FILTERS) {
      expect([name, ["monitor.check.completed", "monitor.check.failed", "monitor.page"].some((type) => webhookEventMatchesFilter([name], type))]).toEqual([name, true]);
    }
  });

  test("a name that matches nothing a monitor sends is a 400; upstream's monitor.page is sent per page when asked for; a PATCH takes the same names", async () => {
    for (const events of [["started"], ["crawl.completed"], ["monitor.check"], ["nope"]]) {
      expect([events, (await post({ url: hooks.url, events })).status]).toEqual([events, 400]);
    }
    // As upstream's clients send it: one monitor.page per page as it is recorded, then the check's event.
    const withPage = await post({ url: hooks.url, events: ["monitor.page", "monitor.check.completed"] });
    expect(withPage.status).toBe(200);
    const c = await check(withPage.body.data.id);
    expect(announced(c.id)).toEqual(["monitor.page", "monitor.check.completed"]);
    await hooks.until((bodies) => bodies.some((b) => b.type === "monitor.page" && b.id === c.id));
    const pageEvent = hooks.bodies.find((b) => b.type === "monitor.page" && b.id === c.id);
    expect(pageEvent).toMatchObject({ success: true, type: "monitor.page", id: c.id, data: [{ monitorId: withPage.body.data.id, checkId: c.id, url: `${base}/a`, status: "new", targetId: "target-1" }] });
    // The same page as the check's listing shows it.
    const listed = ((await (await h.request(`/v2/monitor/${withPage.body.data.id}/checks/${c.id}`)).json()) as any).data.pages[0];
    expect({ ...pageEvent.data[0], monitorId: undefined, checkId: undefined }).toEqual({ ...listed, monitorId: undefined, checkId: undefined });
    // The default (both check events, for a webhook object without events too) sends no page events.
    const plain = (await post({ url: hooks.url })).body.data;
    expect(plain.webhook.events).toEqual(["check.completed", "check.failed"]);
    expect(announced((await check(plain.id)).id)).toEqual(["monitor.check.completed"]);
    await h.request(`/v2/monitor/${plain.id}`, { method: "DELETE" });
    await h.request(`/v2/monitor/${withPage.body.data.id}`, { method: "DELETE" });
    const m = (await post(hooks.url)).body.data;
    const patched = await h.request(`/v2/monitor/${m.id}`, { method: "PATCH", json: { webhook: { url: hooks.url, events: ["monitor.check.failed", "completed"] } } });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as any).data.webhook.events).toEqual(["monitor.check.failed", "completed"]);
    expect((await h.request(`/v2/monitor/${m.id}`, { method: "PATCH", json: { webhook: { url: hooks.url, events: ["monitor.checks"] } } })).status).toBe(400);
    await h.request(`/v2/monitor/${m.id}`, { method: "DELETE" });
  });

  test("a check a stopped server left is announced as failed with the pages it had recorded", async () => {
    const m = (await post({ url: hooks.url })).body.data;
    const keyId = h.services.keys.verify(h.key)!.keyId;
    const now = Date.now();
    h.services.db
      .query("INSERT INTO monitor_checks (id, monitor_id, key_id, status, trigger, credits, summary, created_at, updated_at) VALUES ('left-behind', ?, ?, 'running', 'scheduled', 0, ?, ?, ?)")
      .run(m.id, keyId, JSON.stringify({ totalPages: 0, same: 0, changed: 0, new: 0, removed: 0, error: 0 }), now, now);
    const page = (i: number, url: string, status: "changed" | "same" | "new" | "removed") => h.services.monitorStore.addPage("left-behind", i, { id: `left-${i}`, targetId: "target-1", url, status, credits: 1, createdAt: now });
    page(0, `${base}/a`, "changed");
    page(1, `${base}/b`, "same");
    page(2, `${base}/c`, "new");
    expect(h.services.monitors.start().failed).toBe(1);
    await hooks.until((bodies) => bodies.some((b) => b.id === "left-behind"));
    const body = hooks.bodies.find((b) => b.id === "left-behind");
    expect(body).toMatchObject({ type: "monitor.check.failed", success: false });
    expect(body.data[0]).toMatchObject({ checkId: "left-behind", status: "failed", summary: { totalPages: 3, changed: 1, same: 1, new: 1 } });
    expect(body.data[0].pages).toEqual([{ url: `${base}/a`, status: "changed" }, { url: `${base}/c`, status: "new" }]);
    await h.request(`/v2/monitor/${m.id}`, { method: "DELETE" });
  });
});
