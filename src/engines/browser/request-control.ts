/**
 * @module engines/browser/request-control
 * Decides, inside Chromium, which requests of a page are made at all and with which headers, using the CDP
 * `Fetch` domain with patterns so that only the requests that matter are paused (a page's own scripts and XHRs
 * are never held up):
 *
 * - images, fonts and media are failed unless a screenshot (or a screenshot action) needs them;
 * - with `blockAds`, requests to the bundled ad/tracker hosts are failed (ad-hosts.ts);
 * - the client's `headers` are added to requests to the scraped page's own origin (and its https upgrade) only, as
 *   the HTTP engine does (an Authorization header must not leak to third parties; http/redirects.ts headersAllowed).
 *
 * Everything that is let through still leaves Chromium via the egress gate (chromium.ts).
 */
import type { CDPSession, Protocol } from "puppeteer-core";
import { httpsUpgradeOrigin } from "../http/redirects.ts";
import { adUrlPatterns, isAdUrl } from "./ad-hosts.ts";

/** What to control for one page. */
export interface RequestControlOptions {
  /** Fail image, font and media requests. */
  blockMedia: boolean;
  /** Fail requests to the bundled ad/tracker hosts. */
  blockAds: boolean;
  /** Origin whose requests get `headers` (the scraped URL's). */
  origin: string;
  /** Extra request headers for `origin` (lower-case names; Cookie and User-Agent are handled elsewhere). */
  headers: Record<string, string>;
}

/** Counters a test or the bench can read. */
export interface RequestControlStats {
  blockedAds: number;
  blockedMedia: number;
}

const MEDIA_TYPES: readonly Protocol.Network.ResourceType[] = ["Image", "Font", "Media"];
const AD_PATTERNS = adUrlPatterns();

/** Request control of one page; reconfigured per scrape, and a no-op when nothing changes. */
export class RequestControl {
  readonly stats: RequestControlStats = { blockedAds: 0, blockedMedia: 0 };
  private options: RequestControlOptions = { blockMedia: false, blockAds: false, origin: "", headers: {} };
  private key = "off";
  private listening = false;

  constructor(private readonly session: CDPSession) {}

  /** Applies `options` (one round trip when the set of paused requests changes, none otherwise). */
  async configure(options: RequestControlOptions): Promise<void> {
    const hasHeaders = Object.keys(options.headers).length > 0;
    this.options = options;
    const key = `${options.blockMedia}|${options.blockAds}|${hasHeaders ? options.origin : ""}`;
    if (key === this.key) return;
    const patterns: Protocol.Fetch.RequestPattern[] = [];
    if (options.blockMedia) for (const resourceType of MEDIA_TYPES) patterns.push({ urlPattern: "*", resourceType });
    if (options.blockAds) for (const urlPattern of AD_PATTERNS) patterns.push({ urlPattern });
    if (hasHeaders) for (const origin of headerOrigins(options.origin)) patterns.push({ urlPattern: `${origin}/*` });
    if (!this.listening) {
      this.listening = true;
      this.session.on("Fetch.requestPaused", (event: Protocol.Fetch.RequestPausedEvent) => {
        void decide(this.session, event, this.options, this.stats).catch(() => {
          // The page or session went away while the request was paused: nothing to answer.
        });
      });
    }
    if (patterns.length === 0) await this.session.send("Fetch.disable");
    else await this.session.send("Fetch.enable", { patterns });
    this.key = key;
  }
}

async function decide(
  session: CDPSession,
  event: Protocol.Fetch.RequestPausedEvent,
  options: RequestControlOptions,
  stats: RequestControlStats,
): Promise<void> {
  const url = safeUrl(event.request.url);
  const sameOrigin = url?.origin === options.origin;
  if (options.blockMedia && MEDIA_TYPES.includes(event.resourceType)) {
    stats.blockedMedia++;
    await session.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "BlockedByClient" });
    return;
  }
  // The scraped site itself is never blocked, whatever the list says.
  if (options.blockAds && !sameOrigin && url && isAdUrl(url)) {
    stats.blockedAds++;
    await session.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "BlockedByClient" });
    return;
  }
  const headersApply = sameOrigin || (url !== undefined && options.origin !== "" && url.origin === httpsUpgradeOrigin(options.origin));
  if (headersApply && Object.keys(options.headers).length > 0) {
    const merged = new Map<string, { name: string; value: string }>();
    for (const [name, value] of Object.entries(event.request.headers)) merged.set(name.toLowerCase(), { name, value });
    for (const [name, value] of Object.entries(options.headers)) merged.set(name.toLowerCase(), { name, value });
    await session.send("Fetch.continueRequest", { requestId: event.requestId, headers: [...merged.values()] });
    return;
  }
  await session.send("Fetch.continueRequest", { requestId: event.requestId });
}

/** The origins whose requests get the client's headers: the scraped one and its https upgrade. */
function headerOrigins(origin: string): string[] {
  const upgrade = origin === "" ? undefined : httpsUpgradeOrigin(origin);
  return upgrade ? [origin, upgrade] : [origin];
}

function safeUrl(s: string): URL | undefined {
  try {
    return new URL(s);
  } catch {
    return undefined;
  }
}
