/**
 * @module agent/trace-error
 * Why a run failed, as its trace says it (`error.occurred` and `run.finished` of `GET /v2/agent/{id}/trace`): the
 * SDK's `AgentTraceError`, whose `code` is one of `cancelled`, `credit_limit_reached`, `parent_finished`, `refused`,
 * `internal` and `source` one of `agent`, `tool`, `billing`, `system`. Every failure read `internal` from the `agent`,
 * not retryable, before: a client could not tell a revoked key (nothing to retry) from a model that timed out (worth
 * another run). The mapping reads the run's typed error (its stable crawlbox code), never its message:
 *
 * | crawlbox code                | code                   | source    | retryable         |
 * |------------------------------|------------------------|-----------|-------------------|
 * | `KEY_REVOKED`                | `refused`              | `system`  | no                |
 * | `INSUFFICIENT_CREDITS`       | `credit_limit_reached` | `billing` | no                |
 * | `LLM_*` (timeout, down, …)   | `internal`             | `agent`   | as the error says |
 * | `SEARCH_*`, `AGENT_NO_PAGES` | `internal`             | `tool`    | as the error says |
 * | `AGENT_ATTEMPTS_SPENT`       | `internal`             | `system`  | no                |
 * | any other                    | `internal`             | `agent`   | as the error says |
 *
 * `INSUFFICIENT_CREDITS` reaches the run from its web search only: a page it could not pay for is a warning of
 * extract/read-pages.ts, and a run left with no page is `AGENT_NO_PAGES`.
 *
 * The SDK's codes have none for a revoked key: `refused` is the nearest (the server refuses to go on for a key that
 * may no longer act; `cancelled` would read as the caller's own cancel, `internal` as a fault of ours). So the message
 * starts with the crawlbox code (`KEY_REVOKED: The API key of this job was revoked.`), the one field the type leaves
 * for it. The run's `status` and the trace's `outcome` stay `failed`, as `GET /v2/agent/{id}` says.
 */
import { CrawlboxError } from "../errors.ts";
import { isLlmErrorCode } from "../llm/errors.ts";
import type { TraceError } from "./trace.ts";

/** A user's cancel (`DELETE /v2/agent/{id}`), recorded by the cancel itself, with `outcome: "cancelled"`. */
export const CANCELLED_TRACE_ERROR: TraceError = { code: "cancelled", source: "agent", retryable: false, message: "The run was cancelled." };

type Kind = Pick<TraceError, "code" | "source"> & { retryable?: boolean };

/** Failures whose kind the crawlbox code fixes; `retryable` when given overrides the error's own. */
const BY_CODE: Readonly<Record<string, Kind>> = {
  KEY_REVOKED: { code: "refused", source: "system", retryable: false },
  INSUFFICIENT_CREDITS: { code: "credit_limit_reached", source: "billing", retryable: false },
  AGENT_NO_PAGES: { code: "internal", source: "tool" },
  AGENT_ATTEMPTS_SPENT: { code: "internal", source: "system", retryable: false },
};

function kindOf(code: string): Kind {
  const fixed = BY_CODE[code];
  if (fixed) return fixed;
  if (isLlmErrorCode(code)) return { code: "internal", source: "agent" };
  if (code.startsWith("SEARCH_")) return { code: "internal", source: "tool" };
  return { code: "internal", source: "agent" };
}

/** The trace error of a run that failed with `cause` (what it threw, or the revocation that stopped it). */
export function traceErrorOf(cause: unknown): TraceError {
  if (!(cause instanceof CrawlboxError)) {
    return { code: "internal", source: "agent", retryable: false, message: cause instanceof Error ? cause.message : String(cause) };
  }
  const kind = kindOf(cause.code);
  return { code: kind.code, source: kind.source, retryable: kind.retryable ?? cause.retryable, message: `${cause.code}: ${cause.message}` };
}
