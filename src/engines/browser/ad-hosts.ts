/**
 * @module engines/browser/ad-hosts
 * The ad and tracker filter list bundled in the binary (`blockAds`, default on). Host suffixes: a request to
 * the host or any subdomain of it is blocked. Compiled from the most frequent third-party ad, analytics and
 * tag-manager hosts of common public lists (EasyList/EasyPrivacy "third-party" domain rules); no list is
 * fetched at run time (the appliance is air-gapped).
 */
export const AD_HOSTS: readonly string[] = [
  // Ad serving and exchanges
  "doubleclick.net",
  "googlesyndication.com",
  "googleadservices.com",
  "adservice.google.com",
  "pagead2.googlesyndication.com",
  "amazon-adsystem.com",
  "adnxs.com",
  "adsrvr.org",
  "rubiconproject.com",
  "pubmatic.com",
  "openx.net",
  "criteo.com",
  "criteo.net",
  "casalemedia.com",
  "indexww.com",
  "taboola.com",
  "outbrain.com",
  "revcontent.com",
  "mgid.com",
  "media.net",
  "smartadserver.com",
  "adform.net",
  "adition.com",
  "yieldmo.com",
  "sharethrough.com",
  "teads.tv",
  "33across.com",
  "contextweb.com",
  "districtm.io",
  "lijit.com",
  "sovrn.com",
  "triplelift.com",
  "spotxchange.com",
  "spotx.tv",
  "bidswitch.net",
  "adsafeprotected.com",
  "moatads.com",
  "doubleverify.com",
  "serving-sys.com",
  "flashtalking.com",
  "zedo.com",
  "advertising.com",
  "adtechus.com",
  "yieldlab.net",
  "adroll.com",
  "quantserve.com",
  "scorecardresearch.com",
  "popads.net",
  "propellerads.com",
  "exoclick.com",
  "adcash.com",
  "trafficjunky.net",
  "zergnet.com",
  "carbonads.net",
  "buysellads.com",
  "ads-twitter.com",
  "ads.linkedin.com",
  "ads.yahoo.com",
  "ad.doubleclick.net",
  // Analytics, tag managers and trackers
  "google-analytics.com",
  "googletagmanager.com",
  "googletagservices.com",
  "analytics.google.com",
  "connect.facebook.net",
  "facebook.com/tr",
  "hotjar.com",
  "hotjar.io",
  "mixpanel.com",
  "segment.com",
  "segment.io",
  "amplitude.com",
  "fullstory.com",
  "mouseflow.com",
  "crazyegg.com",
  "clarity.ms",
  "newrelic.com",
  "nr-data.net",
  "chartbeat.com",
  "chartbeat.net",
  "parsely.com",
  "comscore.com",
  "krxd.net",
  "bluekai.com",
  "demdex.net",
  "omtrdc.net",
  "everesttech.net",
  "agkn.com",
  "rlcdn.com",
  "mathtag.com",
  "tapad.com",
  "adsymptotic.com",
  "bounceexchange.com",
  "pardot.com",
  "marketo.net",
  "hs-analytics.net",
  "hs-scripts.com",
  "hubspot.net",
  "optimizely.com",
  "kissmetrics.com",
  "statcounter.com",
  "yandex.ru/metrika",
  "mc.yandex.ru",
  "bat.bing.com",
  "snap.licdn.com",
  "static.ads-twitter.com",
  "analytics.tiktok.com",
  "tiqcdn.com",
  "tealiumiq.com",
  "ensighten.com",
  "branch.io",
  "appsflyer.com",
  "adjust.com",
  "kochava.com",
  "braze.com",
  "onesignal.com",
  "pushcrew.com",
  "sentry-cdn.com",
  "trustarc.com",
];

/** True when `url` is on the list: its host is a listed host or a subdomain of one, or it matches a path entry. */
export function isAdUrl(url: URL): boolean {
  let h = url.hostname.toLowerCase().replace(/\.$/, "");
  for (;;) {
    if (HOSTS.has(h)) return true;
    const paths = PATHS.get(h);
    if (paths && paths.some((p) => url.pathname.startsWith(p))) return true;
    const dot = h.indexOf(".");
    if (dot < 0) return false;
    h = h.slice(dot + 1);
  }
}

const HOSTS: ReadonlySet<string> = new Set(AD_HOSTS.filter((h) => !h.includes("/")));
const PATHS: ReadonlyMap<string, string[]> = (() => {
  const m = new Map<string, string[]>();
  for (const entry of AD_HOSTS.filter((h) => h.includes("/"))) {
    const i = entry.indexOf("/");
    const host = entry.slice(0, i);
    m.set(host, [...(m.get(host) ?? []), entry.slice(i)]);
  }
  return m;
})();

/**
 * Chromium `Fetch` URL patterns that pause every candidate request (any port); {@link isAdUrl} then decides,
 * so a pattern's looseness (`*.doubleclick.net*` also matches `x.doubleclick.network`) never blocks a stranger.
 */
export function adUrlPatterns(): string[] {
  const out: string[] = [];
  for (const h of AD_HOSTS) {
    const host = h.split("/")[0]!;
    out.push(`*://${host}*`, `*://*.${host}*`);
  }
  return [...new Set(out)];
}
