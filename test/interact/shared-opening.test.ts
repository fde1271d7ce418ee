/**
 * A session's opening shared by several requests (src/interact/shared-opening.ts): each waiter stops at its own
 * signal with its own reason, the work's signal aborts only when every waiter has left, and a request joining an
 * opening all its waiters gave up on gets the retryable 503, not another caller's abort reason.
 */
import { describe, expect, test } from "bun:test";
import { SharedOpening } from "../../src/interact/shared-opening.ts";
import { InteractOpeningAbandonedError } from "../../src/interact/errors.ts";

/** Work that runs until released (or until its signal aborts, rejecting with the signal's reason). */
function held() {
  let release!: (v: string) => void;
  let seen: AbortSignal | undefined;
  const work = (signal: AbortSignal) => {
    seen = signal;
    return new Promise<string>((resolve, reject) => {
      release = resolve;
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  };
  return { work, release: (v: string) => release(v), signal: () => seen! };
}

describe("shared opening", () => {
  test("one waiter leaving leaves the work running for another; each waiter gets its own reason", async () => {
    const w = held();
    const opening = new SharedOpening(w.work);
    const first = new AbortController();
    const second = new AbortController();
    const a = opening.join(first.signal);
    const b = opening.join(second.signal);
    const mine = new Error("first gave up");
    first.abort(mine);
    expect(await a.catch((e) => e)).toBe(mine);
    expect(w.signal().aborted).toBe(false);
    w.release("session");
    expect(await b).toBe("session");
  });

  test("the work stops once every waiter has left; a request joining it then gets a retryable 503", async () => {
    const w = held();
    const opening = new SharedOpening(w.work);
    const only = new AbortController();
    const a = opening.join(only.signal);
    only.abort(new Error("timed out"));
    await a.catch(() => undefined);
    expect(w.signal().aborted).toBe(true);
    expect(w.signal().reason).toBeInstanceOf(InteractOpeningAbandonedError);
    const late = (await opening.join(new AbortController().signal).catch((e) => e)) as InteractOpeningAbandonedError;
    expect(late).toBeInstanceOf(InteractOpeningAbandonedError);
    expect([late.status, late.code, late.retryable]).toEqual([503, "INTERACT_SESSION_OPENING_ABANDONED", true]);
    // The abandoned work's failure is handled even with nobody left to read it.
    await opening.done.catch(() => undefined);
  });

  test("a waiter whose signal already aborted is refused at once and does not count", async () => {
    const w = held();
    const opening = new SharedOpening(w.work);
    const gone = new AbortController();
    gone.abort(new Error("already"));
    expect(((await opening.join(gone.signal).catch((e) => e)) as Error).message).toBe("already");
    expect(w.signal().aborted).toBe(false);
    const b = opening.join(new AbortController().signal);
    w.release("ok");
    expect(await b).toBe("ok");
  });
});
