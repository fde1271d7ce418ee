/**
 * @module server/app
 * The Elysia application: body parsing, the error envelope, docs, health, and the /v2 controllers. Controllers
 * are thin: they validate, resolve the caller and hand a normalised spec to a service.
 *
 * `normalize: false` matters: with it, Elysia rejects unknown body keys (TypeBox `additionalProperties:false`)
 * instead of silently stripping them, which the /v2 contract requires (api-v2.md §2.1).
 */
import { Elysia } from "elysia";
import { DeferredUpload, parseJsonBody, readBodyText } from "./body-parser.ts";
import { corsPlugin } from "./cors.ts";
import { docsPlugin } from "./docs.ts";
import { httpStatusFor, mapError } from "./error-handler.ts";
import { accountRoutes } from "./routes/account.ts";
import { batchRoutes } from "./routes/batch.ts";
import { crawlRoutes } from "./routes/crawl.ts";
import { crawlSocketRoutes } from "./routes/crawl-ws.ts";
import { liveRoutes } from "./routes/live.ts";
import { monitorEmailRoutes } from "./routes/monitor-email.ts";
import { fileRoutes } from "./routes/files.ts";
import { healthRoutes } from "./routes/health.ts";
import { mapRoutes } from "./routes/map.ts";
import { scrapeRoutes } from "./routes/scrape.ts";
import { searchRoutes } from "./routes/search.ts";
import { extractRoutes } from "./routes/extract.ts";
import { agentRoutes } from "./routes/agent.ts";
import { monitorRoutes } from "./routes/monitor.ts";
import { parseRoutes } from "./routes/parse.ts";
import { exchangeRoutes } from "./routes/exchange.ts";
import { parseUploadRoutes } from "./routes/parse-upload.ts";
import { UPLOAD_ROUTE_PREFIX } from "../parse/upload-refs.ts";
import { webhookRoutes } from "./routes/webhooks.ts";
import { v1Routes } from "./routes/v1.ts";
import { browserRoutes } from "./routes/browser.ts";
import { feedbackRoutes } from "./routes/feedback.ts";
import { interactRoutes } from "./routes/interact.ts";
import type { Services } from "./services.ts";
import { activityHook } from "./activity-hook.ts";

/** The monitor emails' confirm and unsubscribe links (routes/monitor-email.ts). */
const MONITOR_EMAIL_PREFIX = "/v2/monitor/email/";

/** Builds the HTTP application over `services`. */
export function createApp(services: Services) {
  const { config, log } = services;
  const app = new Elysia({ name: "crawlbox", normalize: false })
    .use(corsPlugin(config.corsOrigins, config.authEnabled, [config.host, config.publicUrl ? new URL(config.publicUrl).hostname : ""]))
    // Every body is JSON, whatever its Content-Type says (curl's -d), except a multipart upload to POST /v2/parse and
    // the file PUT to a parse upload URL (their routes read them), and the monitor email links, whose POST a mail
    // client sends as a form (RFC 8058 one-click unsubscribe: `List-Unsubscribe=One-Click`): read and not needed.
    .onParse(({ request }) => {
      const path = new URL(request.url).pathname;
      const multipart = (request.headers.get("content-type") ?? "").toLowerCase().startsWith("multipart/form-data") && path === "/v2/parse";
      if (multipart || (request.method === "PUT" && path.startsWith(UPLOAD_ROUTE_PREFIX))) return new DeferredUpload();
      // Read before authentication, so within a time limit: a stalled sender is a 408, not a socket held for minutes.
      if (path.startsWith(MONITOR_EMAIL_PREFIX)) return readBodyText(request, config.maxRequestBodyBytes, config.defaultTimeoutMs).then(() => ({}));
      return parseJsonBody(request, config.maxRequestBodyBytes, config.defaultTimeoutMs);
    })
    .onError(({ code, error, set, request }) => {
      const e = mapError(code, error, log, request.signal.aborted, services.drain.ended);
      set.status = httpStatusFor(e);
      if (e.status === 401) set.headers["www-authenticate"] = 'Bearer realm="crawlbox", error="invalid_token"';
      // A 429/503 that knows when to come back (an LLM provider's Retry-After) says so in the standard header too.
      const retryAfter = (e.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
      // So does a 408 whose document is still being converted (`processing_continues`: the SDKs send it again then).
      if ((e.status === 429 || e.status === 503 || e.status === 408) && typeof retryAfter === "number") set.headers["retry-after"] = String(Math.max(0, Math.ceil(retryAfter)));
      // A body not read to its end (stalled, or too large): the connection is closed after the answer. Kept alive, its
      // socket stayed open as long as the client held it, past the idle timeout: 200 stalled senders held 200 sockets.
      if (e.code === "REQUEST_BODY_TIMEOUT" || e.code === "PAYLOAD_TOO_LARGE") set.headers["connection"] = "close";
      // A stopping server's answer: the connection is not for reuse, the next request belongs to the restarted one.
      else if (e.code === "SERVER_STOPPING") set.headers["connection"] = "close";
      // Upstream's 401 body is exactly {success:false, error:"Unauthorized"}; keep the code for our clients too.
      return e.toBody();
    })
    .use(activityHook(services.activity))
    .use(docsPlugin(services.version))
    .use(healthRoutes(services))
    .use(accountRoutes(services))
    .use(fileRoutes(services))
    .use(liveRoutes(services))
    .use(monitorEmailRoutes(services))
    .use(scrapeRoutes(services))
    .use(interactRoutes(services))
    .use(browserRoutes(services))
    .use(feedbackRoutes(services))
    .use(crawlSocketRoutes(services))
    .use(crawlRoutes(services))
    .use(batchRoutes(services))
    .use(mapRoutes(services))
    .use(searchRoutes(services))
    .use(extractRoutes(services))
    .use(agentRoutes(services))
    .use(monitorRoutes(services))
    .use(parseUploadRoutes(services))
    .use(parseRoutes(services))
    .use(webhookRoutes(services))
    .use(exchangeRoutes(services));
  // /v1 answers by handing each request, rewritten, to the /v2 routes above (routes/v1.ts).
  return app.use(v1Routes(services, (request) => app.handle(request)));
}

/** The type of the application, for tests that call `app.handle`. */
export type App = ReturnType<typeof createApp>;
