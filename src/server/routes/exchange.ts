/**
 * @module server/routes/exchange
 * `/v2/exchange` and everything under it ([LATEST] upstream: Firecrawl Exchange, "Alexandria", the cloud's catalogue of
 * paid data providers). crawlbox has no part of that service, and answers as upstream answers a team without it:
 * 403 "Exchange is not enabled for this team." ({@link ExchangeNotEnabledError}), after the API key is checked,
 * which clients such as the Firecrawl MCP server recognise and report as such.
 *
 * The routes answer every method, so they are `.all()` routes; those are hidden from the OpenAPI document and
 * described by {@link EXCHANGE_OPENAPI_PATHS} instead, because the generator would list one `.all()` route under
 * all eight methods with one operationId (OpenAPI 3.1 §4.8.10 wants them unique) and print the wildcard as a
 * literal `/v2/exchange/*` path, which is no path template.
 */
import { Elysia } from "elysia";
import { ExchangeNotEnabledError } from "../../errors.ts";
import { authPlugin } from "../auth.ts";
import type { Services } from "../services.ts";

/** The Exchange routes: every method, 403 for a known key. */
export function exchangeRoutes(services: Services) {
  const refuse = () => {
    throw new ExchangeNotEnabledError();
  };
  const hidden = { detail: { hide: true } };
  return new Elysia({ name: "crawlbox-exchange" })
    .use(authPlugin(services.keys, services.config.authEnabled))
    .all("/v2/exchange", refuse, hidden)
    .all("/v2/exchange/*", refuse, hidden);
}

/** The methods upstream's clients use on the Exchange routes (GET to browse, POST to call a provider). */
const DOCUMENTED_METHODS = ["get", "post"] as const;

/** The error envelope both answers carry. */
const ERROR_BODY = {
  "application/json": {
    schema: {
      type: "object",
      properties: { success: { const: false }, code: { type: "string" }, error: { type: "string" } },
      required: ["success", "error"],
    },
  },
};

/** One operation of the Exchange routes, as an OpenAPI 3.1 Operation Object. */
function exchangeOperation(method: (typeof DOCUMENTED_METHODS)[number], withPath: boolean) {
  return {
    tags: ["account"],
    summary: "Firecrawl Exchange (a cloud service): 403 Exchange is not enabled",
    description:
      "crawlbox has no Firecrawl Exchange; every method on this path answers as upstream does for a team without it: " +
      '403 `{"success":false,"code":"EXCHANGE_NOT_ENABLED","error":"Exchange is not enabled for this team."}`.',
    operationId: `${method}V2Exchange${withPath ? "ByPath" : ""}`,
    ...(withPath
      ? {
          parameters: [{
            name: "path",
            in: "path",
            required: true,
            description: "The rest of the path under /v2/exchange/ (any depth).",
            schema: { type: "string" },
          }],
        }
      : {}),
    responses: {
      "401": { description: "No or unknown API key", content: ERROR_BODY },
      "403": { description: "Exchange is not enabled for this team.", content: ERROR_BODY },
    },
  };
}

/**
 * The OpenAPI Path Items of the Exchange routes, merged into the document by server/docs.ts: GET and POST on
 * `/v2/exchange` and `/v2/exchange/{path}`, each with its own operationId.
 */
export const EXCHANGE_OPENAPI_PATHS = {
  "/v2/exchange": Object.fromEntries(DOCUMENTED_METHODS.map((m) => [m, exchangeOperation(m, false)])),
  "/v2/exchange/{path}": Object.fromEntries(DOCUMENTED_METHODS.map((m) => [m, exchangeOperation(m, true)])),
};
