/**
 * @module server/routes/browser
 * `/v2/browser` and its other name `/v2/interact` (the SDK's `browser`, `browserExecute`, `deleteBrowser` and
 * `listBrowsers`): standalone browser
 * sessions on a blank page, in which bash code (agent-browser commands: open, snapshot, click, …) runs
 * (src/interact, docs/interact.md). They share interact's limits and pages. Each has a live view (`liveViewUrl`,
 * routes/live.ts) unless opened with `streamWebView: false`. crawlbox hands out no `cdpUrl` (`""`): a CDP
 * connection would reach past the egress gate.
 */
import { Elysia } from "elysia";
import { BrowserCreateSchema, BrowserExecuteSchema, parseBrowserCreateBody, parseBrowserExecuteBody } from "../../api/browser.ts";
import { BadRequestError, NotFoundError, UnsupportedOptionError } from "../../errors.ts";
import type { SessionInfo } from "../../interact/session-record.ts";
import { authPlugin } from "../auth.ts";
import type { Services } from "../services.ts";
import { INTERACT_CREDITS, runCode } from "./run-code.ts";
import { liveViewUrls } from "./live.ts";
import { publicBaseUrl } from "../public-url.ts";
import { NO_BROWSER } from "../../scrape/capabilities.ts";

const iso = (ms: number) => new Date(ms).toISOString();

/** A session as the SDK's `BrowserSession` (`base`: the server's public URL, for the live view's). */
function listed(s: SessionInfo, base: string) {
  return { id: s.id, status: s.status, cdpUrl: "", ...liveViewUrls(base, s.liveTokens), streamWebView: s.streamWebView, createdAt: iso(s.createdAt), lastActivity: iso(s.lastActivityAt), expiresAt: iso(s.expiresAt), ...(s.endedAt ? { endedAt: iso(s.endedAt) } : {}) };
}

/** Where the browser session routes are: upstream's two names for them. */
export const BROWSER_PATHS = ["/v2/browser", "/v2/interact"] as const;

/** The browser session routes, under each of {@link BROWSER_PATHS}. */
export function browserRoutes(services: Services) {
  const { config } = services;
  const sessions = () => {
    if (!services.interact) throw new UnsupportedOptionError("SCRAPE_BROWSER_REQUIRED", `Browser sessions need the browser engine: ${NO_BROWSER}.`);
    return services.interact;
  };
  const app = new Elysia({ name: "crawlbox-browser" }).use(authPlugin(services.keys, config.authEnabled));
  // Upstream serves the same routes under both names (`/v2/interact` is its documented one, the SDK calls `/v2/browser`).
  for (const base of BROWSER_PATHS) {
    app
      .post(
        base,
        async ({ body, who, request }) => {
          const req = parseBrowserCreateBody(body);
          const s = await sessions().create({ keyId: who.keyId, lifeMs: req.lifeMs, idleMs: req.idleMs, liveView: req.liveView, signal: request.signal, ...(req.profile ? { profile: { store: services.profiles, ...req.profile } } : {}) });
          return { success: true, id: s.id, cdpUrl: "", ...liveViewUrls(publicBaseUrl(config.publicUrl, request), s.liveTokens), expiresAt: iso(s.expiresAt) };
        },
        { detail: { tags: ["browser"], summary: "Open a browser session", requestBody: { required: false, content: { "application/json": { schema: BrowserCreateSchema as object } } } } },
      )
      .get(
        base,
        ({ query, who, request }) => {
          const status = query.status;
          if (status !== undefined && status !== "active" && status !== "destroyed") {
            throw new BadRequestError('status is "active" or "destroyed".', [{ code: "invalid_enum_value", path: ["status"], message: 'Expected "active" or "destroyed"' }]);
          }
          return { success: true, sessions: services.interact ? services.interact.list(who.keyId, status).map((s) => listed(s, publicBaseUrl(config.publicUrl, request))) : [] };
        },
        { detail: { tags: ["browser"], summary: "List browser sessions (open, and ended while this server ran)" } },
      )
      .post(
        `${base}/:id/execute`,
        async ({ params, body, who, request }) => {
          const req = parseBrowserExecuteBody(body);
          const interact = sessions();
          const out = await runCode({ services, who, request, code: req.code, language: req.language, timeoutMs: req.timeoutMs, inSession: (work) => interact.inBrowser(params.id, who.keyId, work), close: () => interact.close(params.id, who.keyId, "browser") });
          const tokens = interact.liveTokensOf("browser", params.id, who.keyId);
          return tokens ? { ...out, ...liveViewUrls(publicBaseUrl(config.publicUrl, request), tokens) } : out;
        },
        { detail: { tags: ["browser"], summary: "Run code in a browser session: JavaScript or Python with a Playwright-style page, or bash agent-browser commands", requestBody: { required: true, content: { "application/json": { schema: BrowserExecuteSchema as object } } } } },
      )
      .delete(
        `${base}/:id`,
        async ({ params, who }) => {
          const closed = await services.interact?.close(params.id, who.keyId, "browser");
          if (!closed) throw new NotFoundError("Browser session not found.");
          return { success: true, status: "destroyed", sessionDurationMs: closed.durationMs, creditsBilled: closed.runs * INTERACT_CREDITS };
        },
        { detail: { tags: ["browser"], summary: "Close a browser session" } },
      );
  }
  return app;
}
