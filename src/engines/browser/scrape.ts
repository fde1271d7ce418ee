/**
 * @module engines/browser/scrape
 * One scrape on a leased page, from setup to the {@link Page} result: emulation, request control and profile in,
 * `goto`, the load and smart waits, actions, screenshot and branding, the final DOM, profile out. Kept apart from
 * engine.ts, which owns the scrape's lease, deadline, abort and error mapping around this.
 */
import { FORBIDDEN_HEADERS } from "../http/request-headers.ts";
import type { HTTPRequest, HTTPResponse, Page as PuppeteerPage } from "puppeteer-core";
import { SiteError } from "../../errors.ts";
import type { ProfileStore } from "../../storage/profiles.ts";
import type { Page, PageArtifacts } from "../types.ts";
import { runActions } from "./actions.ts";
import { collectBranding } from "./branding.ts";
import type { BrowserEngineOptions, BrowserRequest } from "./engine.ts";
import type { Lease } from "./lease.ts";
import { DocumentResponseError, egressRefusal, navigationError, RENDERED_TYPES, TEXT_TYPES } from "./navigation.ts";
import { mimeTypeOf } from "../charset.ts";
import { applyProfile, captureProfile } from "./profile.ts";
import type { DocumentSizeGuard } from "./document-size.ts";
import { readFinalPage } from "./final-page.ts";
import type { AppliedEmulation } from "./emulation.ts";
import { canCapture } from "./render-probe.ts";
import { takeScreenshot } from "./screenshot.ts";
import { gotoParsed } from "./document-wait.ts";
import { readFetchedBytes } from "./raw-bytes.ts";
import { htmlAsReceived, RECEIVED_HTML_WARNING } from "./received-html.ts";
import { readyStateOf, untilDeadline } from "./page-reads.ts";
import { PageSetup } from "./setup.ts";
import { LOAD_WAIT_SHARE, NetworkTracker, SMART_WAIT_CAP_MS, waitForLoadEvent, waitForQuiet } from "./wait.ts";

/** What a scrape needs from its engine. */
export interface ScrapeScope {
  gate: BrowserEngineOptions["gate"];
  profiles?: ProfileStore;
  /** Chromium's major version (read once per engine). */
  majorVersion(page: PuppeteerPage): Promise<string>;
}

/** One scrape on a leased page; `cleanup` gets what must be undone before the page is released. */
export async function runScrape(scope: ScrapeScope, req: BrowserRequest, lease: Lease, size: DocumentSizeGuard, deadline: number, cleanup: (() => void)[], signal?: AbortSignal): Promise<Page> {
  const startedAt = performance.now();
  const { gate, profiles, majorVersion } = scope;
  const { page, context, session } = lease;
  const target = new URL(req.url);
  const headers: Record<string, string> = {};
  let userAgent: string | undefined;
  let cookieHeader: string | undefined;
  for (const [name, value] of Object.entries(req.headers)) {
    const lower = name.toLowerCase();
    if (lower === "user-agent") userAgent = value;
    else if (lower === "cookie") cookieHeader = value;
    else if (!FORBIDDEN_HEADERS.has(lower) && !lower.startsWith("proxy-")) headers[lower] = value;
  }
  const wantsPixels = req.screenshot !== undefined || req.actions.some((a) => a.type === "screenshot" || a.type === "pdf");
  const snapshot = req.profile && profiles ? profiles.load(req.profile.keyId, req.profile.name) : undefined;
  const setup = (lease.prepared as PageSetup | undefined) ?? new PageSetup(page, session);
  let emulated: AppliedEmulation | undefined;
  const steps: Promise<unknown>[] = [
    setup.apply({
      emulation: {
        mobile: req.mobile,
        ...(req.location ? { country: req.location.country, languages: req.location.languages } : {}),
        chromeMajor: await majorVersion(page),
        stealth: req.stealth,
        ...(userAgent ? { userAgent } : {}),
        ...(req.screenshot?.viewport ? { viewport: req.screenshot.viewport } : {}),
      },
      control: { blockMedia: !wantsPixels, blockAds: req.blockAds, origin: target.origin, headers },
      ignoreCertErrors: req.skipTlsVerification,
      removeBanners: req.blockAds,
    }).then((e) => (emulated = e)),
  ];
  // The main document is held to `maxBodyBytes` while it downloads; what the page builds after, when it is read below.
  steps.push(size.start());
  if (snapshot) steps.push(applyProfile(context, session, snapshot.state));
  if (cookieHeader) steps.push(context.setCookie(...parseCookieHeader(cookieHeader, target)));
  await Promise.all(steps);

  const network = new NetworkTracker(page);
  let main: HTTPResponse | undefined;
  // A download never replaces the page shown: it is kept apart (the document pipeline takes a first one).
  let download: HTTPResponse | undefined;
  const onResponse = (r: HTTPResponse) => {
    if (!r.request().isNavigationRequest() || r.frame() !== page.mainFrame()) return;
    if (isAttachment(r)) download = r;
    else main = r;
  };
  // A later navigation of the page (meta refresh, script) that fails leaves Chromium's error page in its place.
  let failedNavigation: { url: string; error: string } | undefined;
  const onRequestFailed = (r: HTTPRequest) => {
    if (r.isNavigationRequest() && r.frame() === page.mainFrame()) failedNavigation = { url: r.url(), error: r.failure()?.errorText ?? "failed" };
  };
  page.on("response", onResponse);
  page.on("requestfailed", onRequestFailed);
  cleanup.push(() => {
    page.off("response", onResponse);
    page.off("requestfailed", onRequestFailed);
    network.dispose();
    // Actions and screenshots may change the viewport behind the setup's back: the next scrape re-applies it.
    if (req.actions.length > 0 || req.screenshot) setup.invalidate();
  });

  // The document, not every subresource: `load` is waited for below, for a share of the time only; and once the
  // document is all there, DOMContentLoaded too (document-wait.ts: a script in <head> that never answers holds it).
  const navigation = await gotoParsed(page, req.url, deadline);
  const navError = navigation.kind === "failed" ? navigation.error : undefined;
  const response = navigation.kind === "parsed" ? navigation.response : null;
  const last = main ?? response ?? undefined;
  const lastType = mimeTypeOf(last?.headers()["content-type"]);
  // A download (Content-Disposition: attachment) is not rendered whatever its type: Chromium aborts the
  // navigation; the document pipeline fetches it instead, as it does a PDF.
  if (navError && download) throw new DocumentResponseError(download.url(), mimeTypeOf(download.headers()["content-type"]));
  if (last && !RENDERED_TYPES.has(lastType) && !TEXT_TYPES.test(lastType)) {
    throw new DocumentResponseError(last.url(), lastType);
  }
  if (navError) throw await navigationError(navError, req.url, req.timeoutMs, gate);
  if (!last) throw new SiteError("SCRAPE_SITE_ERROR", `The browser got no response for ${req.url}.`);
  const refused = egressRefusal(last);
  if (refused) throw refused;

  const warnings: string[] = [];
  let loadTimedOut = false;
  /**
   * The document whose parser stalled (cut before DOMContentLoaded, still "loading"): only it may be read from its
   * HTML as received (received-html.ts), and only while it is still the page's. A page that was parsed and then
   * rewrote itself (`document.open()` leaves "loading" too) or moved on to another document keeps its DOM.
   */
  let stalledDocument: HTTPResponse | undefined;
  if (navigation.kind === "cut") {
    // Parsing is held up (a parser-blocking script or a stylesheet that never arrives): no `load` or quiet to wait for.
    // Or the page was parsed and one of its frames was not: puppeteer's DOMContentLoaded waits for child frames too
    // (an iframe that never answers), and such a page is one that did not finish loading, not one cut short.
    loadTimedOut = true;
    const state = await untilDeadline(readyStateOf(page).catch(() => "unknown" as const), performance.now() + STATE_READ_MS, "unknown" as const);
    if (state === "loading") stalledDocument = last;
    warnings.push(
      state === "interactive" || state === "complete"
        ? `The page did not finish loading within ${Math.round(navigation.waitedMs)} ms of its arrival (some of its resources never arrived): this is the page as it was then.`
        : `The page was not fully parsed within ${Math.round(navigation.waitedMs)} ms of its arrival (a script or stylesheet it waits for never arrived): this is the page as far as the browser got.`,
    );
  } else if (RENDERED_TYPES.has(lastType)) {
    const loadWaitMs = Math.max(0, (deadline - performance.now()) * LOAD_WAIT_SHARE);
    if (await waitForLoadEvent(page, loadWaitMs)) {
      await waitForQuiet(page, network, Math.min(SMART_WAIT_CAP_MS, Math.max(0, deadline - performance.now() - 200)));
    } else {
      // The request that holds `load` up holds the network busy too: a smart wait would only spend its cap.
      loadTimedOut = true;
      warnings.push(
        `The page did not finish loading within ${Math.round(loadWaitMs)} ms (some of its resources never arrived): this is the page as it was then.`,
      );
    }
  }
  if (req.waitForMs > 0 && RENDERED_TYPES.has(lastType)) await Bun.sleep(Math.min(req.waitForMs, Math.max(0, deadline - performance.now() - 100)));
  const artifacts: PageArtifacts = {};
  // The page and its action results share one size limit, as a fetched page has.
  const budget = { leftBytes: req.maxBodyBytes };
  // An action's screenshot `viewport` changes only the size of the device emulated here, and only for its picture.
  const device = emulated ? { session, metrics: emulated.viewport } : undefined;
  if (req.actions.length > 0) {
    artifacts.actions = await runActions(req.actions, { page, network, deadline, signal, budget, warnings, ...(device ? { device } : {}) });
  }
  // Everything the formats read of the page is read before the format's screenshot, which comes last: a full page
  // is scrolled through before it is captured (screenshot.ts), and a page reacts to that (an infinite feed grew from
  // 6 items to 30 in the markdown, a continuous article's pushState changed metadata.url and title, a scroll handler
  // that navigates made the whole result another page). The formats do not depend on each other: the DOM, URL,
  // status, branding, raw bytes and profile are the page's as loaded (and as the actions left it).
  // Never fails the scrape: a failed or slow collection is `{ error }`, a warning in the document.
  if (req.branding) artifacts.branding = await collectBranding(page, deadline - performance.now() - 100);

  const finalResponse = main ?? last;
  const final = await readFinalPage(page, finalResponse, {
    requestedUrl: req.url,
    failedNavigation,
    deadline,
    timeoutMs: req.timeoutMs,
    maxBodyBytes: req.maxBodyBytes,
    leftBytes: budget.leftBytes,
    gate,
  });
  // A page over the memory limit since the guard's last tick fails now, not after its content is answered.
  await lease.checkMemory();
  const { contentType, emptyHttpError } = final;
  let { text, body } = final;
  // For rawBase64: the document as fetched, not the DOM read above (raw-bytes.ts).
  if (req.rawBytes) artifacts.rawBase64 = await readFetchedBytes(page, finalResponse, deadline, req.maxBodyBytes);
  // A page whose parser never reached its body (a <head> script that never arrived) is read from its HTML as received.
  if (text !== undefined && !emptyHttpError && stalledDocument !== undefined && finalResponse === stalledDocument) {
    const received = await htmlAsReceived(page, finalResponse, req, text, { readyState: final.readyState, deadline, maxBodyBytes: req.maxBodyBytes, leftBytes: budget.leftBytes });
    if (received) {
      ({ text, body } = received);
      loadTimedOut = true;
      warnings.push(RECEIVED_HTML_WARNING);
    }
  }
  const finalType = mimeTypeOf(finalResponse.headers()["content-type"]);
  if (snapshot && req.profile && req.profile.saveChanges && profiles) {
    profiles.save(req.profile.keyId, req.profile.name, snapshot, await captureProfile(context, page, snapshot.state));
  }
  const responseHeaders: Record<string, string> = {};
  for (const [k, v] of Object.entries(finalResponse.headers())) responseHeaders[k.toLowerCase()] = v;
  if (RENDERED_TYPES.has(finalType)) responseHeaders["content-type"] = "text/html; charset=utf-8";
  const finalUrl = (!emptyHttpError && page.url()) || finalResponse.url();
  // The format's `viewport` is the emulated device's size already (setup above); the device goes along so that a full
  // page is captured through the session that emulates it (screenshot.ts: a phone's picture was cut as if in device
  // pixels, and the phone was lost for the rest of the scrape).
  // A page that did not finish loading may never be rendered (its <head> still waits), nor may one the actions led
  // to: no picture then, not a 408 (the format says why: a browser page without its screenshot is one the browser
  // did not render). A page that loaded and stayed put is captured without asking. A page that navigates while it
  // is scrolled through is captured where it went (its reads above are the page's before it).
  if (req.screenshot && ((!loadTimedOut && req.actions.length === 0) || (await canCapture(page, deadline)))) {
    artifacts.screenshot = await takeScreenshot(page, { ...req.screenshot, viewport: undefined, deadline, ...(device ? { device } : {}) });
  }
  const result: Page = {
    requestedUrl: req.url,
    finalUrl,
    statusCode: finalResponse.status(),
    headers: responseHeaders,
    contentType,
    body,
    ...(text !== undefined ? { text, charset: "utf-8" } : {}),
    engine: "browser",
    elapsedMs: Math.round(performance.now() - startedAt),
    ...(warnings.length > 0 ? { warning: warnings.join(" ") } : {}),
    // A page cut short of `load` is not kept for others (a cache hit would lose its warning too).
    ...(loadTimedOut ? { degraded: true } : {}),
  };
  if (artifacts.actions || artifacts.screenshot || artifacts.branding || artifacts.rawBase64 || req.profile) {
    // Personal or binary results are never cached (the service caches only pages without artifacts).
    result.artifacts = { ...artifacts, ...(req.profile ? { profile: req.profile.name } : {}) };
  }
  return result;
}

/** Longest wait for a cut page's `readyState` (a page whose thread is stuck does not answer). */
const STATE_READ_MS = 1_000;

/** Whether a response asks to be downloaded rather than shown. */
function isAttachment(res: HTTPResponse): boolean {
  return /^\s*attachment/i.test(res.headers()["content-disposition"] ?? "");
}

/**
 * `a=b; c=d` → cookies for the page's host; for an https page `Secure`, so a redirect down to plain http does not
 * carry them. Within the host they follow browser rules (any port), where the HTTP engine is stricter (the exact
 * origin).
 */
export function parseCookieHeader(header: string, target: URL): { name: string; value: string; domain: string; path: string; secure: boolean }[] {
  const domain = target.hostname;
  const secure = target.protocol === "https:";
  return header
    .split(";")
    .map((p) => p.trim())
    .filter((p) => p.includes("="))
    .map((p) => {
      const i = p.indexOf("=");
      return { name: p.slice(0, i).trim(), value: p.slice(i + 1).trim(), domain, path: "/", secure };
    })
    .filter((c) => c.name.length > 0);
}
