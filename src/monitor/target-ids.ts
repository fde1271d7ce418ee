/**
 * @module monitor/target-ids
 * The ids of a monitor's targets across an update. Each page's history is kept under its target's id, and a target
 * the body names no id of is named by its place: without carrying ids over, removing or reordering targets renamed
 * the ones left and their unchanged pages came back `new`.
 */
import type { MonitorTarget } from "../api/monitor-targets.ts";

/**
 * The changeTracking tag a target's pages are scraped with: each monitor and target keeps its own history, apart from
 * the key's own change tracking (monitor/check.ts monitoredOptions; read back by monitor/store.ts).
 */
export function monitorTag(monitorId: string, targetId: string): string {
  return `monitor:${monitorId}:${targetId}`;
}

/** What a target reads, whatever its id and options: its type and its URLs, crawl start or queries (in any order). */
function targetIdentity(target: MonitorTarget): string {
  if (target.type === "scrape") return JSON.stringify(["scrape", [...target.urls].sort()]);
  if (target.type === "crawl") return JSON.stringify(["crawl", target.url]);
  return JSON.stringify(["search", [...target.queries].sort()]);
}

/**
 * The whole target but its id, keys sorted at every level (a client may send the same options in another key order):
 * a target sent again unchanged matches its old self before any look-alike.
 */
function targetContent(target: MonitorTarget): string {
  const { id: _id, ...rest } = target;
  return JSON.stringify(rest, (_key, value: unknown) =>
    value && typeof value === "object" && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : value,
  );
}

/**
 * An update's targets with final ids. A monitor keeps each page's history under its target's id (tag
 * `monitor:<id>:<target id>`), and positional ids alone would rename the targets left after one is removed or moved
 * (`target-2` becoming `target-1`): their unchanged pages would come back `new`. Ids the body gave (`given[i]`) are
 * kept and claimed first. A target the body gave no id then takes, in this order, the id of the first unclaimed
 * `existing` target that is the same in all but its id, else that reads the same ({@link targetIdentity}: a target
 * whose options changed), else the id its place would give it (`target-N` for place N) when the target that had that
 * id was of its type (a target edited in place: new URLs, the history of those it kept). Any other gets the first `target-N` from its place on that is
 * neither in use nor an id the targets had before the update.
 */
export function carryTargetIds(targets: readonly MonitorTarget[], given: readonly boolean[], existing: readonly MonitorTarget[]): MonitorTarget[] {
  const ids: (string | undefined)[] = targets.map((t, i) => (given[i] ? t.id : undefined));
  const claimed = new Set(ids.filter((id): id is string => id !== undefined));
  const claim = (i: number, found: MonitorTarget | undefined) => {
    if (!found) return;
    ids[i] = found.id;
    claimed.add(found.id);
  };
  for (const key of [targetContent, targetIdentity]) {
    targets.forEach((target, i) => {
      if (ids[i] === undefined) claim(i, existing.find((e) => !claimed.has(e.id) && key(e) === key(target)));
    });
  }
  targets.forEach((target, i) => {
    if (ids[i] === undefined) claim(i, existing.find((e) => e.id === `target-${i + 1}` && !claimed.has(e.id) && e.type === target.type));
  });
  const taken = new Set([...claimed, ...existing.map((e) => e.id)]);
  return targets.map((target, i) => {
    let id = ids[i];
    for (let n = i + 1; id === undefined; n++) if (!taken.has(`target-${n}`)) id = `target-${n}`;
    taken.add(id);
    return { ...target, id };
  });
}
