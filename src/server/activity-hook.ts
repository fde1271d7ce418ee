/**
 * @module server/activity-hook
 * Notes each successful request that starts or runs a job in the caller's activity (auth/activity.ts), from one hook
 * after every handler: which route it was says the endpoint, the answer gives the job's id, the body what it was
 * about. Requests forwarded from /v1 are noted as such; zero-data-retention requests are not noted at all.
 */
import { Elysia } from "elysia";
import type { ActivityEndpoint, ActivityLog } from "../auth/activity.ts";
import type { KeyIdentity } from "../auth/keys.ts";
import { partitionUrls, sourceUrlOf } from "../api/url.ts";
import { firstAnswerOf } from "../idempotency/guard.ts";
import { API_VERSION_HEADER } from "./routes/v1.ts";

type Json = Record<string, unknown> | undefined;
const str = (v: unknown) => (typeof v === "string" && v.length > 0 ? v : undefined);
const first = (v: unknown) => (Array.isArray(v) ? str(v[0]) : undefined);
/**
 * A batch's target: its first URL that is scraped, as upstream notes it (the body's `urls` once the invalid ones are
 * left out, `http://` prepended where missing), never one refused into `invalidURLs`.
 */
const firstValid = (v: unknown) => {
  // URL by URL: the first valid one is usually the first, and a batch may hold 100,000 (checking all took ~0.1 s).
  for (const u of Array.isArray(v) ? v : []) {
    if (typeof u !== "string") continue;
    const valid = partitionUrls([u]).valid[0];
    if (valid) return sourceUrlOf(valid.original);
  }
  return undefined;
};

/**
 * The POST routes noted: the endpoint, and the job's id and target from the body, the answer and the path. `id` gives
 * undefined for a request that starts no job of its own: an `appendToId` adds URLs to a batch already noted (upstream
 * notes a batch only without `appendToId`), so appending does not list the same batch again.
 */
const NOTED: { path: RegExp; endpoint: ActivityEndpoint; id: (answer: Json, m: RegExpExecArray, body: Json) => string | undefined; target: (body: Json) => string | undefined }[] = [
  { path: /^\/v2\/scrape$/, endpoint: "scrape", id: (a) => str(((a?.data as Json)?.metadata as Json)?.scrapeId), target: (b) => str(b?.url) },
  { path: /^\/v2\/crawl$/, endpoint: "crawl", id: (a) => str(a?.id), target: (b) => str(b?.url) },
  { path: /^\/v2\/batch\/scrape$/, endpoint: "batch_scrape", id: (a, _m, b) => (b?.appendToId === undefined ? str(a?.id) : undefined), target: (b) => firstValid(b?.urls) },
  { path: /^\/v2\/search$/, endpoint: "search", id: (a) => str(a?.id), target: (b) => str(b?.query) },
  { path: /^\/v2\/extract$/, endpoint: "extract", id: (a) => str(a?.id), target: (b) => first(b?.urls) ?? str(b?.prompt) },
  { path: /^\/v2\/map$/, endpoint: "map", id: (a) => str(a?.id), target: (b) => str(b?.url) },
  { path: /^\/v2\/agent$/, endpoint: "agent", id: (a) => str(a?.id), target: (b) => str(b?.prompt) },
  { path: /^\/v2\/(?:browser|interact)$/, endpoint: "browser", id: (a) => str(a?.id), target: () => undefined },
  { path: /^\/v2\/scrape\/([^/]+)\/interact$/, endpoint: "interact", id: (_a, m) => decodeURIComponent(m[1]!), target: (b) => str(b?.prompt) },
];

/** Whether the request asked for zero data retention (nothing of it is kept, its activity included). */
function zeroDataRetention(body: Json): boolean {
  return body?.zeroDataRetention === true || (Array.isArray(body?.enterprise) && body.enterprise.includes("zdr")) || (body?.scrapeOptions as Json)?.zeroDataRetention === true;
}

/** The hook, as a plugin applying to every route of the app it is used in. */
export function activityHook(log: ActivityLog) {
  return new Elysia({ name: "crawlbox-activity" }).onAfterHandle({ as: "global" }, (ctx) => {
    const { request } = ctx;
    if (request.method !== "POST") return;
    const who = (ctx as unknown as { who?: KeyIdentity }).who;
    const response = (ctx as unknown as { response?: unknown }).response;
    // With an Idempotency-Key the route answers a ready Response: its handler's object is kept beside it (a replay
    // has none, and is not noted again).
    const answer = response instanceof Response ? firstAnswerOf(response) : response;
    if (!who || typeof answer !== "object" || answer === null || (answer as Json)?.success !== true) return;
    const path = new URL(request.url).pathname;
    for (const route of NOTED) {
      const m = route.path.exec(path);
      if (!m) continue;
      const body = typeof ctx.body === "object" && ctx.body !== null ? (ctx.body as Json) : undefined;
      const id = route.id(answer as Json, m, body);
      if (id && !zeroDataRetention(body)) {
        log.record(who.keyId, { id, endpoint: route.endpoint, apiVersion: request.headers.get(API_VERSION_HEADER) === "v1" ? "v1" : "v2", target: route.target(body) ?? null });
      }
      return;
    }
  });
}
