/**
 * @module interact/sandbox/navigate
 * A navigation of a session's page, for both kinds of browser code (bash's `open`, `back`, `forward`, `reload`,
 * interact/shell/agent-browser.ts; JavaScript's and Python's `goto`, `goBack`, `goForward`, `reload`,
 * interact/sandbox/page-api.ts), failing as a scrape of the same URL fails:
 *
 * - A plain-http page the egress gate could not reach (connection refused, DNS) or refused is the gate's own answer,
 *   a 502 or 403 with its marker headers, which Chromium shows as if the site had sent it; it is recognised by those
 *   headers (engines/browser/navigation.ts `egressRefusal`, the scrape engine's reader) and fails the navigation with
 *   the gate's message: `Could not connect to 127.0.0.1:39599 (ECONNREFUSED).`
 * - An https page's tunnel the gate refused reaches Chromium as `net::ERR_TUNNEL_CONNECTION_FAILED`, without the
 *   gate's headers (Chromium drops a proxy's answer to CONNECT), and is told as the scrape engine tells it
 *   (`navigationError`): the gate's own refusal when it refuses the URL now, else `Could not connect to HOST (…)`.
 *
 * After a failed navigation the page may show another document than before (Chromium's error page, the gate's
 * answer) while puppeteer's idea of the page's URL catches up a moment later; the failure waits for it (1 s at
 * most), so that the URL code reads next (`get url`, JavaScript's `page.url()`) is the document's whose title it
 * reads, and {@link documentUrl} reads it from that very document.
 */
import type { CDPSession, HTTPResponse, Page } from "puppeteer-core";
import { egressRefusal, navigationError } from "../../engines/browser/navigation.ts";
import { inWorld, MAX_READ_CHARS } from "../isolated-world.ts";
import { ownNavigation } from "../page-abandon.ts";
import { PageOpError } from "../page-ops.ts";

/** Longest wait, after a failed navigation, for puppeteer's URL of the page to be its document's. */
const URL_SETTLE_MS = 1_000;
const URL_SETTLE_POLL_MS = 50;

/** What a navigation works with: the page, its CDP session (its isolated world), and the egress gate's check. */
export interface NavigationContext {
  page: Page;
  session: CDPSession;
  check: (url: string) => Promise<void>;
}

/** The URL of the document the page shows, read in crawlbox's isolated world of it (the page cannot fake it). */
export async function documentUrl(session: CDPSession): Promise<string> {
  return (await inWorld(session, `location.href.slice(0, ${MAX_READ_CHARS})`)).value as string;
}

/**
 * Carries out `go` (a puppeteer navigation of `ctx.page`; `url`: where it goes, when known) and returns its response;
 * throws a {@link PageOpError} in the scrape engine's words when the gate refused it or could not connect (see the
 * module comment). Other failures (a timeout) are thrown as they are, once the page's URL has settled.
 */
export async function navigate(ctx: NavigationContext, go: () => Promise<HTTPResponse | null>, url?: string): Promise<HTTPResponse | null> {
  let res: HTTPResponse | null;
  try {
    res = await ownNavigation(ctx.session, go);
  } catch (err) {
    await settleUrl(ctx);
    throw await failure(ctx, err, url);
  }
  const refused = res ? egressRefusal(res) : undefined;
  if (refused) throw new PageOpError(refused.message);
  return res;
}

/** A network failure (`net::…`) told as the scrape engine tells it (not its TLS advice: a session has no option for it). */
async function failure(ctx: NavigationContext, err: unknown, url: string | undefined): Promise<unknown> {
  const message = err instanceof Error ? err.message : String(err);
  if (!message.startsWith("net::")) return err;
  // Puppeteer names the URL that failed (`net::ERR_… at URL`); back and forward are not told one beforehand.
  const target = url ?? / at (\S+)$/.exec(message.split("\n")[0]!)?.[1] ?? ctx.page.url();
  if (!URL.canParse(target)) return err;
  const told = await navigationError(err, target, 0, { check: ctx.check });
  return told.code === "SCRAPE_SSL_ERROR" ? err : new PageOpError(told.message);
}

/** Waits until puppeteer's URL of the page is its document's (a failed navigation's error page), 1 s at most. */
async function settleUrl(ctx: NavigationContext): Promise<void> {
  const end = performance.now() + URL_SETTLE_MS;
  while (performance.now() < end) {
    // A document being replaced may not answer for a moment, a busy one not at all: neither is settled.
    const left = Bun.sleep(Math.max(0, end - performance.now())).then(() => undefined);
    if ((await Promise.race([documentUrl(ctx.session).catch(() => undefined), left])) === ctx.page.url()) return;
    await Bun.sleep(URL_SETTLE_POLL_MS);
  }
}
