/**
 * @module engines/browser/setup
 * Per-page configuration with memory: {@link PageSetup.apply} sends only what differs from what the page already
 * has. Warm pages are prepared with the common case (desktop, US, media and ads blocked, banner removal, TLS
 * errors ignored as the API's default) off the request path, so a typical scrape starts navigating at once and
 * only unusual requests (mobile, another country, stealth, screenshots, client headers) pay for extra commands.
 */
import type { CDPSession, Page } from "puppeteer-core";
import { type AppliedEmulation, applyEmulation, type EmulationOptions } from "./emulation.ts";
import { RequestControl, type RequestControlOptions } from "./request-control.ts";
import { TRUSTED_JSON_SOURCE } from "./trusted-json.ts";
import { MUTATION_TRACKER_SOURCE } from "./wait.ts";

/** Everything a page is configured with before navigation. */
export interface DesiredSetup {
  emulation: EmulationOptions;
  control: RequestControlOptions;
  ignoreCertErrors: boolean;
  /** Remove cookie/consent banners (part of `blockAds`). */
  removeBanners: boolean;
}

/** The setup of warm pages (the API's defaults for a desktop scrape). */
export function defaultSetup(chromeMajor: string): DesiredSetup {
  return {
    emulation: { mobile: false, chromeMajor, stealth: false },
    control: { blockMedia: true, blockAds: true, origin: "", headers: {} },
    ignoreCertErrors: true,
    removeBanners: true,
  };
}

/** Remembers what a page has been told. */
export class PageSetup {
  readonly control: RequestControl;
  private emulationKey?: string;
  private emulation?: AppliedEmulation;
  private ignoreCerts?: boolean;
  private bannerScript?: string;
  private bannersDone = false;
  private trackerDone = false;

  constructor(
    readonly page: Page,
    private readonly session: CDPSession,
  ) {
    this.control = new RequestControl(session);
  }

  /** Forgets the emulation sent (actions may have changed the viewport): the next {@link apply} sends it again. */
  invalidate(): void {
    this.emulationKey = undefined;
  }

  /** Brings the page to `d`, sending only the differences, in parallel. */
  async apply(d: DesiredSetup): Promise<AppliedEmulation> {
    const sends: Promise<unknown>[] = [this.control.configure(d.control)];
    const key = JSON.stringify(d.emulation);
    if (key !== this.emulationKey) {
      this.emulationKey = key;
      // A reused page must not keep an earlier scrape's stealth patches.
      const oldStealth = this.emulation?.stealthScriptId;
      if (oldStealth) sends.push(this.session.send("Page.removeScriptToEvaluateOnNewDocument", { identifier: oldStealth }));
      this.emulation = undefined;
      sends.push(applyEmulation(this.session, d.emulation).then((e) => (this.emulation = e)));
    }
    if (d.ignoreCertErrors !== this.ignoreCerts) {
      this.ignoreCerts = d.ignoreCertErrors;
      sends.push(this.session.send("Security.setIgnoreCertificateErrors", { ignore: d.ignoreCertErrors }));
    }
    if (!this.trackerDone) {
      this.trackerDone = true;
      // Scripts registered on this session run only once its Page domain is enabled.
      sends.push(this.session.send("Page.enable"));
      sends.push(this.session.send("Page.addScriptToEvaluateOnNewDocument", { source: MUTATION_TRACKER_SOURCE }));
      sends.push(this.session.send("Page.addScriptToEvaluateOnNewDocument", { source: TRUSTED_JSON_SOURCE }));
    }
    if (d.removeBanners && !this.bannersDone) {
      this.bannersDone = true;
      sends.push(
        this.session
          .send("Page.addScriptToEvaluateOnNewDocument", { source: COOKIE_BANNER_SOURCE })
          .then((r) => (this.bannerScript = r.identifier)),
      );
    } else if (!d.removeBanners && this.bannersDone && this.bannerScript) {
      const identifier = this.bannerScript;
      this.bannersDone = false;
      this.bannerScript = undefined;
      sends.push(this.session.send("Page.removeScriptToEvaluateOnNewDocument", { identifier }));
    }
    await Promise.all(sends);
    return this.emulation!;
  }
}

/** Hides common cookie/consent banners once the DOM exists (part of `blockAds`). */
const COOKIE_BANNER_SOURCE = `(() => {
  const SELECTORS = [
    "#onetrust-consent-sdk", "#onetrust-banner-sdk", "#CybotCookiebotDialog", "#cookie-banner", "#cookieBanner",
    "#cookie-consent", "#cookieConsent", "#cookie-notice", "#gdpr-banner", "#truste-consent-track", ".cc-window",
    ".cookie-banner", ".cookie-consent", ".cookie-notice", ".cookiebar", ".qc-cmp2-container", "#qc-cmp2-container",
    "#didomi-host", ".didomi-popup", "#usercentrics-root", ".fc-consent-root", "[aria-label='cookieconsent']",
    "[id^='sp_message_container']", "#cmpbox", "#cmpwrapper", ".osano-cm-window", "#termly-code-snippet-support"
  ];
  const sweep = () => {
    for (const el of document.querySelectorAll(SELECTORS.join(","))) el.remove();
    if (document.body && /overflow:\\s*hidden/.test(document.body.getAttribute("style") || "")) document.body.style.overflow = "";
  };
  document.addEventListener("DOMContentLoaded", sweep, { once: true });
  window.addEventListener("load", () => { sweep(); setTimeout(sweep, 50); }, { once: true });
})();`;
