/**
 * @module api/css-selector
 * Whether a CSS selector from a request can be used: `includeTags`/`excludeTags` and the `attributes` format's
 * selectors are matched with the same engine later (linkedom's css-select, the engine of upstream's cheerio), and a
 * selector it cannot parse used to be dropped without a word: `includeTags: ["div[["]` answered 200 with empty
 * markdown. Such a selector is a 400 naming it instead.
 */
import { parseHtml } from "../pipeline/index.ts";
import type { Issue } from "./issues.ts";

const probe = parseHtml("<html><body><p></p></body></html>");

/** The parser's complaint about `selector`, or undefined when it can be matched. */
export function cssSelectorProblem(selector: string): string | undefined {
  if (selector.trim() === "") return undefined; // an empty entry is skipped where selectors are matched
  try {
    probe.querySelector(selector);
    return undefined;
  } catch (e) {
    return `Invalid CSS selector: ${selector}${e instanceof Error && e.message ? ` (${e.message.split("\n")[0]})` : ""}`;
  }
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
