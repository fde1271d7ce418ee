/**
 * @module engines/browser/renderer-pids
 * Which processes are a Chromium's renderers, read from `/proc` at every memory check (renderer-memory.ts). Asking
 * Chromium (`SystemInfo.getProcessInfo`) is a round trip through its browser process too dear to make every check,
 * so its answer was reused for 2 s, and a renderer started since (a page navigating to another site, a new page)
 * went unwatched that long: a page allocating 800 MB in its first second was loaded, and its scrape or session
 * command answered, before the guard saw it. `/proc` lists every process at once (~50 µs for ~120 processes); a
 * process is read once when first seen (its parent and command line, ~10 µs), so a check costs a directory listing
 * plus the processes started since the last one. Chromium's renderers descend from its browser process (through a
 * zygote) and say `--type=renderer` in their command line.
 */
import { readdirSync, readFileSync } from "node:fs";

/** How far below its browser process a renderer may be (browser → zygote → renderer, with room for one more). */
const MAX_DEPTH = 3;
/**
 * What is remembered of processes is forgotten when the last listing is older than this (the guard sleeps while no
 * page is leased): a pid freed and taken by another process in between must not keep the old one's facts.
 */
const FORGET_AFTER_MS = 1_000;

/** What is known of one process. */
interface ProcessFacts {
  ppid: number;
  /** Chromium's `--type=` (`renderer`, `zygote`, `utility`, ...), `""` for none (a browser process or not Chromium). */
  type: string;
}

/** Reads a process's parent and Chromium process type, or undefined when it has gone. */
function readFacts(pid: number): ProcessFacts | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The name in parentheses may hold spaces and parentheses: the fields after it follow the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    // Chromium rewrites its command line into one space-separated string; others keep NUL separators.
    const type = /(?:^|[\0 ])--type=([a-z-]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, "utf8"))?.[1] ?? "";
    return Number.isInteger(ppid) ? { ppid, type } : undefined;
  } catch {
    return undefined;
  }
}

/** Finds the renderer processes of Chromium browser processes from `/proc`, remembering what it read. */
export class RendererPidFinder {
  private readonly known = new Map<number, ProcessFacts>();
  /** False once `/proc` could not be listed (not Linux, or hidden): callers then ask Chromium. */
  private usable = true;
  /** When `/proc` was last listed (`performance.now()`). */
  private listedAt = -Infinity;

  /**
   * The renderer pids under each browser pid in `browserPids` that `/proc` shows (one it does not show has no entry),
   * or undefined when `/proc` cannot be read. A process
   * forked from a zygote says `--type=zygote` until it renames itself, so such a process's type is read again at
   * the next check rather than remembered.
   */
  find(browserPids: number[], now = performance.now()): Map<number, number[]> | undefined {
    if (!this.usable) return undefined;
    if (now - this.listedAt > FORGET_AFTER_MS) this.known.clear();
    this.listedAt = now;
    let names: string[];
    try {
      names = readdirSync("/proc");
    } catch {
      this.usable = false;
      return undefined;
    }
    const present = new Set<number>();
    for (const name of names) {
      const pid = Number(name);
      if (!Number.isInteger(pid) || pid <= 0) continue;
      present.add(pid);
      const facts = this.known.get(pid);
      if (facts && !this.unsettled(facts)) continue;
      const read = readFacts(pid);
      if (read) this.known.set(pid, read);
    }
    for (const pid of this.known.keys()) if (!present.has(pid)) this.known.delete(pid);
    const roots = new Set(browserPids.filter((pid) => present.has(pid)));
    const found = new Map<number, number[]>([...roots].map((pid) => [pid, []]));
    for (const [pid, facts] of this.known) {
      if (facts.type !== "renderer") continue;
      const root = this.rootOf(facts, roots);
      if (root !== undefined) found.get(root)!.push(pid);
    }
    return found;
  }

  /** Whether a process may still rename itself: a zygote's child that still says it is a zygote. */
  private unsettled(facts: ProcessFacts): boolean {
    return facts.type === "zygote" && this.known.get(facts.ppid)?.type === "zygote";
  }

  /** The browser pid among `roots` that `facts`' process descends from, within {@link MAX_DEPTH}. */
  private rootOf(facts: ProcessFacts, roots: Set<number>): number | undefined {
    let ppid = facts.ppid;
    for (let depth = 1; depth <= MAX_DEPTH; depth++) {
      if (roots.has(ppid)) return ppid;
      const parent = this.known.get(ppid);
      if (!parent) return undefined;
      ppid = parent.ppid;
    }
    return undefined;
  }
}
