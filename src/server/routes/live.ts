/**
 * @module server/routes/live
 * Live views of browser sessions (interact/live-view.ts): `GET /v2/live/{token}`, a page showing the session's page
 * as it changes, and `GET /v2/live/{token}/stream`, the MJPEG stream it shows. The token is the capability (a
 * browser opening the page sends no API key), so no key is asked; an unknown or ended token is a 404. The page is
 * static HTML with no script, and its headers let it load nothing but its own stream.
 */
import { Elysia } from "elysia";
import { NotFoundError, TooManyRequestsError } from "../../errors.ts";
import { LiveViews, MAX_VIEWERS } from "../../interact/live-view.ts";
import type { Services } from "../services.ts";

/** The live view URL of a session's token (`""` for a session without one, as the SDK's types have room for). */
export function liveViewUrl(base: string, token: string | undefined): string {
  return token ? `${base}/v2/live/${token}` : "";
}

const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "content-security-policy": "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'",
};

/** The viewer page: the stream in an `<img>`, scaled to the window. */
function viewerPage(token: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>crawlbox live view</title>
<style>html,body{margin:0;height:100%;background:#16181d;color:#9aa3ad;font:13px system-ui,sans-serif}main{display:flex;flex-direction:column;height:100%}
p{margin:6px 10px}img{flex:1;min-height:0;width:100%;object-fit:contain}</style></head>
<body><main><p>Live view of a crawlbox browser session (watching only). It ends when the session ends.</p>
<img src="${token}/stream" alt="The session's page"></main></body></html>`;
}

/** The live view routes (no API key: the token is the capability). */
export function liveRoutes(services: Services) {
  const views = () => services.interact?.live;
  const known = (token: string) => {
    const live = views();
    if (!live || !/^[A-Za-z0-9_-]{43}$/.test(token) || !live.has(token)) throw new NotFoundError("Live view not found: the session has ended, or it was opened without one.");
    return live;
  };
  return new Elysia({ name: "crawlbox-live" })
    .get(
      "/v2/live/:token",
      ({ params }) => {
        known(params.token);
        return new Response(viewerPage(params.token), { headers: PAGE_HEADERS });
      },
      { detail: { tags: ["browser"], summary: "Watch a browser session's page (its liveViewUrl)", security: [] } },
    )
    .get(
      "/v2/live/:token/stream",
      ({ params, request }) => {
        const stream = known(params.token).stream(params.token, request.signal);
        if (stream === "unknown") throw new NotFoundError("Live view not found: the session has ended.");
        if (stream === "busy") throw new TooManyRequestsError("LIVE_VIEW_BUSY", `A live view may have ${MAX_VIEWERS} viewers at once; close one first.`);
        return new Response(stream, { headers: { "content-type": LiveViews.contentType, "cache-control": "no-store", "x-content-type-options": "nosniff" } });
      },
      { detail: { tags: ["browser"], summary: "A browser session's page as an MJPEG stream", security: [] } },
    );
}
