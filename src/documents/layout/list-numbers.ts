/**
 * @module documents/layout/list-numbers
 * The depth, kind and number of each item of a list block, as both renderers (render.ts for markdown,
 * render-html.ts for HTML) write them, so the two formats of a document number its lists alike.
 */
import type { ListItem } from "./model.ts";

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

/**
 * Each item's kind and number: a run of numbered items at one level counts from 1, or from an item's own
 * `number`, and starts again under a new parent or after items of the other kind.
 */
export function listNumbers(items: readonly ListItem[], depths: readonly number[], listOrdered: boolean): { ordered: boolean; number: number }[] {
  const counters: { ordered: boolean; next: number }[] = [];
  return items.map((item, i) => {
    const depth = depths[i]!;
    counters.length = depth + 1;
    const ordered = itemOrdered(item, depth, listOrdered);
    const counter = counters[depth];
    const number = item.number ?? (counter && counter.ordered === ordered ? counter.next : 1);
    counters[depth] = { ordered, next: number + 1 };
    return { ordered, number };
  });
}
