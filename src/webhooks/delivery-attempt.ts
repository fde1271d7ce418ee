/**
 * @module webhooks/delivery-attempt
 * One HTTP delivery attempt of a webhook event: the headers (caller's, then the managed and signed ones), the
 * egress gate check, the POST with its deadline and no redirects, and the mapping of whatever happened to an
 * {@link Outcome}. It touches no database: webhooks/dispatcher records the attempt and schedules what follows.
 */
import type { EgressGate } from "../egress/index.ts";
import { errorFromFetchFailure, errorFromProxyResponse, PRIVATE_NETWORK_HINT } from "../egress/index.ts";
import { CrawlboxError, EgressDeniedError } from "../errors.ts";
import { raceAbort } from "../scheduler/abortable.ts";
import { firecrawlSignature, standardWebhooksSignature } from "./signing.ts";

/** Caller headers never forwarded: the transport owns framing and the target host. */
const TRANSPORT_HEADERS = new Set(["host", "content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te", "trailer"]);

/** The fetch the dispatcher uses (Bun's, or a test double). */
export type WebhookFetch = (url: string, init: BunFetchRequestInit) => Promise<Response>;

/** A due outbox event, as the dispatcher reads it from `webhook_events`. */
export type DueRow = { seq: number; id: string; job_id: string; type: string; url: string; headers: string; body: string };

/** How an attempt ended; `permanent` failures are not retried, `interrupted` ones are re-sent later. */
export type Outcome =
  | { kind: "delivered"; status: number }
  | { kind: "failed"; status?: number; error: string; permanent: boolean; retryAfter?: string }
  | { kind: "interrupted" };

/** Reason used to abort an in-flight request at `stop()`. */
export const SHUTDOWN = Symbol("shutdown");
/** Reason used to abort an in-flight request at the deadline. */
const TIMEOUT = Symbol("timeout");

/** What an attempt needs from the dispatcher's validated options. */
export interface AttemptConfig {
  userAgent: string;
  /** Clock (ms) for `webhook-timestamp`. */
  now: () => number;
  secret: string;
  /** The Standard Webhooks key; undefined = unsigned. */
  standardKey: Uint8Array | undefined;
  timeoutMs: number;
  allowPrivate: boolean;
  gate: Pick<EgressGate, "proxyUrl" | "check"> | undefined;
  doFetch: WebhookFetch;
}

/** The request headers of `row`: caller headers minus transport ones, then the managed and signature headers. */
export function buildHeaders(config: AttemptConfig, row: DueRow): Headers {
  const { userAgent, now, secret, standardKey } = config;
  const headers = new Headers({ "user-agent": userAgent });
  const custom = JSON.parse(row.headers) as Record<string, string>;
  for (const [name, value] of Object.entries(custom)) {
    if (!TRANSPORT_HEADERS.has(name.toLowerCase())) headers.set(name, value);
  }
  // Managed headers last, so a caller header can never replace them.
  const timestampSec = Math.floor(now() / 1000);
  headers.set("content-type", "application/json");
  headers.set("webhook-id", row.id);
  headers.set("webhook-timestamp", String(timestampSec));
  if (standardKey) {
    headers.set("x-firecrawl-signature", firecrawlSignature(secret, row.body));
    headers.set("webhook-signature", standardWebhooksSignature(standardKey, row.id, timestampSec, row.body));
  }
  return headers;
}

/** Sends `row` once and says how it went; never throws. `controller` aborts it (at `stop()` with {@link SHUTDOWN}). */
export async function send(config: AttemptConfig, row: DueRow, controller: AbortController): Promise<Outcome> {
  const { timeoutMs, allowPrivate, gate, doFetch } = config;
  let headers: Headers;
  try {
    headers = buildHeaders(config, row);
  } catch (err) {
    return { kind: "failed", error: `invalid webhook header: ${(err as Error).message}`, permanent: true };
  }
  const timer = setTimeout(() => controller.abort(TIMEOUT), timeoutMs);
  try {
    if (!allowPrivate) await raceAbort(gate!.check(row.url), controller.signal);
    const res = await raceAbort(
      doFetch(row.url, {
        method: "POST",
        headers,
        body: row.body,
        redirect: "manual",
        signal: controller.signal,
        ...(allowPrivate ? {} : { proxy: gate!.proxyUrl }),
      }),
      controller.signal,
    );
    res.body?.cancel().catch(() => {});
    const refused = !allowPrivate && row.url.startsWith("http:") ? errorFromProxyResponse(res) : undefined;
    if (refused) return failure(refused);
    if (res.status >= 200 && res.status < 300) return { kind: "delivered", status: res.status };
    if (res.status >= 300 && res.status < 400) {
      const location = res.headers.get("location");
      return { kind: "failed", status: res.status, error: `redirect not followed (HTTP ${res.status}${location ? ` to ${location}` : ""})`, permanent: false };
    }
    const retryAfter = res.status === 429 || res.status === 503 ? res.headers.get("retry-after") : null;
    return { kind: "failed", status: res.status, error: `HTTP ${res.status}`, permanent: false, ...(retryAfter ? { retryAfter } : {}) };
  } catch (err) {
    if (controller.signal.aborted && controller.signal.reason === SHUTDOWN) return { kind: "interrupted" };
    if (controller.signal.aborted && controller.signal.reason === TIMEOUT) {
      return { kind: "failed", error: `timed out after ${timeoutMs} ms`, permanent: false };
    }
    return failure(errorFromFetchFailure(err) ?? err);
  } finally {
    clearTimeout(timer);
  }
}

/** The setting that lets webhooks reach private receivers without opening the gate to every scrape. */
const WEBHOOK_HINT = "Set CRAWLBOX_ALLOW_PRIVATE_WEBHOOKS=true to deliver webhooks to private networks.";

/**
 * An egress refusal's message for a webhook: the gate's hint to allow private networks for everything
 * ({@link PRIVATE_NETWORK_HINT}, which reaches us as text, from the gate's `check` or the proxy's marker header) is
 * replaced by the narrower webhook setting (config `allowPrivateWebhooks`), which sends deliveries directly and
 * leaves scrapes behind the gate. Other refusals (scheme, port, credentials in the URL) keep their message.
 */
function webhookEgressMessage(message: string): string {
  return message.replace(PRIVATE_NETWORK_HINT, WEBHOOK_HINT);
}

/**
 * A failed outcome for a thrown error: egress refusals are permanent, everything else is retried. The gate's other
 * errors (it could not connect, DNS failed) say what happened in their message; their code is a scrape's
 * (`SCRAPE_SITE_ERROR`), meaningless for a webhook, and is left out: "Could not connect to 127.0.0.1:39602
 * (ECONNREFUSED)." used to end in "(SCRAPE_SITE_ERROR)". A network error's own code (`ECONNRESET`) is kept.
 */
function failure(err: unknown): Outcome {
  if (err instanceof EgressDeniedError) return { kind: "failed", error: `egress refused: ${webhookEgressMessage(err.message)}`, permanent: true };
  if (err instanceof CrawlboxError) return { kind: "failed", error: err.message, permanent: false };
  const code = typeof (err as { code?: unknown })?.code === "string" ? (err as { code: string }).code : "";
  const message = err instanceof Error ? err.message : String(err);
  return { kind: "failed", error: code && !message.includes(code) ? `${message} (${code})` : message, permanent: false };
}

