/**
 * @module server/routes/v1
 * The /v1 API for older clients (docs/api.md "The /v1 API"): each /v1 route turns its body into the /v2 body it means
 * (api/v1.ts), hands the request to the /v2 route in-process (same authentication, validation, services, errors,
 * idempotency), and gives the answer back in /v1's shape: `links` of a map as strings, search results as `data`,
 * `next` and job URLs under /v1, a scrape's JSON under `extract` when that format was asked for, usage in
 * snake_case. Errors pass through as /v2 answers them (the same envelope), an unknown key's message in v1's words.
 */
import { Elysia } from "elysia";
import { batchBodyFromV1, crawlBodyFromV1, creditUsageToV1, documentToV1, extractBodyFromV1, mapBodyFromV1, scrapeBodyFromV1, searchBodyFromV1, tokenUsageToV1 } from "../../api/v1.ts";
import { deepResearchBodyToAgent, deepResearchLimits, deepResearchStatusFromAgent } from "../../api/v1-deep-research.ts";
import { RESEARCH_LIMITS_HEADER } from "../../api/agent.ts";
import { UNRECOGNIZED_KEY_MESSAGE, UNRECOGNIZED_KEY_MESSAGE_V1 } from "../../api/issues.ts";
import { authPlugin } from "../auth.ts";
import type { Services } from "../services.ts";

/** Hands a request to the application (the /v2 routes). */
export type Forward = (request: Request) => Response | Promise<Response>;

type Body = Record<string, unknown>;

/** Marks a request forwarded from /v1 (it only labels the key's own activity, so a client setting it does no harm). */
export const API_VERSION_HEADER = "x-crawlbox-api-version";

/** Request headers a forwarded request keeps (the body is new, so its length and encoding are not). */
const DROPPED_HEADERS = new Set(["content-length", "transfer-encoding", "content-encoding"]);

/**
 * `request` sent again to `path` (with its query) as `method`, with `body` as JSON when given. It carries the
 * client's abort: a client that gives up stops the work, as on /v2.
 */
function forwarded(request: Request, path: string, body?: Body, method = request.method): Request {
  const from = new URL(request.url);
  const headers = new Headers();
  request.headers.forEach((value, name) => {
    if (!DROPPED_HEADERS.has(name)) headers.set(name, value);
  });
  if (body !== undefined) headers.set("content-type", "application/json");
  // The activity log (auth/activity.ts) notes the request as a /v1 one.
  headers.set(API_VERSION_HEADER, "v1");
  return new Request(new URL(path + from.search, from), { method, headers, signal: request.signal, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
}

/** A route parameter as one path segment: a decoded `../` or `?` in an id must not reach another route. */
const seg = (value: string) => encodeURIComponent(value);

/**
 * A /v2 error answer as /v1's: the same, but an unknown key's message points at the v1 API documentation, as
 * upstream's v1 schemas said (api/issues.ts).
 */
async function v1Error(response: Response): Promise<Response> {
  if (response.status !== 400 || !(response.headers.get("content-type") ?? "").includes("json")) return response;
  const text = await response.text();
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(text.replaceAll(UNRECOGNIZED_KEY_MESSAGE, UNRECOGNIZED_KEY_MESSAGE_V1), { status: response.status, headers });
}

/** The /v2 answer's JSON reshaped by `shape` when it succeeded; an error answer as /v1's ({@link v1Error}). */
async function reshaped(response: Response, shape: (json: Body) => Body): Promise<Response> {
  if (!response.ok) return v1Error(response);
  if (!(response.headers.get("content-type") ?? "").includes("json")) return response;
  const json = (await response.json()) as Body;
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(shape(json)), { status: response.status, headers });
}

/** A /v2 URL in an answer as its /v1 twin. */
const v1Url = (u: unknown) => (typeof u === "string" ? u.replace("/v2/", "/v1/") : u);

/** Documents in v1's shape (their JSON answer under `extract` too). */
const documents = (data: unknown) => (Array.isArray(data) ? data.map(documentToV1) : data);

/** A job status (crawl, batch) with its documents in v1's shape and its `next` under /v1. */
const jobStatus = (json: Body): Body => ({ ...json, data: documents(json.data), ...(json.next === undefined ? {} : { next: v1Url(json.next) }) });

/** The /v1 routes over `forward`; the caller is authenticated here first, so a wrong key is a 401 before any 400. */
export function v1Routes(services: Pick<Services, "keys" | "config" | "jobStore" | "agent">, forward: Forward) {
  const pass = (path: (params: Record<string, string>) => string, shape: (json: Body) => Body = (j) => j, method?: string) => async ({ request, params }: { request: Request; params: Record<string, string> }) =>
    reshaped(await forward(forwarded(request, path(params), undefined, method)), shape);
  const convert = (path: string, body: (b: unknown) => Body, shape: (json: Body) => Body) => async ({ request, body: raw }: { request: Request; body: unknown }) =>
    reshaped(await forward(forwarded(request, path, body(raw))), shape);
  const detail = (summary: string) => ({ detail: { tags: ["v1"], summary } });
  /** A job's /v2 route under /v1/crawl/{id}: its stored kind picks it; an unknown id gets the crawl route's answer. */
  const jobPath = (id: string, rest = "") => `/v2/${services.jobStore.get(id)?.kind === "batch" ? "batch/scrape" : "crawl"}/${seg(id)}${rest}`;

  return new Elysia({ name: "crawlbox-v1" })
    .use(authPlugin(services.keys, services.config.authEnabled))
    .post("/v1/scrape", convert("/v2/scrape", scrapeBodyFromV1, (json) => ({ ...json, data: documentToV1(json.data) })), detail("v1: scrape one URL"))
    .get("/v1/scrape/:id", pass((p) => `/v2/scrape/${seg(p.id)}`, (json) => ({ ...json, data: documentToV1(json.data) })), detail("v1: a stored scrape"))
    .post("/v1/crawl", convert("/v2/crawl", crawlBodyFromV1, (json) => ({ ...json, url: v1Url(json.url) })), detail("v1: start a crawl"))
    .get("/v1/crawl/active", pass(() => "/v2/crawl/active"), detail("v1: running crawls"))
    // Upstream's v1 served both kinds at /v1/crawl/{id} (status, cancel, errors): the v1 SDK's batchScrapeUrls
    // polls a batch there, and its cancelCrawl is the only way it cancels one.
    .get("/v1/crawl/:id", pass((p) => jobPath(p.id), jobStatus), detail("v1: a crawl's (or a batch's) status"))
    .delete("/v1/crawl/:id", pass((p) => jobPath(p.id)), detail("v1: cancel a crawl (or a batch)"))
    // The v1 SDK asks for a crawl's errors with DELETE; both methods read them (and cancel nothing).
    .get("/v1/crawl/:id/errors", pass((p) => jobPath(p.id, "/errors")), detail("v1: a crawl's (or a batch's) errors"))
    .delete("/v1/crawl/:id/errors", pass((p) => jobPath(p.id, "/errors"), undefined, "GET"), detail("v1: a crawl's (or a batch's) errors"))
    .post("/v1/batch/scrape", convert("/v2/batch/scrape", batchBodyFromV1, (json) => ({ ...json, url: v1Url(json.url) })), detail("v1: start a batch scrape"))
    .get("/v1/batch/scrape/:id", pass((p) => `/v2/batch/scrape/${seg(p.id)}`, jobStatus), detail("v1: a batch's status"))
    .delete("/v1/batch/scrape/:id", pass((p) => `/v2/batch/scrape/${seg(p.id)}`), detail("v1: cancel a batch"))
    .get("/v1/batch/scrape/:id/errors", pass((p) => `/v2/batch/scrape/${seg(p.id)}/errors`), detail("v1: a batch's errors"))
    .delete("/v1/batch/scrape/:id/errors", pass((p) => `/v2/batch/scrape/${seg(p.id)}/errors`, undefined, "GET"), detail("v1: a batch's errors"))
    .post(
      "/v1/map",
      convert("/v2/map", mapBodyFromV1, (json) => ({ ...json, links: Array.isArray(json.links) ? json.links.map((l) => (typeof l === "object" && l !== null ? (l as Body).url : l)) : json.links })),
      detail("v1: map a site (links as strings)"),
    )
    .post(
      "/v1/search",
      convert("/v2/search", searchBodyFromV1, (json) => ({ ...json, data: documents(((json.data as Body | undefined)?.web as unknown[] | undefined) ?? []) })),
      detail("v1: web search (results as data)"),
    )
    .post("/v1/extract", convert("/v2/extract", extractBodyFromV1, (json) => json), detail("v1: start an extract job"))
    .get("/v1/extract/:id", pass((p) => `/v2/extract/${seg(p.id)}`), detail("v1: an extract job"))
    .get("/v1/team/credit-usage", pass(() => "/v2/team/credit-usage", creditUsageToV1), detail("v1: credit usage (snake_case)"))
    .get("/v1/team/credit-usage/historical", pass(() => "/v2/team/credit-usage/historical"), detail("v1: credit usage by month"))
    .get("/v1/team/token-usage", pass(() => "/v2/team/token-usage", tokenUsageToV1), detail("v1: token usage (snake_case)"))
    .get("/v1/team/token-usage/historical", pass(() => "/v2/team/token-usage/historical"), detail("v1: token usage by month"))
    .get("/v1/team/queue-status", pass(() => "/v2/team/queue-status"), detail("v1: queue status"))
    .get("/v1/concurrency-check", pass(() => "/v2/concurrency-check"), detail("v1: scrapes running now and the limit"))
    // Deprecated upstream; served by the agent (api/v1-deep-research.ts).
    .post(
      "/v1/deep-research",
      async ({ request, body: raw }) => {
        const req = forwarded(request, "/v2/agent", deepResearchBodyToAgent(raw));
        // timeLimit and maxDepth bound the run's reading (api/agent.ts RESEARCH_LIMITS_HEADER).
        req.headers.set(RESEARCH_LIMITS_HEADER, JSON.stringify(deepResearchLimits(raw)));
        return reshaped(await forward(req), (json) => ({ success: json.success, id: json.id }));
      },
      detail("v1: start deep research (an agent run)"),
    )
    .get(
      "/v1/deep-research/:id",
      async ({ request, params, who }) => {
        const run = await forward(forwarded(request, `/v2/agent/${seg(params.id)}`));
        if (!run.ok) return run;
        const trace = await forward(forwarded(request, `/v2/agent/${seg(params.id)}/trace`));
        const events = trace.ok ? (((await trace.json()) as Body).events as Body[] | undefined) ?? [] : [];
        const maxDepth = services.agent.get(params.id, who.keyId)?.request.research?.maxDepth;
        return Response.json(deepResearchStatusFromAgent((await run.json()) as Body, events, maxDepth));
      },
      detail("v1: deep research status (the agent run's)"),
    );
}
