/**
 * @module documents/layout/list-numbers
 * The depth, kind and number of each item of a list block, as both renderers (render.ts for markdown,
 * render-html.ts for HTML) write them, so the two formats of a document number its lists alike.
 */
import type { ListItem, ListNumberFormat } from "./model.ts";

/**
 * The items' depths as both renderers need them: the first item at 0 and each item at most one deeper than the one
 * before it, relative to the items around it. A DOCX list whose first item sits at level 2 became an indented code
 * block in markdown and HTML with more closing tags than opening ones; a jump of two levels left an empty level.
 */
export function listDepths(items: readonly { depth: number }[]): number[] {
  const out: number[] = [];
  items.forEach((it, i) => {
    if (i === 0) return out.push(0);
    const prev = items[i - 1]!.depth;
    if (it.depth > prev) return out.push(out[i - 1]! + 1);
    if (it.depth === prev) return out.push(out[i - 1]!);
    // Shallower: the same level as the nearest earlier item at or above it (one deeper when that one is shallower).
    for (let j = i - 1; j >= 0; j--) {
      if (items[j]!.depth <= it.depth) return out.push(items[j]!.depth === it.depth ? out[j]! : out[j]! + 1);
    }
    return out.push(0);
  });
  return out;
}

/** Whether `item`, at `depth` (from {@link listDepths}), is numbered: its own say, else the list's at the top level. */
export function itemOrdered(item: ListItem, depth: number, listOrdered: boolean): boolean {
  return item.ordered ?? (depth === 0 && listOrdered);
}

/** An item's kind and number as both renderers write it; `format` only for a numbered item whose number is not digits. */
export interface ItemNumber {
  ordered: boolean;
  number: number;
  format?: ListNumberFormat;
}

/**
 * Each item's kind and number: a run of numbered items at one level counts from 1, or from an item's own
 * `number`, and starts again under a new parent or after items of the other kind.
 */
export function listNumbers(items: readonly ListItem[], depths: readonly number[], listOrdered: boolean): ItemNumber[] {
  const counters: { ordered: boolean; next: number }[] = [];
  return items.map((item, i) => {
    const depth = depths[i]!;
    counters.length = depth + 1;
    const ordered = itemOrdered(item, depth, listOrdered);
    const counter = counters[depth];
    const number = item.number ?? (counter && counter.ordered === ordered ? counter.next : 1);
    counters[depth] = { ordered, next: number + 1 };
    return ordered && item.format ? { ordered, number, format: item.format } : { ordered, number };
  });
}

/** Roman numerals' values and digits, largest first. */
const ROMAN: readonly [number, string][] = [[1000, "M"], [900, "CM"], [500, "D"], [400, "CD"], [100, "C"], [90, "XC"], [50, "L"], [40, "XL"], [10, "X"], [9, "IX"], [5, "V"], [4, "IV"], [1, "I"]];

/**
 * Most letters a repeated-letter label has (Word's item 832 is 32 z's): past it the number is in digits, as a number
 * the format cannot show. Unbounded, a list of 100,000 lettered items wrote 190 million letters.
 */
export const MAX_REPEATED_LETTERS = 32;

/**
 * `number` as `format` shows it: letters count a…z, then aa, ab… (bijective base 26, as a browser numbers an
 * `<ol type="a">`), or with `letterSync` aa, bb… (one letter repeated, as Word and LibreOffice's letter
 * synchronization do, at most {@link MAX_REPEATED_LETTERS} of them); roman numerals run to 3999; a number they cannot
 * show (0, a negative, past those) is in digits, as a browser writes it.
 */
export function listLabel(number: number, format: ListNumberFormat | undefined, letterSync = false): string {
  if (!format || !Number.isInteger(number) || number < 1) return String(number);
  if (format === "a" || format === "A") {
    let label = "";
    if (letterSync) {
      const times = Math.floor((number - 1) / 26) + 1;
      if (times > MAX_REPEATED_LETTERS) return String(number);
      label = String.fromCharCode(97 + ((number - 1) % 26)).repeat(times);
    } else for (let n = number; n > 0; n = Math.floor((n - 1) / 26)) label = String.fromCharCode(97 + ((n - 1) % 26)) + label;
    return format === "A" ? label.toUpperCase() : label;
  }
  if (number >= 4000) return String(number);
  let label = "";
  let n = number;
  for (const [value, digits] of ROMAN) for (; n >= value; n -= value) label += digits;
  return format === "I" ? label : label.toLowerCase();
}
