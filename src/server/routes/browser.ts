/**
 * @module server/routes/browser
 * `/v2/browser` and its other name `/v2/interact` (the SDK's `browser`, `browserExecute`, `deleteBrowser` and
 * `listBrowsers`): standalone browser sessions on a blank page, in which code runs (JavaScript or Python with a
 * Playwright-style `page`, or bash agent-browser commands: src/interact, docs/interact.md). They share interact's
 * limits and pages, and the list shows both kinds (an interact session with its `scrapeId`, the id by which these
 * routes also run code in it, give its record and end it). Each has a live view
 * (`liveViewUrl`, routes/live.ts) unless opened with `streamWebView: false`. crawlbox hands out no `cdpUrl` (`""`): a
 * CDP connection would reach past the egress gate. Closing a session opened with a profile to save says whether it
 * was saved (`profileSaved`, beside upstream's fields). A session that ended answers 410 (upstream's "Browser session
 * has been destroyed.") while it is remembered, `GET /v2/browser/{id}` gives its record, and its `/replay` a 404
 * saying that no recording is kept.
 */
import { Elysia } from "elysia";
import { BrowserCreateSchema, BrowserExecuteSchema, parseBrowserCreateBody, parseBrowserExecuteBody } from "../../api/browser.ts";
import { BadRequestError, NotFoundError, UnsupportedOptionError } from "../../errors.ts";
import type { SessionInfo } from "../../interact/session-record.ts";
import { BrowserSessionDestroyedError, BrowserSessionNotFoundError } from "../../interact/session-history.ts";
import { authPlugin } from "../auth.ts";
import type { Services } from "../services.ts";
import { INTERACT_CREDITS, runCode } from "./run-code.ts";
import { liveViewUrls } from "./live.ts";
import { publicBaseUrl } from "../public-url.ts";
import { NO_BROWSER } from "../../scrape/capabilities.ts";

const iso = (ms: number) => new Date(ms).toISOString();

/** A session as the SDK's `BrowserSession` (`base`: the server's public URL, for the live view's). */
function listed(s: SessionInfo, base: string) {
  return {
    id: s.id,
    status: s.status,
    ...(s.scrapeId ? { scrapeId: s.scrapeId } : {}),
    cdpUrl: "",
    ...liveViewUrls(base, s.liveTokens),
    streamWebView: s.streamWebView,
    createdAt: iso(s.createdAt),
    lastActivity: iso(s.lastActivityAt),
    expiresAt: iso(s.expiresAt),
    ...(s.endedAt ? { endedAt: iso(s.endedAt) } : {}),
  };
}

/** `GET /v2/browser?status=`: upstream's three. */
const LIST_STATUSES = ["active", "destroyed", "error"] as const;

/** Where the browser session routes are: upstream's two names for them. */
export const BROWSER_PATHS = ["/v2/browser", "/v2/interact"] as const;

/** The browser session routes, under each of {@link BROWSER_PATHS}. */
export function browserRoutes(services: Services) {
  const { config } = services;
  const sessions = () => {
    if (!services.interact) throw new UnsupportedOptionError("SCRAPE_BROWSER_REQUIRED", `Browser sessions need the browser engine: ${NO_BROWSER}.`);
    return services.interact;
  };
  /** The error for a session `id` that is not open: 410 when it ended (while remembered), else 404. */
  const gone = (id: string, keyId: string) => {
    const s = services.interact?.record(id, keyId);
    return s && s.status !== "active" ? new BrowserSessionDestroyedError(s.status) : new BrowserSessionNotFoundError();
  };
  /** `/replay`: upstream serves a session's recording; crawlbox records none, which a known session is told. */
  const noReplay = (id: string, keyId: string): never => {
    if (!services.interact?.record(id, keyId)) throw new BrowserSessionNotFoundError();
    throw new NotFoundError("Replay not found: crawlbox does not record browser sessions (recordSession is accepted and changes nothing), so no recording is kept.", "BROWSER_REPLAY_NOT_FOUND");
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
          const status = query.status as (typeof LIST_STATUSES)[number] | undefined;
          if (status !== undefined && !LIST_STATUSES.includes(status)) {
            throw new BadRequestError('status is "active", "destroyed" or "error".', [{ code: "invalid_enum_value", path: ["status"], message: 'Expected "active", "destroyed" or "error"' }]);
          }
          return { success: true, sessions: services.interact ? services.interact.list(who.keyId, status).map((s) => listed(s, publicBaseUrl(config.publicUrl, request))) : [] };
        },
        { detail: { tags: ["browser"], summary: "List browser sessions, interact sessions included (open, and ended while this server ran)" } },
      )
      .get(
        `${base}/:id`,
        ({ params, who, request }) => {
          const s = services.interact?.record(params.id, who.keyId);
          if (!s) throw new BrowserSessionNotFoundError();
          return { success: true, ...listed(s, publicBaseUrl(config.publicUrl, request)) };
        },
        { detail: { tags: ["browser"], summary: "A browser session's record, as the list gives it" } },
      )
      .get(`${base}/:id/replay`, ({ params, who }) => noReplay(params.id, who.keyId), { detail: { tags: ["browser"], summary: "A session's recording: crawlbox keeps none (404)" } })
      .get(`${base}/:id/replay/:pageId`, ({ params, who }) => noReplay(params.id, who.keyId), { detail: { tags: ["browser"], summary: "A recorded page of a session: crawlbox keeps none (404)" } })
      .post(
        `${base}/:id/execute`,
        async ({ params, body, who, request }) => {
          const req = parseBrowserExecuteBody(body);
          const interact = sessions();
          // The id of a listed interact session (its scrape's) runs the code there, as /v2/scrape/{id}/interact does.
          const kind = interact.openKind(params.id, who.keyId) ?? "browser";
          const out = await runCode({ services, who, request, code: req.code, language: req.language, timeoutMs: req.timeoutMs, inSession: (work) => interact.inListed(params.id, who.keyId, work), close: () => interact.close(params.id, who.keyId, kind) });
          const tokens = interact.liveTokensOf(kind, params.id, who.keyId);
          return tokens ? { ...out, ...liveViewUrls(publicBaseUrl(config.publicUrl, request), tokens) } : out;
        },
        { detail: { tags: ["browser"], summary: "Run code in a browser session (a listed interact session too, by its scrape's id): JavaScript or Python with a Playwright-style page, or bash agent-browser commands", requestBody: { required: true, content: { "application/json": { schema: BrowserExecuteSchema as object } } } } },
      )
      .delete(
        `${base}/:id`,
        async ({ params, who }) => {
          // The list shows a scrape's interact session under its scrape's id: that id ends it here too, as upstream's.
          const kind = services.interact?.openKind(params.id, who.keyId) ?? "browser";
          const closed = await services.interact?.close(params.id, who.keyId, kind);
          if (!closed) throw gone(params.id, who.keyId);
          // A session with a profile to save says whether it was written (false: given up, the stored one as it was).
          const profile = closed.profileSaved !== undefined ? { profileSaved: closed.profileSaved } : {};
          return { success: true, status: "destroyed", sessionDurationMs: closed.durationMs, creditsBilled: closed.runs * INTERACT_CREDITS, ...profile };
        },
        { detail: { tags: ["browser"], summary: "Close a browser session" } },
      );
  }
  return app;
}
