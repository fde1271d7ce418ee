/**
 * @module server/routes/exchange
 * `/v2/exchange` and everything under it ([LATEST] upstream: Firecrawl Exchange, "Alexandria", the cloud's catalogue of
 * paid data providers). crawlbox has no part of that service, and answers as upstream answers a team without it:
 * 403 "Exchange is not enabled for this team." ({@link ExchangeNotEnabledError}), after the API key is checked,
 * which clients such as the Firecrawl MCP server recognise and report as such.
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
  const detail = { detail: { tags: ["account"], summary: "Firecrawl Exchange (a cloud service): 403 Exchange is not enabled" } };
  return new Elysia({ name: "crawlbox-exchange" })
    .use(authPlugin(services.keys, services.config.authEnabled))
    .all("/v2/exchange", refuse, detail)
    .all("/v2/exchange/*", refuse, detail);
}
