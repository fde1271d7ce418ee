/**
 * A check keeps the targets it ran with (docs/monitor.md "Routes"): after a PATCH changes the monitor's targets, an
 * earlier check still answers its own `estimatedCredits` and `targetResults`, skipped checks included.
 */
import { describe, expect, test } from "bun:test";
import { monitorTestbed, untilCheckEnds } from "../helpers/monitor-checks.ts";

const bed = monitorTestbed(() => "<html><body><main><p>A page.</p></main></body></html>");
const { json } = bed;

async function settled(monitorId: string, checkId: string): Promise<any> {
  return untilCheckEnds(() => json(`/v2/monitor/${monitorId}/checks/${checkId}`));
}

describe("a check's targets", () => {
  test("an earlier check keeps its estimatedCredits and targetResults after the monitor's targets change", async () => {
    const m = await json("/v2/monitor", { method: "POST", json: { name: "before", schedule: { text: "daily" }, targets: [{ id: "one", type: "scrape", urls: [`${bed.base}/a`] }] } });
    const first = await settled(m.id, (await json(`/v2/monitor/${m.id}/run`, { method: "POST", json: {} })).id);
    expect(first).toMatchObject({ status: "completed", estimatedCredits: 1, targetResults: [{ targetId: "one", type: "scrape" }] });

    const targets = [{ id: "two", type: "scrape", urls: [`${bed.base}/b`, `${bed.base}/c`, `${bed.base}/d`] }, { id: "three", type: "crawl", url: `${bed.base}/`, crawlOptions: { limit: 5 } }];
    expect((await bed.h.request(`/v2/monitor/${m.id}`, { method: "PATCH", json: { targets } })).status).toBe(200);

    const again = await json(`/v2/monitor/${m.id}/checks/${first.id}`);
    expect(again).toMatchObject({ estimatedCredits: 1, targetResults: [{ targetId: "one", type: "scrape" }] });
    expect(again.targetResults).toHaveLength(1);
    const listed = (await json(`/v2/monitor/${m.id}/checks`)).find((c: any) => c.id === first.id);
    expect(listed).toMatchObject({ estimatedCredits: 1, targetResults: [{ targetId: "one", type: "scrape" }] });
    await bed.h.request(`/v2/monitor/${m.id}`, { method: "DELETE" });
  });

  test("a skipped check keeps the targets it would have run", async () => {
    const { key } = bed.h.services.keys.create("poor", 1);
    const m = await json("/v2/monitor", { method: "POST", auth: key, json: { name: "poor", schedule: { text: "daily" }, targets: [{ id: "pair", type: "scrape", urls: [`${bed.base}/a`, `${bed.base}/b`] }] } });
    const skipped = await json(`/v2/monitor/${m.id}/run`, { method: "POST", auth: key, json: {} });
    expect(skipped).toMatchObject({ status: "skipped_no_credits", estimatedCredits: 0 });
    await bed.h.request(`/v2/monitor/${m.id}`, { method: "PATCH", auth: key, json: { targets: [{ id: "solo", type: "scrape", urls: [`${bed.base}/a`] }] } });
    expect(await json(`/v2/monitor/${m.id}/checks/${skipped.id}`, { auth: key })).toMatchObject({ targetResults: [{ targetId: "pair", type: "scrape" }] });
    await bed.h.request(`/v2/monitor/${m.id}`, { method: "DELETE", auth: key });
  });
});
