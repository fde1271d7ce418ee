/**
 * @module api/css-selector
 * Whether a CSS selector from a request can be used: `includeTags`/`excludeTags` and the `attributes` format's
 * selectors are matched with the same engine later (linkedom's css-select, the engine of upstream's cheerio), and a
 * selector it cannot parse used to be dropped without a word: `includeTags: ["div[["]` answered 200 with empty
 * markdown. Such a selector is a 400 naming it instead.
 *
 * Action selectors (`click`, `wait`, `scroll`) are matched by the browser instead, as CSS only
 * ({@link actionSelectorProblem}): Puppeteer's own query languages are refused before the scrape starts.
 */
import { parseHtml } from "../pipeline/index.ts";
import type { Issue } from "./issues.ts";

const probe = parseHtml("<html><body><p></p></body></html>");

/** css-select's complaint about `selector` (first line), or undefined when it can be matched. */
function parseError(selector: string): string | undefined {
  try {
    probe.querySelector(selector);
    return undefined;
  } catch (e) {
    return e instanceof Error ? (e.message.split("\n")[0] ?? "") : String(e);
  }
}

const invalid = (selector: string, why: string) => `Invalid CSS selector: ${selector}${why ? ` (${why})` : ""}`;

/** The parser's complaint about `selector`, or undefined when it can be matched. */
export function cssSelectorProblem(selector: string): string | undefined {
  if (selector.trim() === "") return undefined; // an empty entry is skipped where selectors are matched
  const error = parseError(selector);
  return error === undefined ? undefined : invalid(selector, error);
}

/** An issue per selector of `list` the engine cannot parse, at `path` + its index. */
export function cssSelectorIssues(list: readonly string[] | undefined, path: (string | number)[]): Issue[] {
  const issues: Issue[] = [];
  (list ?? []).forEach((s, i) => {
    const problem = cssSelectorProblem(s);
    if (problem !== undefined) issues.push({ code: "custom", path: [...path, i], message: problem });
  });
  return issues;
}

/**
 * css-select errors that say what it cannot match, not that the text is not CSS: Chromium, which matches action
 * selectors, knows `:focus`, `:target`, `::before` and namespaces, and refuses what it does not know itself (a 400
 * from the action runner, engines/browser/actions.ts).
 */
const UNSUPPORTED_BY_CSS_SELECT = /^Unknown pseudo-class |not (yet )?supported by css-select/;

/** The selector's text outside strings, escapes and comments (where Puppeteer's query syntax would be). */
function bareText(selector: string): string {
  let out = "";
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i]!;
    if (c === "\\") {
      i++; // the escaped character is part of a name
      out += "_";
    } else if (c === '"' || c === "'") {
      while (++i < selector.length && selector[i] !== c) if (selector[i] === "\\") i++;
      out += "_";
    } else if (c === "/" && selector[i + 1] === "*") {
      const end = selector.indexOf("*/", i + 2);
      i = end < 0 ? selector.length : end + 1;
      out += " ";
    } else out += c;
  }
  return out;
}

/**
 * Why an action's `selector` cannot be used, or undefined. Actions take CSS selectors (as upstream's), matched by
 * the page's `querySelector`. Puppeteer's own query syntax (`aria/…`, `pierce/…`, `text/…`, `xpath/…`, or with `=`, the `>>>`
 * and `>>>>` combinators, `::-p-…` pseudo-elements) is not CSS and is refused here, before anything is fetched, as
 * is what css-select cannot parse at all; an empty selector matches nothing.
 */
export function actionSelectorProblem(selector: string): string | undefined {
  if (selector.trim() === "") return "The selector is empty: actions take a CSS selector";
  const bare = bareText(selector);
  const prefix = /^\s*([a-z][\w-]*[=/])/i.exec(bare)?.[1];
  if (prefix) return invalid(selector, `"${prefix}" is Puppeteer's query syntax, not CSS: actions take CSS selectors`);
  if (bare.includes(">>>")) return invalid(selector, `">>>" is Puppeteer's shadow-piercing combinator, not CSS: actions take CSS selectors`);
  if (/::-p-/i.test(bare)) return invalid(selector, `"::-p-" pseudo-elements are Puppeteer's query syntax, not CSS: actions take CSS selectors`);
  if (bare.includes("/")) return invalid(selector, `"/" is not CSS outside a string or a comment`);
  const error = parseError(selector);
  return error === undefined || UNSUPPORTED_BY_CSS_SELECT.test(error) ? undefined : invalid(selector, error);
}
