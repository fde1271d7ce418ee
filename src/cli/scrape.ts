/**
 * @module cli/scrape
 * `crawlbox scrape <url>`: one scrape in-process, through the same validation and service as the HTTP route,
 * printed to stdout for shell pipelines. Logs go to stderr. Runs as the local `cli` identity (no key needed:
 * whoever can run the binary can read its database anyway).
 */
import { parseScrapeBody } from "../api/scrape.ts";
import type { Config } from "../config.ts";
import { CrawlboxError } from "../errors.ts";
import { silentLogger } from "../log.ts";
// `--timeout` bounds: the API's smallest `timeout`, and the longest it honours (more is cut to it). Outside them is a
// usage error (exit 2), not the API's 400 with its schema in JSON, nor a deadline silently cut.
import { MIN_TIMEOUT_MS } from "../api/scrape-options.ts";
import { MAX_TIMEOUT_MS, specFromOptions } from "../scrape/from-options.ts";
import type { ScrapeSpec } from "../scrape/spec.ts";
import { createServices } from "../server/services.ts";
import { UsageError, type ParsedArgs } from "./args.ts";
import { usingDataDir } from "./data-dir.ts";

const PRINTABLE = new Set(["markdown", "html", "rawHtml", "links", "json"]);

/**
 * The scrape `body` asks for, validated as the HTTP route validates it. A `--timeout` is the deadline as given: the
 * API raises an explicit `timeout: 30000` to 120000 for old SDK clients (upstream's legacy rule, scrape/from-options
 * `timeoutMsOf`), which `--timeout 30000` must not inherit (it took 120 s where the help says 30 s is the default).
 */
export function cliScrapeSpec(body: Record<string, unknown>, config: Config): ScrapeSpec {
  const req = parseScrapeBody(body);
  const spec = specFromOptions(req.url, req.sourceURL, req.scrapeOptions, req, config);
  return typeof body.timeout === "number" ? { ...spec, timeoutMs: body.timeout } : spec;
}

/** Runs the scrape command; returns the exit code. */
export async function runScrape(config: Config, args: ParsedArgs, out: (s: string) => void): Promise<number> {
  const url = args.positional[1];
  if (!url) throw new UsageError("scrape needs a URL");
  const format = typeof args.flags.format === "string" ? args.flags.format : "markdown";
  if (!PRINTABLE.has(format)) throw new UsageError(`--format must be one of ${[...PRINTABLE].join(", ")}`);
  const body: Record<string, unknown> = {
    url,
    formats: format === "json" ? ["markdown"] : [format],
    onlyMainContent: args.flags["full-page"] !== true,
    origin: "cli",
  };
  if (typeof args.flags.timeout === "string") {
    const timeoutMs = /^\d+$/.test(args.flags.timeout) ? Number(args.flags.timeout) : NaN;
    if (!(timeoutMs >= MIN_TIMEOUT_MS && timeoutMs <= MAX_TIMEOUT_MS)) {
      throw new UsageError(`--timeout must be a whole number of milliseconds from ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS}, got "${args.flags.timeout}"`);
    }
    body.timeout = timeoutMs;
  }

  // A server may be running on the same folder: leave its jobs, pages and webhooks to it.
  const services = await usingDataDir(config.dataDir, () => createServices(config, { log: silentLogger, background: false }));
  try {
    const spec = cliScrapeSpec(body, config);
    const doc = await services.scrape.scrape(spec, { keyId: "cli", creditQuota: null });
    if (format === "json") out(JSON.stringify(doc, null, 2));
    else if (format === "links") out((doc.links ?? []).join("\n"));
    else out(String(doc[format] ?? ""));
    return doc.metadata.statusCode >= 400 ? 1 : 0;
  } catch (err) {
    if (err instanceof CrawlboxError) {
      process.stderr.write(`crawlbox: ${err.code}: ${err.message}\n`);
      if (err.details) process.stderr.write(`${JSON.stringify(err.details)}\n`);
      return 1;
    }
    throw err;
  } finally {
    await services.close();
  }
}
