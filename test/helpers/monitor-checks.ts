/**
 * Waiting for a monitor check in tests: the check runs in the background after `POST /v2/monitor/{id}/run`, and
 * every monitor test reads it again until it has ended. One loop for all of them (it was copied into five files).
 */

/** Reads the check with `read` until it is neither queued nor running (every 25 ms, 10 s at most), and answers it. */
export async function untilCheckEnds<T extends { status: string }>(read: () => Promise<T>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const c = await read();
    if (c.status !== "queued" && c.status !== "running") return c;
    await Bun.sleep(25);
  }
  throw new Error("check did not finish");
}
