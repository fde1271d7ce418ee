/**
 * @module engines/refresh-hops
 * A page that sends its reader on at once with `<meta http-equiv="refresh" content="0; url=…">` or a `Refresh`
 * header, followed over plain HTTP. The router with a browser hands such a page to the browser, which follows it;
 * a server without one returned the stub ("This page has moved", a blank page) as the document. Each hop is an
 * ordinary fetch through the egress gate with the rest of the scrape's one deadline, the client's headers kept for
 * the origin they were given for (as on a redirect, engines/http/request-headers.ts).
 */
import { refreshOf } from "./browser/detect.ts";
import type { Engine, FetchRequest, Page } from "./types.ts";

/** Refresh hops followed for one scrape; past them the last page is the answer (with a warning). */
export const MAX_REFRESH_HOPS = 5;

/**
 * `page`, or the page its refreshes lead to. `request` is the first fetch's request (its URL names the origin the
 * client's headers are for); `deadlineMs` the scrape's deadline (`performance.now()` time). Stops at a loop, a
 * target that is not http(s), {@link MAX_REFRESH_HOPS}, the deadline, or a target that cannot be fetched (the egress
 * gate's refusal included), and returns the page reached with a warning saying why it stopped there.
 */
export async function followRefreshes(http: Engine, request: FetchRequest, page: Page, deadlineMs: number, signal?: AbortSignal): Promise<Page> {
  const seen = new Set([withoutHash(page.finalUrl)]);
  for (let hop = 0; ; hop++) {
    const refresh = refreshOf(page);
    if (!refresh) return page;
    let target: URL;
    try {
      target = new URL(refresh.target, page.finalUrl);
    } catch {
      return page;
    }
    if (target.protocol !== "http:" && target.protocol !== "https:") return page;
    const stop = (why: string): Page => ({ ...page, warning: `This page sends its reader on to ${target.href} (${refresh.by === "header" ? "a Refresh header" : "a meta refresh"}), which was not followed: ${why}. This is the page as served.` });
    if (seen.has(withoutHash(target.href))) return stop("it leads back to a page already visited");
    if (hop >= MAX_REFRESH_HOPS) return stop(`more than ${MAX_REFRESH_HOPS} refreshes in a row`);
    const leftMs = Math.floor(deadlineMs - performance.now());
    if (leftMs < 1) return stop("the scrape's time ran out");
    seen.add(withoutHash(target.href));
    try {
      page = await http.fetch({ ...request, url: target.href, headersOrigin: request.headersOrigin ?? request.url, timeoutMs: leftMs }, signal);
    } catch (err) {
      // The page asked for came back; where it points did not (refused, unreachable, too slow): that page, saying
      // so, not an error naming an address the caller never gave. The caller's own cancellation still ends the scrape.
      if (signal?.aborted) throw err;
      return stop(err instanceof Error ? `fetching it failed (${err.message})` : "fetching it failed");
    }
  }
}

function withoutHash(url: string): string {
  const at = url.indexOf("#");
  return at < 0 ? url : url.slice(0, at);
}
