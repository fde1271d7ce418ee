/**
 * A page handed back without an outcome of its own (`giveAttemptBack`: its job's key was revoked and failing the job
 * failed) says nothing of its host (jobs/host-outcomes.ts). Counted as an answer it cleared the host's run of
 * failures, so a host that had not answered twice started its count again.
 */
import { expect, test } from "bun:test";
import { HostOutcomes } from "../../src/jobs/host-outcomes.ts";
import type { Outcome } from "../../src/jobs/leased-page.ts";
import { free, newJob, page, setup } from "./store-setup.ts";

test("a handed-back page neither clears nor adds to its host's failures", () => {
  const s = setup();
  const job = newJob(s, [page("http://dead.test/1"), page("http://dead.test/2"), page("http://dead.test/3")]);
  const hosts = new HostOutcomes({ store: s.store, threshold: 3, storeError: () => {}, onSettled: () => {}, retryAfterErrorMs: 1_000 });
  const failures = () => s.db.query<{ failures: number }, [string]>("SELECT failures FROM job_hosts WHERE job_id = ? AND host = 'dead.test'").get(job.id)?.failures;
  const down: Outcome = { kind: "retry", notBefore: s.now() + 1_000, reason: "SCRAPE_TIMEOUT" };
  const handedBack: Outcome = { kind: "retry", notBefore: s.now() + 1_000, reason: "KEY_REVOKED", giveAttemptBack: true };
  const t1 = s.store.claim("w", 60_000, free)!;
  const t2 = s.store.claim("w", 60_000, free)!;
  const t3 = s.store.claim("w", 60_000, free)!;
  hosts.record(t1, down);
  hosts.record(t2, down);
  expect(failures()).toBe(2);
  hosts.record(t3, handedBack);
  expect(failures()).toBe(2);
});
