/**
 * @module monitor/target-ids
 * The ids of a monitor's targets across an update. Each page's history is kept under its target's id, and a target
 * the body names no id of is named by its place: without carrying ids over, removing or reordering targets renamed
 * the ones left and their unchanged pages came back `new`.
 */
import type { MonitorTarget } from "../api/monitor.ts";

/** What a target reads, whatever its id and options: its type and its URLs, crawl start or queries (in any order). */
function targetIdentity(target: MonitorTarget): string {
  if (target.type === "scrape") return JSON.stringify(["scrape", [...target.urls].sort()]);
  if (target.type === "crawl") return JSON.stringify(["crawl", target.url]);
  return JSON.stringify(["search", [...target.queries].sort()]);
}

/**
 * An update's targets with final ids. A monitor keeps each page's history under its target's id (tag
 * `monitor:<id>:<target id>`), and positional ids alone would rename the targets left after one is removed or moved
 * (`target-2` becoming `target-1`): their unchanged pages would come back `new`. So a target the body gave no id
 * (`given[i]` false) takes the id of the monitor's `existing` target that reads the same ({@link targetIdentity}) when
 * exactly one such target is still unclaimed (ids the body gave claim theirs first, and win). Any other gets the first
 * free `target-N` from its place on: none in use, nor an existing target's, whose history a new target must not inherit.
 */
export function carryTargetIds(targets: readonly MonitorTarget[], given: readonly boolean[], existing: readonly MonitorTarget[]): MonitorTarget[] {
  const claimed = new Set(targets.filter((_, i) => given[i]).map((t) => t.id));
  const carried = targets.map((target, i) => {
    if (given[i]) return target.id;
    const identity = targetIdentity(target);
    const same = existing.filter((e) => !claimed.has(e.id) && targetIdentity(e) === identity);
    if (same.length !== 1) return undefined;
    claimed.add(same[0]!.id);
    return same[0]!.id;
  });
  const taken = new Set([...claimed, ...existing.map((e) => e.id)]);
  return targets.map((target, i) => {
    let id = carried[i];
    for (let n = i + 1; id === undefined; n++) if (!taken.has(`target-${n}`)) id = `target-${n}`;
    taken.add(id);
    return { ...target, id };
  });
}
