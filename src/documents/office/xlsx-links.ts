/**
 * @module documents/office/xlsx-links
 * The web and mail links of an XLSX sheet's cells, so a linked cell reads `[text](url)`. Two sources:
 *
 * - The sheet's `<hyperlinks>`: each `<hyperlink ref="A2" r:id="…" location="…"/>` names its address through the
 *   sheet's relationships; Excel keeps an address's fragment apart, in `location` (`http://host/ui/` and
 *   `/case/2007` are `http://host/ui/#/case/2007`). A hyperlink with a `location` alone points into the workbook
 *   (a sheet, a cell) and is no link on a page.
 * - A `HYPERLINK("url", "text")` formula (Google Sheets' way to link a cell, and Excel's too): the cell stores its
 *   text alone, so the formula is read when it is that call with a literal URL; a URL computed by the formula
 *   (`HYPERLINK(A1)`, `"https://"&B2`) is not evaluated.
 *
 * Only http, https and mailto addresses are kept, as from XLS (xls-hyperlinks.ts): others (files, `javascript:`)
 * mean nothing on a page, or worse.
 */
import type { Relationship } from "./opc-package.ts";
import { cellPosition, localName } from "./xlsx-scan.ts";
import { children, parseXml } from "./xml.ts";

/** Whether `url` is an address a cell may link to on a page (http, https, mailto), in XLSX as in XLS. */
export const isWebOrMail = (url: string) => /^(?:https?|mailto):/i.test(url);

/**
 * The links of a sheet's `<hyperlinks>` section: `column,row` (0-based column, 1-based row) → URL. `rels` are the
 * sheet's relationships.
 */
export function sheetHyperlinks(xml: string, rels: ReadonlyMap<string, Relationship>): Map<string, string> {
  const out = new Map<string, string>();
  const start = xml.search(/<(?:\w+:)?hyperlinks\b/);
  if (start < 0) return out;
  const end = /<\/(?:\w+:)?hyperlinks>/.exec(xml.slice(start));
  const section = parseXml(xml.slice(start, end ? start + end.index + end[0].length : undefined), "XLSX", "hyperlinks");
  for (const h of children(section)) {
    if (localName(h.tagName) !== "hyperlink") continue;
    const rel = rels.get(h.getAttribute("r:id") ?? "");
    const cell = cellPosition((h.getAttribute("ref") ?? "").split(":")[0]!);
    if (!rel?.external || !cell) continue;
    const target = rel.target.trim();
    if (!isWebOrMail(target)) continue;
    const location = h.getAttribute("location") ?? "";
    out.set(`${cell.column},${cell.row}`, location && !target.includes("#") ? `${target}#${location}` : target);
  }
  return out;
}

/** A formula's string literal from `at` (its opening quote): the text (`""` is a quote) and where it ends. */
function stringLiteral(formula: string, at: number): { text: string; end: number } | undefined {
  let text = "";
  for (let i = at + 1; i < formula.length; i++) {
    if (formula[i] !== '"') text += formula[i];
    else if (formula[i + 1] === '"') text += '"', i++;
    else return { text, end: i + 1 };
  }
  return undefined;
}

/** Where the call whose arguments start at `at` closes (its `)`), strings and nested calls skipped; -1 if never. */
function callEnd(formula: string, at: number): number {
  let depth = 0;
  for (let i = at; i < formula.length; i++) {
    const c = formula[i];
    if (c === '"') {
      const s = stringLiteral(formula, i);
      if (!s) return -1;
      i = s.end - 1;
    } else if (c === "(") depth++;
    else if (c === ")" && depth-- === 0) return i;
  }
  return -1;
}

/** Whether `c` is a character `\s` matches in a formula's head: the spaces and line breaks a writer may put there. */
const isSpace = (c: string | undefined) => c !== undefined && c.trim() === "";

/** The index of the first character of `text` from `at` that is no space. */
function skipSpaces(text: string, at: number): number {
  while (isSpace(text[at])) at++;
  return at;
}

/** The function name a link formula calls, after an optional `_xlfn.` (Excel's prefix for newer functions in files). */
const HYPERLINK_CALL = /(?:_xlfn\.)?HYPERLINK/iy;

/**
 * Where the arguments of a formula that is a `HYPERLINK(` call start (`=`, spaces and `_xlfn.` allowed before it), or
 * -1. Spaces are skipped by index and the name matched where they end (a sticky regex): `/^\s*=?\s*…/` tried every
 * split of a run of spaces between its two `\s*`, and a formula of 200,000 spaces took 34 s.
 */
function hyperlinkArguments(formula: string): number {
  let at = skipSpaces(formula, 0);
  if (formula[at] === "=") at = skipSpaces(formula, at + 1);
  HYPERLINK_CALL.lastIndex = at;
  if (!HYPERLINK_CALL.test(formula)) return -1;
  at = skipSpaces(formula, HYPERLINK_CALL.lastIndex);
  return formula[at] === "(" ? skipSpaces(formula, at + 1) : -1;
}

/**
 * The URL of a formula that is a `HYPERLINK` call with a literal address, the whole formula (`HYPERLINK("https://…",
 * "text")`, `=HYPERLINK("mailto:…")`); undefined for any other formula or address. Linear in the formula's length.
 */
export function formulaLink(formula: string): string | undefined {
  const args = hyperlinkArguments(formula);
  if (args < 0 || formula[args] !== '"') return undefined;
  const url = stringLiteral(formula, args);
  if (!url) return undefined;
  const next = formula[skipSpaces(formula, url.end)];
  if (next !== "," && next !== ")") return undefined;
  const close = callEnd(formula, url.end);
  if (close < 0 || skipSpaces(formula, close + 1) !== formula.length) return undefined;
  const target = url.text.trim();
  return isWebOrMail(target) ? target : undefined;
}
