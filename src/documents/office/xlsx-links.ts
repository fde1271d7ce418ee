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
import type { Relationship } from "./xlsx-package.ts";
import { cellPosition } from "./xlsx-scan.ts";
import { children, parseXml } from "./xml.ts";

/** Addresses a cell may link to. */
const WEB_OR_MAIL = /^(https?|mailto):/i;

/** A local element name (`x:hyperlink` and `hyperlink` are the same element under a prefix some writers use). */
const local = (tag: string) => tag.slice(tag.indexOf(":") + 1);

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
    if (local(h.tagName) !== "hyperlink") continue;
    const rel = rels.get(h.getAttribute("r:id") ?? "");
    const cell = cellPosition((h.getAttribute("ref") ?? "").split(":")[0]!);
    if (!rel?.external || !cell) continue;
    const target = rel.target.trim();
    if (!WEB_OR_MAIL.test(target)) continue;
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

/**
 * The URL of a formula that is a `HYPERLINK` call with a literal address, the whole formula (`HYPERLINK("https://…",
 * "text")`, `=HYPERLINK("mailto:…")`); undefined for any other formula or address.
 */
export function formulaLink(formula: string): string | undefined {
  const head = /^\s*=?\s*(?:_xlfn\.)?HYPERLINK\s*\(\s*/i.exec(formula);
  if (!head || formula[head[0].length] !== '"') return undefined;
  const url = stringLiteral(formula, head[0].length);
  if (!url || !/^\s*[,)]/.test(formula.slice(url.end))) return undefined;
  const close = callEnd(formula, url.end);
  if (close < 0 || formula.slice(close + 1).trim() !== "") return undefined;
  const target = url.text.trim();
  return WEB_OR_MAIL.test(target) ? target : undefined;
}
