/**
 * @module interact/sandbox/python-snapshot
 * A memory snapshot of a freshly started CPython, made once per server process at the first Python script and then
 * served by the file proxy (python-assets.ts; ~6 MB gzipped): each Python script's sandbox starts from it in ~0.2 s
 * instead of ~1.7 s (python-boot.ts). It is made in a sandbox page of its own, in which nothing but crawlbox's
 * start-up has run, so no caller's code can shape what later scripts, of any key, start from. Making it takes ~3 s; a
 * script waits for it (within its own time). If it cannot be made, scripts start Python from nothing, and the next
 * script tries again.
 */
import type { BrowserPool } from "../../engines/browser/pool.ts";
import { acquireOfflineSandbox } from "../../engines/browser/offline-sandbox.ts";
import type { Logger } from "../../log.ts";
import { raceAbort } from "../../scheduler/abortable.ts";
import { PYTHON_LOCK, pythonFiles } from "./python-assets.ts";
import { SNAPSHOT_MAKER } from "./python-boot.ts";

/** Longest making the snapshot may take, its sandbox page's wait included. */
const MAKE_MS = 60_000;
/** Characters of a snapshot at most (a sane bound on what the page answers; one is ~8.2 M of base64). */
const MAX_SNAPSHOT_CHARS = 64_000_000;

let kept: Promise<boolean> | undefined;

/**
 * Whether the snapshot is served, making it on first use with a page from `pool`; false when it could not be made
 * (logged; the next call tries again). Calls while it is being made share the making.
 */
export function pythonSnapshot(pool: BrowserPool, log?: Logger): Promise<boolean> {
  kept ??= make(pool).then(
    () => true,
    (e: unknown) => {
      kept = undefined;
      log?.warn("python: could not make the start-up snapshot; Python starts from nothing", { error: String((e as Error)?.message ?? e).split("\n")[0] });
      return false;
    },
  );
  return kept;
}

async function make(pool: BrowserPool): Promise<void> {
  const signal = AbortSignal.timeout(MAKE_MS);
  const files = pythonFiles();
  const lease = await acquireOfflineSandbox(pool, performance.now() + MAKE_MS, signal, files);
  const grant = files.grant();
  let made = false;
  try {
    const { session } = lease;
    const { result } = await session.send("Runtime.evaluate", { expression: "globalThis", returnByValue: false });
    const answer = await raceAbort(
      session.send("Runtime.callFunctionOn", {
        functionDeclaration: SNAPSHOT_MAKER,
        objectId: result.objectId!,
        arguments: [{ value: grant.base }, { value: PYTHON_LOCK }],
        awaitPromise: true,
        returnByValue: true,
        silent: true,
      }),
      signal,
    );
    if (answer.exceptionDetails) throw new Error(answer.exceptionDetails.exception?.description ?? answer.exceptionDetails.text);
    const snapshot: unknown = answer.result.value;
    if (typeof snapshot !== "string" || snapshot.length === 0 || snapshot.length > MAX_SNAPSHOT_CHARS) throw new Error("the page answered no snapshot");
    files.setSnapshot(Uint8Array.fromBase64(snapshot));
    made = true;
  } finally {
    grant.revoke();
    lease.release({ suspect: !made });
  }
}
