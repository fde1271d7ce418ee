/**
 * @module llm/server-down
 * A model server that cannot be reached at all (the connection refused, its name not resolved, no route to it), as
 * opposed to one that answered with an error (its 5xx, Ollama's "server busy" 503) or dropped a request it had taken
 * (a reset): and a short memo of it, per provider, so that the pages of a crawl or batch asking in the next second
 * fail their attempt at once with `LLM_UNAVAILABLE` instead of each knocking on a closed port.
 *
 * Why: with the model server stopped, a 100-page batch asking for `json` made 900 connection attempts (3 in-call
 * tries of llm/retry.ts times 3 page attempts of jobs/task-runner.ts) and took 64 s to fail, its pages holding their
 * host's slots through the in-call backoffs.
 *
 * Where it applies: only to a call under `JOB_PAGE_LLM_RETRY` (llm/retry.ts), a crawl or batch page its job will try
 * again (llm/render-call.ts), and only to the first turn of its operation (llm/call.ts). A lone scrape, a page's last
 * attempt, interact, monitor, extract and agent calls, and the formats that keep a failure as a warning are always
 * sent. Any call that did try arms it; a call it turned away never does (or steady traffic would keep it armed for
 * ever). Only a successful chat answer clears it early; otherwise it lapses {@link DOWN_MEMO_MS} after the refusal.
 * The job waits at least that long before it tries the page again (jobs/task-runner.ts), so a retried page meets
 * the server, not the memo of its own failure. Its clock is monotonic (`performance.now()`): a wall-clock step
 * must not stretch it.
 */
import { LlmServerDownError } from "./errors.ts";

/**
 * How long after a call found the server unreachable a job page's new calls to it are not sent; also the least wait
 * before the job tries such a page again (jobs/task-runner.ts {@link jobRetryFloorMs}).
 */
export const DOWN_MEMO_MS = 1_000;

/**
 * Error codes (Node's, Bun's, undici's) of a connection never made: refused, the host's name not resolved (for now
 * or for good), no route to the host or its network, no local address to send from. Not `ECONNRESET`/`EPIPE` (the
 * server took the connection, then dropped it: busy or restarting, retried in the call) nor a timeout (the deadline
 * is what ran out, never retried in the call).
 */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ConnectionRefused",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_NONAME",
  "EAI_FAIL",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
]);

/** Causes followed from a provider's error down to the transport's. */
const MAX_CAUSE_DEPTH = 8;

/**
 * Whether `err` (a provider's `LLM_UNAVAILABLE`, which keeps the transport's error as its `cause`) says the server
 * was not reached at all, by the error code of it or of one of its causes.
 */
export function isUnreachable(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && e !== null && typeof e === "object"; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && UNREACHABLE_CODES.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** The transport's own words for `err` (what the operator reads to fix the address), without our prefix. */
function transportReason(err: unknown): string {
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  if (cause instanceof Error && cause.message) return cause.message;
  return err instanceof Error ? err.message : String(err);
}

/**
 * The least wait before a job tries again a page whose attempt failed with `err`: past the memo when the failure is
 * one that arms it or one it turned away, so that the retried page really asks the server; 0 otherwise.
 */
export function jobRetryFloorMs(err: unknown): number {
  return err instanceof LlmServerDownError || isUnreachable(err) ? DOWN_MEMO_MS : 0;
}

/** A server found unreachable less than {@link ServerDownMemo.memoMs} ago. */
export interface ServerDown {
  /** How long ago (ms). */
  ageMs: number;
  /** The transport's words for it ("ECONNREFUSED: Unable to connect…"). */
  reason: string;
  /** The failure itself. */
  cause: unknown;
}

/** The memo of one provider's server (one per LLM client, llm/client.ts). */
export class ServerDownMemo {
  private last: { at: number; reason: string; cause: unknown } | undefined;

  /**
   * @param memoMs how long it lasts; shorter in tests only, never longer than {@link DOWN_MEMO_MS} (the job's wait
   *   before a page's retry: a longer memo would turn that retry away)
   * @param clock monotonic milliseconds; injected by tests
   */
  constructor(
    memoMs: number = DOWN_MEMO_MS,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.memoMs = Math.min(memoMs, DOWN_MEMO_MS);
  }

  /** How long it lasts (ms). */
  readonly memoMs: number;

  /** Notes a failed call: an unreachable server is remembered; a call the memo turned away is not one. */
  noteFailure(err: unknown): void {
    if (err instanceof LlmServerDownError || !isUnreachable(err)) return;
    this.last = { at: this.clock(), reason: transportReason(err), cause: err };
  }

  /** Notes a successful chat answer: the server is there. */
  noteAnswer(): void {
    this.last = undefined;
  }

  /** The server's unreachability noted less than {@link memoMs} ago, if any. */
  current(): ServerDown | undefined {
    if (!this.last) return undefined;
    const ageMs = Math.max(0, this.clock() - this.last.at);
    if (ageMs >= this.memoMs) {
      this.last = undefined;
      return undefined;
    }
    return { ageMs, reason: this.last.reason, cause: this.last.cause };
  }
}
