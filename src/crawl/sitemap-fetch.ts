/**
 * @module crawl/sitemap-fetch
 * One sitemap file fetched and turned into text (crawl/sitemap.ts reads many, a few at a time), with its own
 * deadline, and its failure described rather than thrown: the caller names failed and cut files in its warning.
 *
 * A file over {@link MAX_SITEMAP_BYTES}: the engine refuses bodies over its cap and keeps nothing of them, so the
 * first {@link MAX_SITEMAP_BYTES} are asked for again with `Range: bytes=0-…` (RFC 9110 §14). Static files, which
 * is what sitemaps of that size are, are served in part by nginx, Apache, S3 and CDNs; that part's complete
 * entries are kept and the file is reported as cut. A server that ignores `Range` leaves the file failed (too
 * large), as before, still named in the warning.
 */
import { RESPONSE_TOO_LARGE_CODE } from "../engines/http/index.ts";
import type { Engine, Page } from "../engines/types.ts";
import { DISCOVERY_SKIPS_TLS_VERIFICATION } from "./robots-cache.ts";
import { MAX_SITEMAP_BYTES, sitemapBody, SitemapGzipError } from "./sitemap-body.ts";

/** Error code of a file larger than {@link MAX_SITEMAP_BYTES}, read in part or not at all. */
export const SITEMAP_TOO_LARGE = "SITEMAP_TOO_LARGE";
/** Error code of a file still being read when the whole read's time ran out. */
export const SITEMAP_NOT_FINISHED = "SITEMAP_NOT_FINISHED";

/** What one fetch gave. */
export type SitemapFile =
  | { ok: true; text: string | undefined; cutAtBytes?: number }
  | { ok: false; code: string; message: string };

/** What {@link fetchSitemapFile} needs. */
export interface SitemapFetchContext {
  engine: Pick<Engine, "fetch">;
  headers?: Record<string, string>;
  headersOrigin?: string;
  /** This file's deadline (its own bound, within what is left of the read). */
  timeoutMs: number;
  signal: AbortSignal;
}

function errorCode(err: unknown): string | undefined {
  return (err as { code?: unknown })?.code === undefined ? undefined : String((err as { code: unknown }).code);
}

/**
 * The `Range` request's headers: the client's, which the engine sends where they may go (request-headers.ts), and
 * `Range`, which may go anywhere (engines/http/redirects.ts `CROSS_ORIGIN_SAFE_HEADERS`), across redirects too.
 */
function rangeHeaders(ctx: SitemapFetchContext): { headers: Record<string, string>; headersOrigin?: string } {
  return { headers: { ...ctx.headers, range: `bytes=0-${MAX_SITEMAP_BYTES - 1}` }, ...(ctx.headersOrigin ? { headersOrigin: ctx.headersOrigin } : {}) };
}

/** Whether a 206 answer holds less than the whole file (`Content-Range: bytes 0-N/TOTAL`, TOTAL `*` when unknown). */
function partial(page: Page): boolean {
  const m = /bytes\s+(\d+)-(\d+)\/(\d+|\*)/i.exec(page.headers["content-range"] ?? "");
  return !m || m[3] === "*" || Number(m[3]) > Number(m[2]) + 1;
}

async function textOf(page: Page, servedCut: boolean): Promise<SitemapFile> {
  try {
    return { ok: true, ...(await sitemapBody(page.body, page.headers["content-type"], servedCut, page)) };
  } catch (err) {
    if (err instanceof SitemapGzipError) return { ok: false, code: err.code, message: err.message };
    throw err;
  }
}

/** The first {@link MAX_SITEMAP_BYTES} of a file the engine found too large, or why not. */
async function firstPart(url: string, ctx: SitemapFetchContext, startedAt: number): Promise<SitemapFile> {
  const tooLarge = `larger than ${MAX_SITEMAP_BYTES} bytes`;
  const leftMs = Math.round(ctx.timeoutMs - (performance.now() - startedAt));
  if (leftMs < 1) return { ok: false, code: SITEMAP_TOO_LARGE, message: `${tooLarge}; no time was left to read its first part` };
  let page: Page;
  try {
    page = await ctx.engine.fetch({ url, ...rangeHeaders(ctx), timeoutMs: leftMs, maxBodyBytes: MAX_SITEMAP_BYTES, skipTlsVerification: DISCOVERY_SKIPS_TLS_VERIFICATION }, ctx.signal);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return { ok: false, code: SITEMAP_TOO_LARGE, message: `${tooLarge}, and the server does not serve a part of it (Range); not read` };
  }
  // The file was too large: a part of it is cut whatever its Content-Range says (one claiming the whole file lied).
  if (page.statusCode === 206) return textOf(page, true);
  if (page.statusCode === 200) return textOf(page, false); // it shrank meanwhile, within the cap
  return { ok: false, code: SITEMAP_TOO_LARGE, message: `${tooLarge}; its first part was refused (HTTP ${page.statusCode})` };
}

/**
 * Fetches and decodes one sitemap file. Resolves with its text (undefined for an HTML page) or a failure; rejects
 * only when `ctx.signal` aborts (the caller tells its own deadline from a stop).
 */
export async function fetchSitemapFile(url: string, ctx: SitemapFetchContext): Promise<SitemapFile> {
  const startedAt = performance.now();
  let page: Page;
  try {
    page = await ctx.engine.fetch({ url, headers: ctx.headers, ...(ctx.headersOrigin ? { headersOrigin: ctx.headersOrigin } : {}), timeoutMs: ctx.timeoutMs, maxBodyBytes: MAX_SITEMAP_BYTES, skipTlsVerification: DISCOVERY_SKIPS_TLS_VERIFICATION }, ctx.signal);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    if (errorCode(err) === RESPONSE_TOO_LARGE_CODE) return firstPart(url, ctx, startedAt);
    return { ok: false, code: errorCode(err) ?? "SITEMAP_ERROR", message: String((err as Error)?.message ?? err) };
  }
  if (page.statusCode < 200 || page.statusCode >= 300) return { ok: false, code: "HTTP_STATUS", message: `HTTP ${page.statusCode}` };
  return textOf(page, page.statusCode === 206 && partial(page));
}
