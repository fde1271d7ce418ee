/**
 * @module pipeline/main-content/hints
 * Weak, markup-level hints about what an element is: semantic tags, ARIA roles, schema.org microdata and
 * class/id vocabulary. They only scale the text-based evidence computed in `features.ts`; on their own they
 * never keep or drop anything, because class names lie often enough (`has-sidebar`, `no-comments`,
 * `header-content`) that a selector blacklist scores far below a content scorer.
 */

/** Where an element's content probably belongs. */
export const enum Region {
  /** No opinion. */
  Neutral = 0,
  /** Likely the main content container (article, main, role=main, articleBody, `entry-content`…). */
  Content = 1,
  /** Page chrome: navigation, banners, footers, sidebars, share bars, ads, cookie notices. */
  Chrome = 2,
  /** User comments below an article; main content only when the page is itself a discussion. */
  Comments = 3,
  /** Not rendered (hidden attribute, aria-hidden, display:none). */
  Hidden = 4,
  /** `<header>` or a `header` class: site chrome at page level, the title block inside an article. */
  Header = 5,
  /** Named as the body of an article or post (`itemprop=articleBody`, `article-body`, `entry-content`…). */
  StrongContent = 6,
}

/** Class/id tokens (after splitting on `-`, `_`, spaces and camelCase) that mark page chrome. */
const CHROME_TOKENS = new Set([
  "sidebar", "side", "aside", "related", "recommended", "recommendations", "recirc",
  "promo", "promotion", "advert", "advertisement", "ad", "ads", "adsense", "sponsor", "sponsored", "share",
  "sharing", "social", "newsletter", "subscribe", "subscription", "signup", "footer", "navbar", "nav",
  "navigation", "menu", "breadcrumb", "breadcrumbs", "cookie", "cookies", "consent", "gdpr", "popup", "modal",
  "pagination", "pager", "toolbar", "skip", "banner", "trending", "popular", "outbrain", "taboola",
  "tags", "tagcloud", "byline", "dateline", "print", "caption", "credit", "credits", "author", "bio", "login", "signin", "sitemap", "copyright", "legal",
]);
/**
 * Tokens that mark comment threads. Customer reviews below a product are the shop's comment thread (`reviews`, not
 * `review`: a review article names its body `review-content`, a shop its list of them `reviews`).
 */
const COMMENT_TOKENS = new Set(["comment", "comments", "disqus", "respond", "replies", "discussion", "reviews"]);
/** Tokens that mark the content container; they cancel weak chrome tokens on the same element. */
const CONTENT_TOKENS = new Set([
  "article", "content", "entry", "main", "post", "story", "text", "body", "prose", "markdown", "blog",
  "page", "documentation", "docs", "rich", "richtext",
]);
/** A class naming both a kind of document and its body (`post` + `content`) marks the content container. */
const SUBJECT_TOKENS = new Set(["article", "post", "entry", "story", "blog", "news", "single"]);
const PART_TOKENS = new Set(["body", "content", "text", "prose", "copy"]);
const JOINED_STRONG_TOKENS = new Set([
  "articlebody", "postbody", "storybody", "entrycontent", "postcontent", "articlecontent", "storycontent",
  "articletext", "posttext", "bodytext", "richtext", "prose", "markdown", "mw-parser-output",
]);

/** Chrome tokens that a content token on the same element overrides (`header-content` is not a header). */
const WEAK_CHROME_TOKENS = new Set(["side", "aside", "nav", "menu", "banner", "tags", "byline", "print", "share", "caption", "author"]);

const CHROME_ROLES = new Set(["navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar", "dialog", "alert", "toolbar"]);
const CHROME_TAGS = new Set(["nav", "aside", "footer", "dialog", "menu", "figcaption"]);
/** Chrome tags that hold no part of the content (a caption does). */
const FURNITURE_TAGS = new Set(["nav", "aside", "footer", "dialog", "menu"]);

/**
 * Whether a chrome element (see {@link regionOf}) is named so by its tag or ARIA role, not by its class: the page's
 * own markup says it is navigation, a footer, a sidebar or a dialog.
 */
export function isMarkupChrome(el: Element, tag: string): boolean {
  if (FURNITURE_TAGS.has(tag)) return true;
  const role = el.getAttributeNode("role")?.value;
  return role !== undefined && CHROME_ROLES.has(role);
}
const CONTENT_TAGS = new Set(["article", "main"]);
const SCHEMA_CONTENT_RE = /schema\.org\/(?:\w*Article|BlogPosting|Report|TechArticle|Recipe|QAPage|DiscussionForumPosting|Product)\b/i;
const HIDDEN_STYLE_RE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i;

/** Split class/id values into lower-case tokens: `postBody js-share_bar` → post, body, js, share, bar. */
function tokens(value: string): string[] {
  return value
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/);
}

/** Raw value of an attribute known to exist. */
function attr(el: Element, name: string): string {
  return el.getAttributeNode(name)?.value ?? "";
}

/**
 * Classify one element from its tag, attributes and class/id vocabulary.
 *
 * @param el - the element
 * @param tag - its lower-case local name (passed in because linkedom recomputes `tagName` on each access)
 */
export function regionOf(el: Element, tag: string): Region {
  // One pass over the attribute names: most elements have none or only a class. getAttributeNode is used because
  // linkedom's getAttribute("class") goes through className/classList, which dominated the cost of this function.
  let role: string | null = null;
  let itemprop: string | null = null;
  let itemtype: string | null = null;
  let names = "";
  for (const name of el.getAttributeNames()) {
    switch (name) {
      case "class":
      case "id":
        names += ` ${attr(el, name)}`;
        break;
      case "hidden":
        return Region.Hidden;
      case "aria-hidden":
        if (attr(el, name) === "true") return Region.Hidden;
        break;
      case "style":
        if (HIDDEN_STYLE_RE.test(attr(el, name))) return Region.Hidden;
        break;
      case "role":
        role = attr(el, name);
        break;
      case "itemprop":
        itemprop = attr(el, name);
        break;
      case "itemtype":
        itemtype = attr(el, name);
        break;
    }
  }

  if (CONTENT_TAGS.has(tag)) return Region.Content;
  if (role === "main" || role === "article") return Region.Content;
  if (itemprop && /\barticleBody\b|\btext\b|\breviewBody\b/.test(itemprop)) return Region.StrongContent;
  if (role && CHROME_ROLES.has(role)) return Region.Chrome;
  if (CHROME_TAGS.has(tag)) return Region.Chrome;
  if (tag === "header") return Region.Header;

  const byName = names.length > 1 ? classRegion(names) : Region.Neutral;
  if (byName !== Region.Neutral) return byName;
  if (itemtype && SCHEMA_CONTENT_RE.test(itemtype)) return Region.Content;
  return Region.Neutral;
}

/** Class/id vocabularies repeat heavily within and across pages; tokenising is the costly part of `regionOf`. */
const CLASS_REGION_CACHE = new Map<string, Region>();
const CLASS_REGION_CACHE_MAX = 20_000;

/** The region implied by an element's class and id values alone. */
function classRegion(names: string): Region {
  const cached = CLASS_REGION_CACHE.get(names);
  if (cached !== undefined) return cached;
  let content = false;
  let chrome = false;
  let weakChrome = false;
  let comments = false;
  let header = false;
  let subject = false;
  let part = false;
  let strong = false;
  for (const token of tokens(names)) {
    if (!token) continue;
    if (SUBJECT_TOKENS.has(token)) subject = true;
    if (PART_TOKENS.has(token)) part = true;
    if (JOINED_STRONG_TOKENS.has(token)) strong = true;
    if (COMMENT_TOKENS.has(token)) comments = true;
    else if (token === "header" || token === "masthead") header = true;
    else if (CONTENT_TOKENS.has(token)) content = true;
    else if (CHROME_TOKENS.has(token) || (token.startsWith("nav") && token.length > 3 && !token.startsWith("navigate"))) {
      if (WEAK_CHROME_TOKENS.has(token)) weakChrome = true;
      else chrome = true;
    }
  }
  let region = Region.Neutral;
  if (comments) region = Region.Comments;
  else if (strong || (subject && part)) region = chrome ? Region.Neutral : Region.StrongContent;
  else if (chrome) region = Region.Chrome;
  else if (content) region = Region.Content;
  else if (weakChrome) region = Region.Chrome;
  else if (header) region = Region.Header;
  if (CLASS_REGION_CACHE.size >= CLASS_REGION_CACHE_MAX) CLASS_REGION_CACHE.clear();
  CLASS_REGION_CACHE.set(names, region);
  return region;
}
