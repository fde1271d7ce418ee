/**
 * @module server/routes/live
 * Live views of browser sessions (interact/live-view.ts): `GET /v2/live/{token}`, a page showing the session's page
 * as it changes, `GET /v2/live/{token}/stream`, the MJPEG stream it shows, and for an interactive view's token
 * `POST /v2/live/{token}/input`, a person's click, wheel, key or text (interact/live-input.ts). The token is the
 * capability (a browser opening the page sends no API key), so no key is asked; an unknown or ended token is a 404.
 * The watching page has no script; the interactive one has one script of its own (by nonce), and the headers of both
 * let them reach nothing but their own stream and input.
 */
import { Elysia } from "elysia";
import { NotFoundError, TooManyRequestsError } from "../../errors.ts";
import { LiveViews, MAX_VIEWERS } from "../../interact/live-view.ts";
import { parseLiveInput } from "../../interact/live-input.ts";
import type { Services } from "../services.ts";
import { randomToken } from "../../auth/token.ts";

/** A session's live view URLs (`liveViewUrl: ""` for a session without them, as the SDK's types have room for). */
export function liveViewUrls(base: string, tokens: { view: string; control: string } | undefined): { liveViewUrl: string; interactiveLiveViewUrl?: string } {
  return tokens ? { liveViewUrl: `${base}/v2/live/${tokens.view}`, interactiveLiveViewUrl: `${base}/v2/live/${tokens.control}` } : { liveViewUrl: "" };
}

/** The page's headers: it may load its own stream and (interactive) post its own input, nothing else. */
function pageHeaders(nonce?: string): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "content-security-policy": `default-src 'none'; img-src 'self'; style-src 'unsafe-inline'${nonce ? `; script-src 'nonce-${nonce}'; connect-src 'self'` : ""}`,
  };
}

/**
 * The interactive page's script: clicks, wheel turns, named keys and typed text on the picture become input events
 * (positions as fractions of the picture's drawn area, which `object-fit: contain` letterboxes).
 */
const INPUT_SCRIPT = `
const img = document.querySelector("img");
// Events go one at a time, in order; wheel turns waiting together are merged, and one refused for the rate is tried again.
const queue = [];
let busy = false;
const pump = async () => {
  if (busy) return;
  busy = true;
  while (queue.length > 0) {
    const e = queue.shift();
    for (let tries = 0; tries < 4; tries++) {
      const r = await fetch(location.pathname + "/input", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(e) }).catch(() => null);
      if (!r || r.status !== 429) break;
      await new Promise((ok) => setTimeout(ok, 250));
    }
  }
  busy = false;
};
const send = (e) => {
  const last = queue[queue.length - 1];
  if (e.type === "wheel" && last && last.type === "wheel") { last.deltaX += e.deltaX; last.deltaY += e.deltaY; last.x = e.x; last.y = e.y; }
  else if (e.type === "move" && last && last.type === "move") { last.x = e.x; last.y = e.y; }
  else queue.push(e);
  pump();
};
const at = (ev) => {
  const r = img.getBoundingClientRect(), w = img.naturalWidth || r.width, h = img.naturalHeight || r.height;
  const s = Math.min(r.width / w, r.height / h), dw = w * s, dh = h * s, ox = r.left + (r.width - dw) / 2, oy = r.top + (r.height - dh) / 2;
  const x = (ev.clientX - ox) / dw, y = (ev.clientY - oy) / dh;
  return x >= 0 && x <= 1 && y >= 0 && y <= 1 ? { x, y } : null;
};
img.addEventListener("click", (ev) => { const p = at(ev); if (p) send({ type: "click", count: Math.min(3, Math.max(1, ev.detail || 1)), ...p }); img.focus(); });
// The pointer's moves (for menus that open on hover), at most ten a second.
let lastMove = 0;
img.addEventListener("mousemove", (ev) => { const now = Date.now(); if (now - lastMove < 100) return; lastMove = now; const p = at(ev); if (p) send({ type: "move", ...p }); });
img.addEventListener("contextmenu", (ev) => { ev.preventDefault(); const p = at(ev); if (p) send({ type: "click", button: "right", ...p }); });
img.addEventListener("wheel", (ev) => { ev.preventDefault(); const p = at(ev); if (p) send({ type: "wheel", deltaX: ev.deltaX, deltaY: ev.deltaY, ...p }); }, { passive: false });
const named = new Set(["Enter", "Backspace", "Tab", "Escape", "Delete", "ArrowLeft", "ArrowUp", "ArrowRight", "ArrowDown", "Home", "End", "PageUp", "PageDown"]);
img.addEventListener("keydown", (ev) => {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (named.has(ev.key)) { ev.preventDefault(); send({ type: "key", key: ev.key }); }
  else if (ev.key.length === 1) { ev.preventDefault(); send({ type: "text", text: ev.key }); }
});
img.addEventListener("paste", (ev) => { const t = ev.clipboardData.getData("text"); if (t) send({ type: "text", text: t.slice(0, 1000) }); });
img.focus();`;

/** The viewer page: the stream in an `<img>`, scaled to the window; with `nonce`, the interactive page. */
function viewerPage(token: string, nonce?: string): string {
  const note = nonce
    ? "Interactive live view of a crawlbox browser session: clicks, the wheel and keys go to the page. It ends when the session ends."
    : "Live view of a crawlbox browser session (watching only). It ends when the session ends.";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>crawlbox live view</title>
<style>html,body{margin:0;height:100%;background:#16181d;color:#9aa3ad;font:13px system-ui,sans-serif}main{display:flex;flex-direction:column;height:100%}
p{margin:6px 10px}img{flex:1;min-height:0;width:100%;object-fit:contain;outline:none}</style></head>
<body><main><p>${note}</p>
<img src="${token}/stream" alt="The session's page"${nonce ? ' tabindex="0"' : ""}></main>${nonce ? `<script nonce="${nonce}">${INPUT_SCRIPT}</script>` : ""}</body></html>`;
}

/** The live view routes (no API key: the token is the capability). */
export function liveRoutes(services: Services) {
  const views = () => services.interact?.live;
  const known = (token: string) => {
    const live = views();
    const kind = live && /^[A-Za-z0-9_-]{43}$/.test(token) ? live.kind(token) : undefined;
    if (!live || !kind) throw new NotFoundError("Live view not found: the session has ended, or it was opened without one.");
    return { live, kind };
  };
  return new Elysia({ name: "crawlbox-live" })
    .get(
      "/v2/live/:token",
      ({ params, request }) => {
        // The picture's address is relative to the page's: a trailing slash would point it elsewhere.
        if (new URL(request.url).pathname.endsWith("/")) return new Response(null, { status: 308, headers: { location: `../${params.token}` } });
        const nonce = known(params.token).kind === "control" ? randomToken(16) : undefined;
        return new Response(viewerPage(params.token, nonce), { headers: pageHeaders(nonce) });
      },
      { detail: { tags: ["browser"], summary: "Watch a browser session's page (its liveViewUrl)", security: [] } },
    )
    .get(
      "/v2/live/:token/stream",
      ({ params, request }) => {
        const stream = known(params.token).live.stream(params.token, request.signal);
        if (stream === "unknown") throw new NotFoundError("Live view not found: the session has ended.");
        if (stream === "busy") throw new TooManyRequestsError("LIVE_VIEW_BUSY", `A live view may have ${MAX_VIEWERS} viewers at once; close one first.`);
        return new Response(stream, { headers: { "content-type": LiveViews.contentType, "cache-control": "no-store", "x-content-type-options": "nosniff" } });
      },
      { detail: { tags: ["browser"], summary: "A browser session's page as an MJPEG stream", security: [] } },
    )
    .post(
      "/v2/live/:token/input",
      async ({ params, body, set }) => {
        const { live, kind } = known(params.token);
        if (kind !== "control") throw new NotFoundError("Live view not found: this view only watches (input goes to the interactive view's URL).");
        if (!(await live.input(params.token, parseLiveInput(body)))) throw new NotFoundError("Live view not found: the session has ended.");
        set.status = 204;
        return "";
      },
      { detail: { tags: ["browser"], summary: "Send a click, wheel turn, key or text to a browser session's page (its interactiveLiveViewUrl)", security: [] } },
    );
}
