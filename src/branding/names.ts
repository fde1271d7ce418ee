/**
 * @module branding/names
 * The brand's name from the page title or the logo's alt text, for `brandName` when the page has no
 * `og:site_name` or `application-name` (derive.ts).
 *
 * A title is usually "page | site" ("Log in · GitHub", "Docs - Vercel", "Pricing | Acme Cloud") on inner pages and
 * "site | tagline" ("Stackly | Ship faster") on a home page. The shortest part was taken, which named the brand
 * "Home", "Docs" and "Log in". Now a part is the site's name when it matches the host name; otherwise the last
 * part that reads as a name, not a page word ("Home", "Pricing", the URL's own path segment) nor a tagline.
 */

/** Title separators: `|`, `-`, `–`, `—`, `·`, `•`, `»` with spaces around (so "Coca-Cola" stays whole), `:` with a space after. */
const TITLE_SEPARATOR = /\s+[|–—·•»-]\s+|:\s+/;

/** Words that name a page of a site rather than the site. */
const PAGE_WORDS = new Set(
  [
    "home", "homepage", "home page", "index", "welcome", "main", "start", "overview", "getting started", "docs", "documentation",
    "doc", "guide", "guides", "reference", "api", "blog", "news", "about", "about us", "contact", "contact us", "pricing", "plans",
    "log in", "login", "sign in", "signin", "sign up", "signup", "register", "create account", "account", "my account", "dashboard",
    "search", "search results", "results", "settings", "help", "help center", "support", "faq", "faqs", "careers", "jobs",
    "terms", "terms of service", "terms of use", "privacy", "privacy policy", "legal", "404", "not found", "page not found", "error",
    "features", "product", "products", "shop", "store", "cart", "checkout", "downloads", "download", "changelog", "status",
  ],
);

/** Small words a name may have in lower case ("Bank of America", "Procter & Gamble"). */
const NAME_CONNECTORS = new Set(["of", "and", "&", "the", "for", "de", "la", "le", "du", "von", "van", "der", "y", "et", "und", "a", "an", "in", "on"]);

/**
 * The site's name in a page title: `Pricing | Acme Cloud` → `Acme Cloud`, `Stackly | Ship faster` → `Stackly`.
 * In order: a part that matches the host name (`Home | Bankly` on bankly.example); else the last part that is a
 * name (not a page word, not the URL's path segment, not a tagline); else the shortest part that is not a page word.
 * @param pageUrl the page's URL, for the host and path (optional: without it only the words decide)
 */
export function nameFromTitle(title: string, pageUrl?: string): string | undefined {
  const parts = title.split(TITLE_SEPARATOR).map((p) => p.trim()).filter(Boolean);
  if (parts.length <= 1) return parts[0];
  const { hostLabels, pathWords } = urlWords(pageUrl);
  const named = parts.filter((p) => !PAGE_WORDS.has(normalise(p)) && !pathWords.has(compact(p)));
  const onHost = named.filter((p) => matchesHost(p, hostLabels));
  if (onHost.length > 0) return onHost[onHost.length - 1];
  const names = named.filter((p) => !isTagline(p));
  if (names.length > 0) return names[names.length - 1];
  return [...(named.length > 0 ? named : parts)].sort((a, b) => a.length - b.length)[0];
}

/**
 * The brand a logo's alt text names: "Acme logo", "Logo of Acme" and "Acme – Home" are Acme (the alt describes the
 * picture, and the name came back as "Acme logo"); a bare "Logo" names nothing. Words inside a name stay.
 */
export function nameFromLogoAlt(alt: string): string | undefined {
  const name = alt
    .trim()
    .replace(/^(?:the\s+)?(?:company\s+)?(?:logo(?:type)?|brand\s*mark)\b(?:\s+(?:of|for)\b)?[\s:–—-]*/i, "")
    .replace(/(?:^|[\s|–—·:-]+)(?:(?:company\s+)?logo(?:type)?|brand\s*mark|home\s*page|homepage|home|icon)$/i, "")
    .trim();
  return name || undefined;
}

/** A phrase rather than a name: a sentence ("Develop. Preview. Ship."), more than five words, or a word of three or more letters in lower case ("Ship faster", "AI infra"). */
function isTagline(part: string): boolean {
  const words = part.split(/\s+/);
  if (words.length === 1) return false;
  if (words.length > 5 || /[.!?](\s|$)/.test(part)) return true;
  return words.some((w) => /^\p{Ll}{3,}/u.test(w) && !NAME_CONNECTORS.has(w.toLowerCase()));
}

/** Whether a title part names the host: "Bankly" on bankly.example, "Acme Cloud" on acme.test, "GitHub" on github.com. */
function matchesHost(part: string, hostLabels: string[]): boolean {
  const c = compact(part);
  if (c.length < 3) return false;
  return hostLabels.some((label) => label === c || (label.length >= 3 && c.startsWith(label)) || label.startsWith(c));
}

/** The host's labels that can be a name (not `www`, not the top-level domain, not an IP address), and the path's segments. */
function urlWords(pageUrl: string | undefined): { hostLabels: string[]; pathWords: Set<string> } {
  try {
    const u = new URL(pageUrl ?? "");
    const host = u.hostname.replace(/^www\d*\./, "");
    const hostLabels = /^[\d.]+$|^\[/.test(host) ? [] : host.split(".").slice(0, -1).map(compact).filter((l) => l.length > 0);
    const pathWords = new Set(u.pathname.split("/").map((seg) => compact(safeDecode(seg).replace(/\.\w+$/, ""))).filter(Boolean));
    return { hostLabels, pathWords };
  } catch {
    return { hostLabels: [], pathWords: new Set() };
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function normalise(part: string): string {
  return part.toLowerCase().replace(/\s+/g, " ").replace(/[.!…]+$/, "").trim();
}

function compact(part: string): string {
  return part.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");
}
