/**
 * @module test/helpers/settled
 * The error a promise rejects with, awaited as application code awaits it.
 *
 * Why not `await expect(p).rejects`: in `bun test` (1.4.5) that matcher does not yield like an `await`; it runs the
 * event loop itself until `p` settles, and while any timer is pending (a `Bun.sleep` a previous test left racing)
 * the code after each of `p`'s own `setImmediate` turns does not resume until that timer fires. A store intake that
 * yields between row writes took 1.5–2.0 s instead of 0.15 s after store-workers.test.ts's full-disk test left a
 * 2 s sleep behind, and over 30 s once in a whole-suite run (oven-sh/bun#14950, #25181). A plain `await` has no
 * such stall.
 */

/** The rejection reason of `promise`; fails the test (throws) if it resolves instead. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    (value) => ({ resolved: true as const, value }),
    (reason: unknown) => ({ resolved: false as const, reason }),
  );
  if (outcome.resolved) throw new Error(`expected a rejection, the promise resolved with ${String(outcome.value)}`);
  return outcome.reason instanceof Error ? outcome.reason : new Error(String(outcome.reason));
}
