/**
 * @module documents/office/list-counter
 * The item counts of Word's lists, which the DOC reader (doc-lists.ts, from the binary list tables) and the RTF reader
 * (rtf-lists.ts, from `\listtable` and `\listoverridetable`) keep alike: a list has a count per level; an item forgets
 * the counts of the levels below its own, then starts its level at the level's start, or at the restart its list
 * override asks for (once per override and level: Word restarts there the first time the override is used), or
 * counts on from the item before.
 */
export class ListCounter {
  /** Per list, the count at each level (undefined: not started since a shallower item). */
  private readonly counts = new Map<number, (number | undefined)[]>();
  /** Overrides whose restart of a level has been applied (`override:level`). */
  private readonly restarted = new Set<string>();

  /**
   * Counts an item of list `listId` at level `ilvl`, reached through list override `override`, whose restart of
   * that level is `restart` (undefined for none); `start` is the level's own start. Returns the item's number.
   */
  next(listId: number, override: number, ilvl: number, restart: number | undefined, start: number): number {
    let counts = this.counts.get(listId);
    if (!counts) this.counts.set(listId, (counts = []));
    counts.length = Math.min(counts.length, ilvl + 1);
    const key = `${override}:${ilvl}`;
    if (restart !== undefined && !this.restarted.has(key)) {
      this.restarted.add(key);
      counts[ilvl] = restart;
    } else counts[ilvl] = counts[ilvl] === undefined ? start : counts[ilvl]! + 1;
    return counts[ilvl]!;
  }

  /** The count of list `listId` at level `ilvl` (undefined when not started). */
  at(listId: number, ilvl: number): number | undefined {
    return this.counts.get(listId)?.[ilvl];
  }

  /** Sets the count of a list already counted to what an item's marker showed: the count goes on from there. */
  set(listId: number, ilvl: number, n: number): void {
    const counts = this.counts.get(listId);
    if (counts) counts[ilvl] = n;
  }
}
