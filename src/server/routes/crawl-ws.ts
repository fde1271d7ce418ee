/**
 * @module server/routes/crawl-ws
 * The WebSocket form of job status on the same path as `GET /v2/crawl/{id}` (api-v2.md §7.3), which the
 * SDKs' `watcher` uses: `{type:"catchup", data:<status>}` first, then `{type:"document", data}` for each page
 * as it finishes, then close 1000 with reason `{"type":"done"}`, as upstream. No `{type:"done"}` message: both
 * SDKs would take it as "completed" whatever the job's status (a cancelled or failed job too) and end with the
 * documents it carries; on the close they fetch the final status over HTTP instead, every page of it.
 * The same goes for the catch-up: the SDKs take the catch-up of a finished job as its final answer, so a finished
 * job with more than one page of documents gets no catch-up, only the close (upstream puts every document in one
 * catch-up message, of any size). Batches get the same socket on `/v2/batch/scrape/{id}` (upstream has none
 * there; the SDK tries it and falls back to polling). The v1 SDK's watchers get the same socket on
 * `/v1/crawl/{id}`, for a crawl or a batch (its `batchScrapeUrlsAndWatch` opens that path, as upstream's v1 kept
 * batches with crawls), with the documents in v1's shape as the HTTP /v1 routes send them (api/v1.ts).
 * The key comes as the sub-protocol (JS SDK) or an `Authorization` header (Python SDK). Errors: 3000
 * unauthorised, 1008 not found, 1013 over the open sockets allowed per key (`CRAWLBOX_MAX_WATCHERS_PER_KEY`) or per
 * job (routes/job-watchers.ts), which the JS SDK's watcher answers by polling. A job's sockets share one poll.
 */
import { Elysia } from "elysia";
import { documentToV1 } from "../../api/v1.ts";
import { CrawlboxError } from "../../errors.ts";
import type { JobKind } from "../../jobs/types.ts";
import { authenticate } from "../auth.ts";
import { publicBaseUrl } from "../public-url.ts";
import type { Services } from "../services.ts";
import { JobWatchers, MAX_WATCHERS_PER_JOB, type JobWatcher } from "./job-watchers.ts";
import { nextLinkBuilder } from "./job-status.ts";

/** How often a watched job is looked at for newly finished pages (one poll per job, however many sockets). */
const POLL_MS = 500;
/** Close code of a socket refused for the caps (RFC 6455's registry: "Try Again Later"). */
const TRY_AGAIN_LATER = 1013;
/** Close reason of a socket whose job has ended (upstream's). */
const DONE_REASON = JSON.stringify({ type: "done" });

/** The /v2 documents as they are. */
const asIs = (doc: Record<string, unknown>): unknown => doc;

/** One socket route: the jobs it serves, its path prefix (`${prefix}/:id`) and the documents' shape. */
interface SocketRoute {
  kinds: readonly JobKind[];
  prefix: string;
  toWire: (doc: Record<string, unknown>) => unknown;
}

/** The socket routes, each on the path of an HTTP `GET …/{id}` status route. */
const SOCKET_ROUTES: readonly SocketRoute[] = [
  // A batch too, as on the HTTP route: the SDK's watcher defaults to kind "crawl" (api-v2.md, upstream's group lookup).
  { kinds: ["crawl", "batch"], prefix: "/v2/crawl", toWire: asIs },
  { kinds: ["batch"], prefix: "/v2/batch/scrape", toWire: asIs },
  // The v1 SDK's crawlUrlAndWatch and batchScrapeUrlsAndWatch speak the same protocol (catch-up, documents, the
  // close's `{"type":"done"}`), both on this path.
  { kinds: ["crawl", "batch"], prefix: "/v1/crawl", toWire: documentToV1 },
];

/**
 * The OpenAPI paths whose `GET` also takes this WebSocket upgrade. OpenAPI 3.1 has no operation for a WebSocket (a
 * `ws` key in a Path Item is invalid), so server/docs.ts leaves the socket routes out of the document and adds
 * {@link JOB_SOCKET_NOTE} to these GETs' descriptions instead.
 */
export const JOB_SOCKET_OPENAPI_PATHS: readonly string[] = SOCKET_ROUTES.map((r) => `${r.prefix}/{id}`);

/** What the OpenAPI document says of the socket, on each of {@link JOB_SOCKET_OPENAPI_PATHS}' GET. */
export const JOB_SOCKET_NOTE =
  "The same path also takes a WebSocket upgrade (the SDKs' `watcher`; key as the sub-protocol or an " +
  "`Authorization` header): a `{type:\"catchup\", data:<status>}` message, then `{type:\"document\", data}` for each " +
  "page as it finishes, then close 1000 with reason `{\"type\":\"done\"}`; closes 3000 when unauthorised, 1008 when " +
  "the job is not found, 1013 when the key or the job has as many sockets open as allowed (poll instead).";

/** The crawl and batch WebSocket routes, sharing one {@link JobWatchers} (its caps count every route's sockets). */
export function crawlSocketRoutes(services: Services) {
  const watchers = new JobWatchers(
    { status: (id) => services.jobStore.get(id), page: (id, skip, limit) => services.jobResults.page(id, skip, limit) },
    { perKey: services.config.maxWatchersPerKey, perJob: MAX_WATCHERS_PER_JOB },
    POLL_MS,
    DONE_REASON,
  );
  let app = new Elysia({ name: "crawlbox-job-ws" });
  for (const r of SOCKET_ROUTES) app = app.use(jobSocket(services, watchers, r.kinds, r.prefix, r.toWire));
  return app;
}

/**
 * The socket on `${prefix}/:id` for jobs of `kinds`, sending each document as `toWire` shapes it (the catch-up's
 * documents too). A socket over the key's or the job's cap closes 1013 ("try again later") with the reason and no
 * `{type:"error"}` message: the JS SDK's watcher then falls back to polling the status route (an error message
 * would end it with an error instead).
 */
function jobSocket(services: Services, watchers: JobWatchers, kinds: readonly JobKind[], prefix: string, toWire: (doc: Record<string, unknown>) => unknown) {
  const { jobs, config } = services;
  const open = new WeakMap<object, JobWatcher>();
  return new Elysia({ name: `crawlbox-ws${prefix}` }).ws(`${prefix}/:id`, {
    open(ws) {
      const headers = ws.data.headers as Record<string, string | undefined>;
      let who;
      try {
        who = authenticate(headers, services.keys, config.authEnabled);
      } catch {
        ws.send({ type: "error", error: "Unauthorized" });
        ws.close(3000, "Unauthorized");
        return;
      }
      let job;
      try {
        job = jobs.owned((ws.data.params as { id: string }).id, who, kinds);
      } catch (err) {
        ws.send({ type: "error", error: err instanceof CrawlboxError ? err.message : "Job not found" });
        ws.close(1008, "Job not found");
        return;
      }
      const refused = watchers.refusal(who.keyId, job.id);
      if (refused) {
        ws.close(TRY_AGAIN_LATER, refused);
        return;
      }
      const base = publicBaseUrl(config.publicUrl, ws.data.request);
      const catchup = jobs.statusPage(job, 0, undefined, nextLinkBuilder(base, `${prefix}/${job.id}`, undefined));
      if (job.status !== "scraping" && catchup.body.next) {
        ws.close(1000, DONE_REASON);
        return;
      }
      ws.send({ type: "catchup", data: { ...catchup.body, data: catchup.body.data.map(toWire) } });
      const watcher = watchers.add({
        keyId: who.keyId,
        jobId: job.id,
        position: catchup.cursor,
        send: (doc) => ws.send({ type: "document", data: toWire(doc) }),
        end: (code, reason, error) => {
          if (error !== undefined) ws.send({ type: "error", error });
          ws.close(code, reason);
        },
      });
      open.set(ws.raw, watcher);
    },
    close(ws) {
      const watcher = open.get(ws.raw);
      if (watcher) watchers.remove(watcher);
    },
  });
}
