/**
 * @module documents/office/odt-lists
 * How an ODT's list items are numbered (ODF 1.2 §5.3, §19.795–19.796). Each `text:list` in the text starts a list
 * of its own, counting each level from its list style's start value (or an item's `text:start-value`), unless it
 * goes on with one before: the list whose `xml:id` its `text:continue-list` names, or, with
 * `text:continue-numbering="true"`, the list just before it when that has the same list style (as LibreOffice reads
 * it). A note between the steps of a procedure is written that way: two `text:list`s, the second counting on.
 *
 * The items of a list block carry their own kind and number from here; {@link settleListItems} then drops those the
 * renderer would give them anyway (counting on by one at their level), so only a start value, a count going on after
 * a paragraph, or a numbered level under bullets is said.
 */
import { listDepths } from "../layout/list-numbers.ts";
import type { Block, ListItem } from "../layout/model.ts";
import { MAX_LIST_NUMBER } from "./odt-styles.ts";
import type { XmlElement } from "./xml.ts";

/** One list as the document counts it, over the `text:list` elements that continue it. */
export interface OdtList {
  /** The list style its first `text:list` named: what `text:continue-numbering` compares. */
  readonly style: string | undefined;
  /** The number of the latest item at each level; a level deeper than the latest item's starts again. */
  readonly counters: (number | undefined)[];
  /** Its list block while that is the document's last block: the next `text:list` continuing it adds to it. */
  block?: Extract<Block, { kind: "list" }>;
}

/** The lists of one document, as its `text:list` elements open and continue them. */
export class OdtListNumbering {
  private readonly byId = new Map<string, OdtList>();
  private last: OdtList | undefined;

  /** The list the `text:list` element `list`, with list style `style`, belongs to: a new one, or the one it continues. */
  open(list: XmlElement, style: string | undefined): OdtList {
    const continues = list.getAttribute("text:continue-list");
    let out = continues !== null ? this.byId.get(continues) : undefined;
    if (continues === null && list.getAttribute("text:continue-numbering") === "true" && this.last?.style === style) out = this.last;
    out ??= { style, counters: [] };
    const id = list.getAttribute("xml:id");
    if (id) this.byId.set(id, out);
    this.last = out;
    return out;
  }

  /**
   * The number of `list`'s next item at `depth` (0-based): the item's own `start` when it says one, else one more than
   * the latest at that depth, or the level's `levelStart` for the first there. Deeper levels start again after it.
   */
  next(list: OdtList, depth: number, start: number | undefined, levelStart: number): number {
    const counters = list.counters;
    if (counters.length > depth + 1) counters.length = depth + 1;
    const latest = counters[depth];
    const number = Math.min(start ?? (latest === undefined ? levelStart : latest + 1), MAX_LIST_NUMBER);
    counters[depth] = number;
    return number;
  }
}

/**
 * Drops each item's `ordered` and `number` where the renderer (layout/render.ts) would give the item the same:
 * `ordered` at the top level as the block's, bullets below; a number one more than the item before at its level
 * (after one of its kind), or 1. Every item must carry both when called.
 */
export function settleListItems(block: Extract<Block, { kind: "list" }>): void {
  const items: ListItem[] = block.items;
  const depths = listDepths(items);
  const counters: { ordered: boolean; next: number }[] = [];
  items.forEach((item, i) => {
    const depth = depths[i]!;
    counters.length = depth + 1;
    const ordered = item.ordered === true;
    if (ordered === (depth === 0 && block.ordered)) delete item.ordered;
    const counter = counters[depth];
    const counted = counter && counter.ordered === ordered ? counter.next : 1;
    if (!ordered || item.number === counted) delete item.number;
    counters[depth] = { ordered, next: (item.number ?? counted) + 1 };
  });
}
