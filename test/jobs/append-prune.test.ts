/**
 * A large `appendToId` whose batch expires while its URLs are being stored (jobs/task-intake.ts): the job pruner
 * keeps a job with an intake open (jobs/results.ts prune), and a batch deleted under the append all the same is
 * answered 503 JOB_INTAKE_LOST (retryable), not 500: the next row's foreign key failed as UNKNOWN_ERROR.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";

let h: Harness;
beforeEach(async () => {
  h = await createHarness({ allowPrivateNetwork: true, jobConcurrency: 1 });
});
afterEach(async () => {
  await h.close();
});

/** A completed batch, and an append of `n` URLs to it started and past its first few stored rows. */
async function appendUnderway(n: number): Promise<{ id: string; append: Promise<Response> }> {
  const res = await h.request("/v2/batch/scrape", { method: "POST", json: { urls: ["http://127.0.0.1:9/first"] } });
  const { id } = (await res.json()) as { id: string };
  for (let i = 0; i < 2000 && h.services.jobStore.get(id)?.status !== "completed"; i++) await Bun.sleep(5);
  expect(h.services.jobStore.get(id)?.status).toBe("completed");
  const urls = Array.from({ length: n }, (_, i) => `http://127.0.0.1:9/h${i % 9}/p${i}`);
  const append = h.request("/v2/batch/scrape", { method: "POST", json: { urls, appendToId: id } });
  const held = () =>
    (h.services.db.query("SELECT COUNT(*) AS n FROM job_pending_tasks p JOIN job_intakes i ON i.intake = p.intake WHERE i.open = 1 AND p.job_id = ?").get(id) as { n: number }).n;
  for (let i = 0; i < 5000 && held() < 3; i++) await Bun.sleep(1);
  expect(held()).toBeGreaterThanOrEqual(3);
  return { id, append };
}

test("the pruner keeps a batch an append is storing URLs for, though it expired meanwhile", async () => {
  const { id, append } = await appendUnderway(120_000);
  h.services.db.query("UPDATE jobs SET expires_at = 0 WHERE id = ?").run(id);
  const pruned = await h.services.jobResults.prune();
  const res = await append;
  expect(res.status).toBe(200);
  expect(pruned).toBe(0);
  expect(((await res.json()) as { success: boolean }).success).toBe(true);
  expect(h.services.jobStore.get(id)?.status).toBe("scraping");
  expect(h.services.jobStore.get(id)?.total).toBe(120_001);
}, 60_000);

test("a batch deleted under an append all the same answers 503 JOB_INTAKE_LOST, not 500", async () => {
  const { id, append } = await appendUnderway(120_000);
  h.services.db.query("DELETE FROM jobs WHERE id = ?").run(id);
  const res = await append;
  expect(res.status).toBe(503);
  expect(((await res.json()) as { code: string }).code).toBe("JOB_INTAKE_LOST");
  expect((h.services.db.query("SELECT COUNT(*) AS n FROM job_pending_tasks WHERE job_id = ?").get(id) as { n: number }).n).toBe(0);
}, 60_000);
