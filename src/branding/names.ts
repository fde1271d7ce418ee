/**
 * @module branding/names
 * The brand's name from the page title or the logo's alt text, for `brandName` when the page has no
 * `og:site_name` or `application-name` (derive.ts).
 *
 * Titles follow two conventions: "page | site" ("Log in · GitHub", "Docs - Vercel", "Pricing | Acme Cloud") on inner
 * pages, and "site | tagline" ("Stackly | Ship faster", "Loom | Video Messaging", "Figma: The Collaborative Interface
 * Design Tool") on home pages. The shortest part was taken first, which named the brand "Home", "Docs" and "Log in";
 * then the last part that was not a page word, which named it "Payments" ("Kite — Payments"), "Video Messaging" and
 * "Computers" (on acme.com.br, where "com" was taken for the site's name). Now, in order: the part that matches the
 * site's registrable domain (tldts: `westpac` of westpac.com.au, never a public suffix); else not a page word (Home,
 * Pricing, Log in, and home-page words of other languages: Startseite, Accueil, Главная, 首页…); else the part that
 * reads most like a name and least like a description ({@link descriptionScore}), the first of equals.
 */
import { domainToUnicode } from "node:url";
import { parse } from "tldts";

/** Title separators: `|`, `-`, `–`, `—`, `·`, `•`, `»` with spaces around (so "Coca-Cola" stays whole), a full-width `｜`. */
const TITLE_SEPARATOR = /\s+[|–—·•»-]\s+|\s*｜\s*/;
/** `Figma: The Collaborative…` splits at its colon, `How we moved 40 services to Bun: a retrospective` does not. */
const MAX_WORDS_BEFORE_COLON = 3;

/** Words that name a page of a site rather than the site, lower-case; home-page words in other languages too. */
const PAGE_WORDS = new Set(
  [
    "home", "homepage", "home page", "index", "welcome", "main", "start", "overview", "getting started", "docs", "documentation",
    "doc", "guide", "guides", "reference", "api", "blog", "news", "about", "about us", "contact", "contact us", "pricing", "plans",
    "log in", "login", "sign in", "signin", "sign up", "signup", "register", "create account", "account", "my account", "dashboard",
    "search", "search results", "results", "settings", "help", "help center", "support", "faq", "faqs", "careers", "jobs",
    "terms", "terms of service", "terms of use", "privacy", "privacy policy", "legal", "404", "not found", "page not found", "error",
    "features", "product", "products", "shop", "store", "cart", "checkout", "downloads", "download", "changelog", "status",
    "enterprise", "team", "our team", "company", "customers", "partners", "resources", "solutions", "services", "integrations",
    "security", "community", "events", "press", "newsroom", "investors", "developers",
    // Home and a few common pages in other languages.
    "accueil", "page d'accueil", "startseite", "inicio", "início", "página inicial", "pagina iniziale", "главная", "главная страница",
    "головна", "ホーム", "トップ", "トップページ", "strona główna", "etusivu", "hem", "startsida", "forside", "hjem", "anasayfa", "ana sayfa",
    "首页", "主页", "首頁", "主頁", "홈", "trang chủ", "beranda", "úvod", "domů", "kezdőlap", "αρχική", "pagina principale", "portada",
    "kontakt", "impressum", "preise", "über uns", "contacto", "precios", "tarifs", "à propos", "connexion", "anmelden",
  ],
);

/** Small words a name may have in lower case ("Bank of America", "Procter & Gamble"). */
const NAME_CONNECTORS = new Set(["of", "and", "&", "the", "for", "de", "la", "le", "du", "von", "van", "der", "y", "et", "und", "a", "an", "in", "on"]);

/**
 * Endings of words that describe a product or a page rather than name a company ("Messaging", "Software",
 * "Payments", "Solutions"), matched on the last word of a part.
 */
const DESCRIPTIVE_ENDING = /(?:ing|ware|ments?|tions?|ness|ities|ity|ics|ers|ies|ives?|ance|ence|ships?)$/;

/**
 * The site's name in a page title: `Pricing | Acme Cloud` → `Acme Cloud`, `Stackly | Ship faster` → `Stackly`,
 * `Kite — Payments` → `Kite`. In order: a part that matches the host's registrable name (`Home | Bankly` on
 * bankly.example); else, of the parts that are not page words, the one that reads most like a name
 * ({@link descriptionScore}: not a tagline, not a description, not the URL's path segment), the first of equals;
 * else the shortest part.
 * @param pageUrl the page's URL, for the host and path (optional: without it only the words decide)
 */
export function nameFromTitle(title: string, pageUrl?: string): string | undefined {
  const parts = titleParts(title);
  if (parts.length <= 1) return parts[0];
  const { hostNames, pathWords } = urlWords(pageUrl);
  const named = parts.filter((p) => !PAGE_WORDS.has(normalise(p)));
  const onHost = named.filter((p) => matchesHost(p, hostNames));
  if (onHost.length > 0) return onHost[onHost.length - 1];
  if (named.length === 0) return [...parts].sort((a, b) => a.length - b.length)[0];
  // Stable: equals keep their order, so the first of them wins ("Acme — Enterprise").
  return named
    .map((p, i) => ({ p, i, score: descriptionScore(p, pathWords) }))
    .sort((a, b) => a.score - b.score || a.i - b.i)[0]!.p;
}

/** A title's parts: split at its separators, and at a `: ` that follows at most three words. */
function titleParts(title: string): string[] {
  const out: string[] = [];
  for (const part of title.split(TITLE_SEPARATOR)) {
    const colon = /:\s+/.exec(part);
    if (colon && wordsOf(part.slice(0, colon.index)).length <= MAX_WORDS_BEFORE_COLON) out.push(part.slice(0, colon.index), part.slice(colon.index + colon[0].length));
    else out.push(part);
  }
  return out.map((p) => p.trim()).filter(Boolean);
}

/**
 * How much a title part reads like a description rather than a name (0: a name). A tagline (a sentence, more than
 * five words, or a lower-case word: "Ship faster", "Minimal clothing") 4; four words or more, or an article and two
 * more ("The Collaborative Interface Design Tool") 2; the URL's own path segment ("Fonts" on /fonts) 2; a last word
 * that describes a product ("Video Messaging", "Payroll Software", "Payments") 1.
 */
function descriptionScore(part: string, pathWords: Set<string>): number {
  const words = wordsOf(part);
  let score = 0;
  if (isTagline(part)) score += 4;
  else if (words.length >= 4 || (words.length >= 3 && /^(?:the|a|an)$/i.test(words[0]!))) score += 2;
  if (pathWords.has(compact(part))) score += 2;
  const last = words[words.length - 1] ?? "";
  // A capitalised common word ("Banking", "Payments"), not an acronym ("BBC", "MONO") or a made-up spelling ("GitHub").
  if (/^\p{Lu}\p{Ll}+$/u.test(last) && last.length >= 5 && (DESCRIPTIVE_ENDING.test(last) || /[^suio]s$/.test(last))) score += 1;
  return score;
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
  const words = wordsOf(part);
  if (words.length === 1) return false;
  if (words.length > 5 || /[.!?](\s|$)/.test(part)) return true;
  return words.some((w) => /^\p{Ll}{3,}/u.test(w) && !NAME_CONNECTORS.has(w.toLowerCase()));
}

/**
 * Whether a title part names the host: "Bankly" on bankly.example, "Acme Cloud" on acme.test, "GitHub" on github.com,
 * "Westpac" on westpac.com.au. The registrable name (before the public suffix) may begin the part or the part begin
 * it; another label of the host (a subdomain) only as the whole part.
 */
function matchesHost(part: string, hostNames: { registrable: string; others: string[] }): boolean {
  const c = compact(part);
  if (c.length < 3) return false;
  const r = hostNames.registrable;
  return (r.length > 0 && (r === c || (r.length >= 3 && c.startsWith(r)) || r.startsWith(c))) || hostNames.others.includes(c);
}

/** The host's registrable name and its other labels (not `www`, never a public suffix; none for an IP address), and the path's segments. */
function urlWords(pageUrl: string | undefined): { hostNames: { registrable: string; others: string[] }; pathWords: Set<string> } {
  try {
    const u = new URL(pageUrl ?? "");
    // Unicode, so that "Сбербанк" meets сбербанк.рф (the URL's host is in punycode).
    const host = domainToUnicode(u.hostname) || u.hostname;
    const parsed = parse(host, { allowPrivateDomains: true });
    const registrable = parsed.isIp ? "" : compact(parsed.domainWithoutSuffix ?? "");
    const others = parsed.isIp ? [] : (parsed.subdomain ?? "").split(".").filter((l) => l && !/^www\d*$/.test(l)).map(compact);
    const pathWords = new Set(u.pathname.split("/").map((seg) => compact(safeDecode(seg).replace(/\.\w+$/, ""))).filter(Boolean));
    return { hostNames: { registrable, others }, pathWords };
  } catch {
    return { hostNames: { registrable: "", others: [] }, pathWords: new Set() };
  }
}

function wordsOf(part: string): string[] {
  return part.trim().split(/\s+/).filter(Boolean);
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
