/**
 * @module crawl/robots
 * A robots.txt parser and matcher after RFC 9309 (reliability.md B5). Pure: fetching and caching live in
 * `robots-cache.ts`.
 *
 * - Groups: one or more `User-agent` lines followed by rules; a `User-agent` line after rules starts a new
 *   group; rules before any `User-agent` are ignored (§2.1). Groups naming the same agent are merged (§2.2.1).
 * - Agent matching is by product token, case-insensitive (§2.2.1): `FireCrawlAgent/1.0` in the file matches our
 *   `FireCrawlAgent`. The first of the caller's agents that has a group wins; otherwise the `*` groups apply;
 *   with neither, everything is allowed.
 * - Rules: the longest matching pattern wins and `Allow` wins a tie (§2.2.2); `*` matches any sequence and a
 *   final `$` anchors the end. Matching is greedy (leftmost occurrence of each literal run), linear in
 *   pattern + path, so an adversarial file cannot make it backtrack. Percent-encoding is normalised on both sides
 *   (§2.2.2).
 * - Limits (RFC 9309 §2.5 lets a parser have them): a pattern keeps its first {@link MAX_ROBOTS_PATTERN_CHARS}
 *   characters, as Google's parser cuts long lines; a group keeps its first {@link MAX_ROBOTS_WILDCARD_RULES}
 *   rules with a `*`, and one agent is judged by at most that many of them across its merged groups, in file order.
 *   Rules without a `*` are all kept: each costs at most its own length per URL, so the 500 KiB parse cap bounds them.
 * - `/robots.txt` itself is always allowed (§2.2.2). `Crawl-delay` (not in the RFC, widely honoured) is read per
 *   group; `Sitemap:` lines are global.
 */

/** The agents upstream asks robots.txt about, in order (api-v2.md §5.5.4). */
export const DEFAULT_ROBOTS_AGENTS: readonly string[] = ["FireCrawlAgent", "FirecrawlAgent"];

/** Bytes of a robots.txt that are parsed; RFC 9309 §2.5 asks for at least 500 KiB. */
export const MAX_ROBOTS_PARSE_BYTES = 500 * 1024;

/**
 * Characters of a rule's pattern that are kept: Google's parser cuts lines at the same length, 2083 × 8 (eight times
 * the longest URL some browsers take).
 */
export const MAX_ROBOTS_PATTERN_CHARS = 2083 * 8;

/**
 * Rules with a `*` kept per group, and tried for one agent across its merged groups. Each link is checked against
 * every rule and a wildcard rule can scan the whole path, so this bounds the work per link (rules × path length) a
 * hostile 500 KiB file can ask for (a few ms for a 2000-character path); real files have a handful.
 */
export const MAX_ROBOTS_WILDCARD_RULES = 5000;

/** One `Allow`/`Disallow` line. */
export interface RobotsRule {
  allow: boolean;
  /** The path pattern, percent-encoding normalised. */
  pattern: string;
}

/** The verdict on one URL, with the rule that decided it. */
export interface RobotsVerdict {
  allowed: boolean;
  /** The winning rule; absent when no rule matched (allowed). */
  rule?: RobotsRule;
}

/** Whether a URL may be fetched; `undefined` when the oracle knows nothing about that URL's origin. */
export interface RobotsOracle {
  isAllowed(url: string, agents: readonly string[]): boolean | undefined;
}

interface Group {
  agents: string[];
  rules: RobotsRule[];
  /** Per rule: whether its pattern has a `*` (counted against {@link MAX_ROBOTS_WILDCARD_RULES}). */
  wildcard: boolean[];
  wildcardCount: number;
  crawlDelaySeconds?: number;
}

/** The agents to ask about: the caller's `robotsUserAgent` alone, or upstream's defaults. */
export function robotsAgents(robotsUserAgent?: string): readonly string[] {
  const custom = robotsUserAgent?.trim();
  return custom ? [custom] : DEFAULT_ROBOTS_AGENTS;
}

/** The product token of a `User-agent` value or of one of our agent names: leading `[A-Za-z_-]+`, lower-cased. */
function productToken(value: string): string {
  const v = value.trim();
  if (v === "*") return "*";
  return (/^[A-Za-z_-]+/.exec(v)?.[0] ?? v).toLowerCase();
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * RFC 9309 §2.2.2 / RFC 3986 §6.2.2: percent-encode octets outside printable ASCII, upper-case existing escapes,
 * and decode escapes of unreserved characters, so `/a%7eb`, `/a~b` and `/a%7Eb` compare equal.
 */
export function normalizeRobotsPath(path: string): string {
  let out = "";
  for (let i = 0; i < path.length; i++) {
    const c = path[i]!;
    if (c === "%" && /^[0-9A-Fa-f]{2}$/.test(path.slice(i + 1, i + 3))) {
      const hex = path.slice(i + 1, i + 3).toUpperCase();
      const ch = String.fromCharCode(parseInt(hex, 16));
      out += UNRESERVED.test(ch) ? ch : `%${hex}`;
      i += 2;
    } else {
      const code = c.charCodeAt(0);
      if (code <= 0x20 || code >= 0x7f) {
        const cp = path.codePointAt(i)!;
        const s = String.fromCodePoint(cp);
        // A lone surrogate (no character: encodeURIComponent throws on it) is written as U+FFFD, as TextDecoder
        // writes an undecodable byte: a thrown URIError made the whole robots.txt count as unreachable.
        out += s.isWellFormed() ? encodeURIComponent(s) : "%EF%BF%BD";
        i += s.length - 1;
      } else out += c;
    }
  }
  return out;
}

/**
 * Whether `path` matches a robots pattern: `*` is any sequence, a final `$` anchors the end, any other `$` is
 * literal. Greedy: the first literal run must be a prefix, each later one is taken at its leftmost occurrence after
 * the previous (never wrong for `*`-only globs: an earlier end leaves more room for what follows), and with `$` the
 * last run must end the path without overlapping the earlier ones. Linear in pattern + path.
 */
export function robotsPatternMatches(path: string, pattern: string): boolean {
  const anchored = pattern.endsWith("$");
  const body = anchored ? pattern.slice(0, -1) : pattern;
  let star = body.indexOf("*");
  // Most rules are plain prefixes, and most paths fail on the literal head of a pattern.
  if (star === -1) return anchored ? path === body : path.startsWith(body);
  if (!path.startsWith(body.slice(0, star))) return false;
  let at = star;
  for (;;) {
    const from = star + 1;
    const next = body.indexOf("*", from);
    if (next === -1) {
      const last = body.slice(from);
      if (anchored) return path.length - last.length >= at && path.endsWith(last);
      return path.indexOf(last, at) !== -1;
    }
    if (next > from) {
      const found = path.indexOf(body.slice(from, next), at);
      if (found === -1) return false;
      at = found + (next - from);
    }
    star = next;
  }
}

/** The path and query of `url`, as robots rules see it. */
function robotsPathOf(url: string | URL): string {
  const u = typeof url === "string" ? new URL(url) : url;
  return normalizeRobotsPath((u.pathname || "/") + u.search);
}

/** Adds an `Allow`/`Disallow` value to `group`, within {@link MAX_ROBOTS_PATTERN_CHARS} and {@link MAX_ROBOTS_WILDCARD_RULES}. */
function addRule(group: Group, allow: boolean, value: string): void {
  // Cut between characters, not inside a surrogate pair.
  let end = Math.min(value.length, MAX_ROBOTS_PATTERN_CHARS);
  if (end < value.length && /[\uD800-\uDBFF]/.test(value[end - 1]!)) end--;
  const pattern = normalizeRobotsPath(value.slice(0, end).replace(/\*+/g, "*"));
  const wildcard = pattern.includes("*");
  if (wildcard && group.wildcardCount >= MAX_ROBOTS_WILDCARD_RULES) return;
  group.rules.push({ allow, pattern });
  group.wildcard.push(wildcard);
  if (wildcard) group.wildcardCount++;
}

/** A parsed robots.txt. Immutable. */
export class RobotsTxt {
  private constructor(
    private readonly groups: readonly Group[],
    /** Absolute URLs of the `Sitemap:` lines, in file order. */
    readonly sitemaps: readonly string[],
    private readonly disallowEverything = false,
  ) {}

  /** A file with no rules: everything allowed (RFC 9309 §2.3.1.3, "unavailable"). */
  static allowAll(): RobotsTxt {
    return new RobotsTxt([], []);
  }

  /** Complete disallow (RFC 9309 §2.3.1.4, "unreachable"). */
  static disallowAll(): RobotsTxt {
    return new RobotsTxt([], [], true);
  }

  /**
   * Parses robots.txt text. Only the first {@link MAX_ROBOTS_PARSE_BYTES} should be passed (the cache cuts).
   * `robotsUrl` resolves relative `Sitemap:` values; without it only absolute ones are kept.
   */
  static parse(text: string, robotsUrl?: string): RobotsTxt {
    const groups: Group[] = [];
    const sitemaps: string[] = [];
    let current: Group | undefined;
    let inAgentLines = false;
    for (const raw of text.split(/\r\n|\r|\n/)) {
      const line = raw.replace(/#.*$/, "").trim();
      const colon = line.indexOf(":");
      if (colon <= 0) continue;
      const key = line.slice(0, colon).trim().toLowerCase().replace(/[\s_]+/g, "-");
      const value = line.slice(colon + 1).trim();
      if (key === "user-agent" || key === "useragent") {
        if (!inAgentLines || !current) {
          current = { agents: [], rules: [], wildcard: [], wildcardCount: 0 };
          groups.push(current);
        }
        current.agents.push(productToken(value));
        inAgentLines = true;
        continue;
      }
      if (key === "sitemap" || key === "site-map") {
        try {
          sitemaps.push(new URL(value, robotsUrl).href);
        } catch {
          // not a URL
        }
        continue;
      }
      if (!current) continue;
      if (key === "allow" || key === "disallow") {
        inAgentLines = false;
        if (value !== "") addRule(current, key === "allow", value);
      } else if (key === "crawl-delay") {
        inAgentLines = false;
        const seconds = Number(value);
        if (Number.isFinite(seconds) && seconds >= 0 && current.crawlDelaySeconds === undefined) current.crawlDelaySeconds = seconds;
      }
    }
    return new RobotsTxt(groups, [...new Set(sitemaps)]);
  }

  /** The groups that apply to the first of `agents` named in the file, else the `*` groups. */
  private groupsFor(agents: readonly string[]): Group[] {
    for (const agent of agents) {
      const token = productToken(agent);
      const found = this.groups.filter((g) => g.agents.includes(token));
      if (found.length > 0) return found;
    }
    return this.groups.filter((g) => g.agents.includes("*"));
  }

  /** The verdict on `url` for `agents`, with the deciding rule. Throws a `TypeError` on a relative URL string. */
  check(url: string | URL, agents: readonly string[] = DEFAULT_ROBOTS_AGENTS): RobotsVerdict {
    const path = robotsPathOf(url);
    if (path === "/robots.txt") return { allowed: true };
    if (this.disallowEverything) return { allowed: false, rule: { allow: false, pattern: "/" } };
    let best: RobotsRule | undefined;
    let wildcardBudget = MAX_ROBOTS_WILDCARD_RULES;
    for (const group of this.groupsFor(agents)) {
      for (let i = 0; i < group.rules.length; i++) {
        const rule = group.rules[i]!;
        if (group.wildcard[i] && wildcardBudget-- <= 0) continue;
        if (best && (rule.pattern.length < best.pattern.length || (rule.pattern.length === best.pattern.length && !rule.allow))) continue;
        if (robotsPatternMatches(path, rule.pattern)) best = rule;
      }
    }
    return best ? { allowed: best.allow, rule: best } : { allowed: true };
  }

  /** Whether `agents` may fetch `url`. */
  isAllowed(url: string | URL, agents: readonly string[] = DEFAULT_ROBOTS_AGENTS): boolean {
    return this.check(url, agents).allowed;
  }

  /** `Crawl-delay` of the group that applies to `agents`, in seconds; undefined when none is given. */
  crawlDelaySeconds(agents: readonly string[] = DEFAULT_ROBOTS_AGENTS): number | undefined {
    for (const g of this.groupsFor(agents)) if (g.crawlDelaySeconds !== undefined) return g.crawlDelaySeconds;
    return undefined;
  }
}
