/**
 * @module engines/browser/emulation
 * How a page presents itself: device (desktop or phone), place (languages, time zone) and, for
 * `proxy: "enhanced"`, the stealth measures. Everything is applied through one CDP session before navigation,
 * in parallel, so it costs one round trip.
 *
 * - Desktop: 1920×1080, Chrome's desktop user agent without "Headless".
 * - `mobile`: a Pixel-class phone (412×915 CSS px, DPR 2.625, touch, mobile UA and client hints).
 * - `location`: `Accept-Language`, `navigator.languages` and `Intl` locale from `languages` (or the country's
 *   main language), time zone from the country. Default country US.
 * - Stealth: realistic user agent and matching client hints, `navigator.webdriver` false (also a launch flag),
 *   `window.chrome`, plugins and permission answers a desktop Chrome has, languages consistent everywhere.
 */
import type { CDPSession, Page } from "puppeteer-core";
import { countryCode } from "../../api/countries.ts";

/** One country's defaults. */
interface Place {
  timezone: string;
  language: string;
}

/** Countries crawlbox knows a time zone and main language for; others fall back to UTC and English. */
export const PLACES: Readonly<Record<string, Place>> = {
  US: { timezone: "America/New_York", language: "en-US" },
  CA: { timezone: "America/Toronto", language: "en-CA" },
  MX: { timezone: "America/Mexico_City", language: "es-MX" },
  BR: { timezone: "America/Sao_Paulo", language: "pt-BR" },
  AR: { timezone: "America/Argentina/Buenos_Aires", language: "es-AR" },
  CL: { timezone: "America/Santiago", language: "es-CL" },
  CO: { timezone: "America/Bogota", language: "es-CO" },
  GB: { timezone: "Europe/London", language: "en-GB" },
  IE: { timezone: "Europe/Dublin", language: "en-IE" },
  FR: { timezone: "Europe/Paris", language: "fr-FR" },
  DE: { timezone: "Europe/Berlin", language: "de-DE" },
  AT: { timezone: "Europe/Vienna", language: "de-AT" },
  CH: { timezone: "Europe/Zurich", language: "de-CH" },
  NL: { timezone: "Europe/Amsterdam", language: "nl-NL" },
  BE: { timezone: "Europe/Brussels", language: "nl-BE" },
  ES: { timezone: "Europe/Madrid", language: "es-ES" },
  PT: { timezone: "Europe/Lisbon", language: "pt-PT" },
  IT: { timezone: "Europe/Rome", language: "it-IT" },
  PL: { timezone: "Europe/Warsaw", language: "pl-PL" },
  CZ: { timezone: "Europe/Prague", language: "cs-CZ" },
  SE: { timezone: "Europe/Stockholm", language: "sv-SE" },
  NO: { timezone: "Europe/Oslo", language: "nb-NO" },
  DK: { timezone: "Europe/Copenhagen", language: "da-DK" },
  FI: { timezone: "Europe/Helsinki", language: "fi-FI" },
  GR: { timezone: "Europe/Athens", language: "el-GR" },
  TR: { timezone: "Europe/Istanbul", language: "tr-TR" },
  UA: { timezone: "Europe/Kyiv", language: "uk-UA" },
  RU: { timezone: "Europe/Moscow", language: "ru-RU" },
  IL: { timezone: "Asia/Jerusalem", language: "he-IL" },
  AE: { timezone: "Asia/Dubai", language: "ar-AE" },
  SA: { timezone: "Asia/Riyadh", language: "ar-SA" },
  EG: { timezone: "Africa/Cairo", language: "ar-EG" },
  ZA: { timezone: "Africa/Johannesburg", language: "en-ZA" },
  NG: { timezone: "Africa/Lagos", language: "en-NG" },
  KE: { timezone: "Africa/Nairobi", language: "en-KE" },
  IN: { timezone: "Asia/Kolkata", language: "en-IN" },
  PK: { timezone: "Asia/Karachi", language: "en-PK" },
  CN: { timezone: "Asia/Shanghai", language: "zh-CN" },
  HK: { timezone: "Asia/Hong_Kong", language: "zh-HK" },
  TW: { timezone: "Asia/Taipei", language: "zh-TW" },
  JP: { timezone: "Asia/Tokyo", language: "ja-JP" },
  KR: { timezone: "Asia/Seoul", language: "ko-KR" },
  SG: { timezone: "Asia/Singapore", language: "en-SG" },
  ID: { timezone: "Asia/Jakarta", language: "id-ID" },
  TH: { timezone: "Asia/Bangkok", language: "th-TH" },
  VN: { timezone: "Asia/Ho_Chi_Minh", language: "vi-VN" },
  PH: { timezone: "Asia/Manila", language: "en-PH" },
  MY: { timezone: "Asia/Kuala_Lumpur", language: "ms-MY" },
  AU: { timezone: "Australia/Sydney", language: "en-AU" },
  NZ: { timezone: "Pacific/Auckland", language: "en-NZ" },
};

/** The country used when the request names none. */
export const DEFAULT_COUNTRY = "US";

/**
 * The major version of the Chromium a page runs in ("130" when its version string says none), which the user agent
 * and client hints must name: a phone claiming another Chrome than the one answering is easy to spot.
 */
export async function chromeMajorOf(page: Page): Promise<string> {
  return /\/(\d+)\./.exec(await page.browser().version())?.[1] ?? "130";
}

/** Device and place of one page. */
export interface EmulationOptions {
  mobile: boolean;
  /** ISO 3166-1 alpha-2, any case; "us-generic" style values map to the two letters. */
  country?: string;
  languages?: string[];
  /** Chrome major version of the running browser (for the user agent). */
  chromeMajor: string;
  stealth: boolean;
  /** A client-supplied User-Agent wins over ours. */
  userAgent?: string;
  /** The screenshot `viewport`, for desktop and phone alike. @default 1920×1080 (desktop), 412×915 (phone) */
  viewport?: { width: number; height: number };
}

/** What the page was told, for tests and metadata. */
export interface AppliedEmulation {
  userAgent: string;
  acceptLanguage: string;
  languages: string[];
  timezone: string;
  viewport: { width: number; height: number; deviceScaleFactor: number; mobile: boolean };
  /** Identifier of the stealth script registered on the page (to remove it when a reused page stops being stealthy). */
  stealthScriptId?: string;
}

/** Two-letter upper-case country from a `location.country` value (`UK` is GB; `us-generic` and others the default). */
export function normaliseCountry(country: string | undefined): string {
  return countryCode((country ?? DEFAULT_COUNTRY).trim()) ?? DEFAULT_COUNTRY;
}

/** Languages of a page: the request's, else the country's language plus its base and English. */
export function languagesFor(country: string, requested: string[] | undefined): string[] {
  if (requested && requested.length > 0) return requested;
  const lang = PLACES[country]?.language ?? "en-US";
  const out = [lang];
  const base = lang.split("-")[0]!;
  if (base !== lang) out.push(base);
  if (base !== "en") out.push("en-US", "en");
  return [...new Set(out)];
}

const DESKTOP = { width: 1920, height: 1080, deviceScaleFactor: 1, mobile: false };
const PHONE = { width: 412, height: 915, deviceScaleFactor: 2.625, mobile: true };

function userAgentFor(mobile: boolean, major: string): string {
  return mobile
    ? `Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Mobile Safari/537.36`
    : `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;
}

function clientHints(mobile: boolean, major: string) {
  const brands = [
    { brand: "Chromium", version: major },
    { brand: "Google Chrome", version: major },
    { brand: "Not.A/Brand", version: "99" },
  ];
  return {
    brands,
    fullVersionList: brands.map((b) => ({ ...b, version: `${b.version}.0.0.0` })),
    platform: mobile ? "Android" : "Windows",
    platformVersion: mobile ? "14.0.0" : "15.0.0",
    architecture: mobile ? "" : "x86",
    model: mobile ? "Pixel 8" : "",
    mobile,
    bitness: mobile ? "" : "64",
    wow64: false,
  };
}

/** Applies device, place and stealth to a page not yet navigated. */
export async function applyEmulation(session: CDPSession, o: EmulationOptions): Promise<AppliedEmulation> {
  const country = normaliseCountry(o.country);
  const languages = languagesFor(country, o.languages);
  // Chromium derives navigator.languages from this list and adds q-values to the header itself.
  const acceptLanguage = languages.join(",");
  const timezone = PLACES[country]?.timezone ?? "UTC";
  // A screenshot's viewport sizes a phone too (the phone's pixel ratio, touch and user agent stay): it was dropped.
  const viewport = { ...(o.mobile ? PHONE : DESKTOP), ...(o.viewport ?? {}) };
  const userAgent = o.userAgent ?? userAgentFor(o.mobile, o.chromeMajor);
  const metadata = o.userAgent ? undefined : clientHints(o.mobile, o.chromeMajor);
  const sends: Promise<unknown>[] = [
    session.send("Emulation.setUserAgentOverride", {
      userAgent,
      acceptLanguage,
      platform: o.mobile ? "Linux armv8l" : "Win32",
      ...(metadata ? { userAgentMetadata: metadata } : {}),
    }),
    session.send("Emulation.setDeviceMetricsOverride", {
      width: viewport.width,
      height: viewport.height,
      deviceScaleFactor: viewport.deviceScaleFactor,
      mobile: viewport.mobile,
      screenWidth: viewport.width,
      screenHeight: viewport.height,
    }),
    session.send("Emulation.setTimezoneOverride", { timezoneId: timezone }),
    session.send("Emulation.setLocaleOverride", { locale: languages[0]!.replace("_", "-") }).catch(() => {}),
  ];
  // Sent for desktop too: a reused page may come from a mobile scrape.
  sends.push(session.send("Emulation.setTouchEmulationEnabled", o.mobile ? { enabled: true, maxTouchPoints: 5 } : { enabled: false }));
  let stealthScriptId: string | undefined;
  if (o.stealth) {
    sends.push(
      session.send("Page.addScriptToEvaluateOnNewDocument", { source: stealthScript(languages) }).then((r) => (stealthScriptId = r.identifier)),
    );
  }
  await Promise.all(sends);
  return { userAgent, acceptLanguage, languages, timezone, viewport, ...(stealthScriptId ? { stealthScriptId } : {}) };
}

/** Page-side stealth patches (run before any page script). */
function stealthScript(languages: string[]): string {
  return `(() => {
  const define = (obj, prop, get) => { try { Object.defineProperty(obj, prop, { get, configurable: true }); } catch {} };
  define(Navigator.prototype, "webdriver", () => false);
  define(Navigator.prototype, "languages", () => Object.freeze(${JSON.stringify(languages)}));
  define(Navigator.prototype, "hardwareConcurrency", () => 8);
  define(Navigator.prototype, "deviceMemory", () => 8);
  if (!window.chrome) window.chrome = {};
  if (!window.chrome.runtime) window.chrome.runtime = { OnInstalledReason: {}, PlatformOs: {}, connect() {}, sendMessage() {} };
  if (!window.chrome.app) window.chrome.app = { isInstalled: false, getDetails() { return null; }, getIsInstalled() { return false; } };
  const q = window.navigator.permissions && window.navigator.permissions.query;
  if (q) window.navigator.permissions.query = (p) => p && p.name === "notifications"
    ? Promise.resolve({ state: Notification.permission === "denied" ? "denied" : "prompt", onchange: null })
    : q.call(window.navigator.permissions, p);
})();`;
}
