/**
 * Runs a crawl through the API to its end: POST /v2/crawl, then its status until it is no longer scraping. For tests
 * that look at what a crawl did rather than at how its status reads while it runs.
 */
import { expect } from "bun:test";
import type { Harness } from "./harness.ts";

/** The final status body of a crawl of `body` (the creation must succeed); `auth` as {@link Harness.request} takes it. */
export async function runCrawl(h: Harness, body: Record<string, unknown>, o: { auth?: string; timeoutMs?: number } = {}): Promise<any> {
  const created = (await (await h.request("/v2/crawl", { method: "POST", json: body, ...(o.auth ? { auth: o.auth } : {}) })).json()) as any;
  expect(created.success).toBe(true);
  const deadline = Date.now() + (o.timeoutMs ?? 20_000);
  let status: any;
  do {
    await Bun.sleep(25);
    status = await (await h.request(`/v2/crawl/${created.id}`, o.auth ? { auth: o.auth } : {})).json();
  } while (status.status === "scraping" && Date.now() < deadline);
  return { ...status, id: created.id };
}
