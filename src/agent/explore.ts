/**
 * @module agent/explore
 * How an agent run decides what to read. It starts from the caller's URLs (all of them, up to its page budget),
 * or, without URLs, from a web search for the task (the top results). Then, unless `strictConstrainToURLs`, it
 * asks the model round by round which of the links found so far (and the other search results) to read next,
 * shown the start of every page read and the candidates (each with its link text from the page's markdown,
 * agent/link-labels.ts, or its search result's title) ranked by how many of the task's words their URL and label
 * contain, until the model says it is done (the pages it picked in that same answer are read first), nothing is
 * left to read, the page budget (`effort`, counting every page tried, read or not) or the credit limit
 * (`maxCredits`) is reached, a v1 deep research's `maxDepth` rounds or `timeLimit` are used up (a warning says so;
 * the answer is drawn from what was read), or the run is no longer wanted (cancelled).
 * Links are bounded: {@link MAX_LINKS_PER_PAGE} per page and {@link MAX_CANDIDATES} in all.
 *
 * ```
 * urls ───────────────┐                          ┌─ done / budget / maxCredits ─▶ pages read
 * task ─▶ web search ─┴▶ read ─▶ links ─▶ model picks ≤ 2 ─▶ read ─┘
 * ```
 */
import { CrawlboxError } from "../errors.ts";
import type { ReadPage } from "../extract/read-pages.ts";
import type { LlmCall } from "../llm/call.ts";
import type { LlmClient } from "../llm/client.ts";
import { agentNextMessages } from "../llm/task-prompts.ts";
import { linkLabels } from "./link-labels.ts";

/** Pages read per round after the first. */
export const PAGES_PER_ROUND = 2;
/** Search results read in the first round of a run without URLs. */
const FIRST_SEARCH_READS = 2;
/** Candidates shown to the model per round (the best ranked). */
export const MAX_CANDIDATES_SHOWN = 40;
/** Characters of each page read shown to the model when it picks. */
const READ_PREVIEW_CHARS = 300;
/** Links of one page offered as candidates (a page of 60,000 links must not cost more than a small one). */
export const MAX_LINKS_PER_PAGE = 500;
/** Candidates a run keeps in all. */
export const MAX_CANDIDATES = 5_000;

/** A link the run may read. */
interface Candidate {
  url: string;
  label: string;
}

/** What exploring needs. */
export interface ExploreOptions {
  llm: LlmClient;
  /** The limits of the next model call (each call gets its own deadline). */
  call: () => LlmCall;
  spent: { tokens: number };
  task: string;
  urls: readonly string[];
  strict: boolean;
  maxPages: number;
  /** Reads pages (scraped and charged); the ones that could not be read are left out. */
  read(urls: string[]): Promise<ReadPage[]>;
  /** Web search for the task (runs without URLs). */
  search(query: string): Promise<{ url: string; title?: string }[]>;
  /** Whether the run may pay for `pages` more pages (`maxCredits`). */
  affordable(pages: number): boolean;
  /** Called for every page about to be read (the `action` webhook). */
  onRead(url: string): void;
  /** Whether the run is still wanted (false once it was cancelled, possibly by another process). */
  active(): boolean;
  /** Told what the model chose each round (the trace's reasoning). */
  onDecision?(text: string): void;
  warnings: string[];
  /** Rounds of the model picking more pages at most (v1 deep research's `maxDepth` less the first reading). */
  maxRounds?: number;
  /** Epoch ms after which no more pages are picked (v1 deep research's `timeLimit`). */
  readUntil?: number;
  /** The clock (tests). @default Date.now */
  now?: () => number;
}

/** A link as the run keeps it: absolute http(s), without its fragment; undefined for anything else. */
function pageUrl(link: string): string | undefined {
  try {
    const u = new URL(link);
    if (u.protocol !== "http:" && u.protocol !== "https:") return undefined;
    u.hash = "";
    return u.href;
  } catch {
    return undefined;
  }
}

/** The words of the task a URL or label can share with it (three letters or more, lower case). */
function taskWords(task: string): string[] {
  return [...new Set(task.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [])];
}

/** Reads pages, explores their links with the model; returns the pages read, in reading order. */
export async function explore(o: ExploreOptions): Promise<ReadPage[]> {
  const pages: ReadPage[] = [];
  /** Every URL tried (read or failed): the page budget counts them all. */
  const tried = new Set<string>();
  /** Candidates by URL, in the order they were found. */
  const candidates = new Map<string, Candidate>();
  const words = taskWords(o.task);
  const offer = (url: string, label: string) => {
    const u = pageUrl(url);
    if (!u || tried.has(u)) return;
    const known = candidates.get(u);
    // A link found again with text where it first had none (a card's image link, then its title) gets the text.
    if (known) known.label ||= label;
    else if (candidates.size < MAX_CANDIDATES) candidates.set(u, { url: u, label });
  };
  const readNow = async (urls: string[]) => {
    let allowed = urls.slice(0, o.maxPages - tried.size);
    while (allowed.length > 0 && !o.affordable(allowed.length)) allowed = allowed.slice(0, -1);
    if (allowed.length < urls.length && tried.size + allowed.length < o.maxPages) {
      o.warnings.push(`maxCredits was reached after ${tried.size + allowed.length} pages: the answer is drawn from those.`);
    }
    for (const u of allowed) {
      tried.add(u);
      candidates.delete(u);
      o.onRead(u);
    }
    const got = allowed.length > 0 ? await o.read(allowed) : [];
    pages.push(...got);
    if (!o.strict) {
      for (const p of got) {
        const labels = linkLabels(p.markdown, p.url);
        for (const link of p.links.slice(0, MAX_LINKS_PER_PAGE)) offer(link, labels.get(pageUrl(link) ?? link) ?? "");
      }
    }
    return allowed.length === urls.length;
  };

  let first = o.urls.map(pageUrl).filter((u): u is string => u !== undefined);
  if (first.length === 0) {
    const hits = await o.search(o.task);
    for (const h of hits) offer(h.url, h.title ?? "");
    first = [...candidates.keys()].slice(0, FIRST_SEARCH_READS);
    if (first.length === 0) o.warnings.push("The web search for the task found nothing.");
  }
  let more = await readNow([...new Set(first)]);
  const now = o.now ?? Date.now;
  let rounds = 0;

  while (more && !o.strict && tried.size < o.maxPages && candidates.size > 0 && o.active()) {
    if (o.maxRounds !== undefined && rounds >= o.maxRounds) {
      o.warnings.push(`maxDepth was reached after ${rounds + 1} rounds of reading: the answer is drawn from the ${pages.length} pages read.`);
      break;
    }
    if (o.readUntil !== undefined && now() >= o.readUntil) {
      o.warnings.push(`timeLimit was reached: the answer is drawn from the ${pages.length} pages read.`);
      break;
    }
    rounds++;
    const ranked = [...candidates.values()]
      .map((c, i) => ({ c, i, score: words.filter((w) => `${c.url} ${c.label}`.toLowerCase().includes(w)).length }))
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .slice(0, MAX_CANDIDATES_SHOWN)
      .map((r) => r.c);
    const readText = pages.map((p) => `- ${p.title ?? "(no title)"} (${p.url}): ${p.markdown.replace(/\s+/g, " ").slice(0, READ_PREVIEW_CHARS)}`).join("\n");
    const listed = ranked.map((c, i) => `[${i}] ${c.label ? `${c.label.replace(/\s+/g, " ").slice(0, 120)} ` : ""}${c.url}`).join("\n");
    const most = Math.min(PAGES_PER_ROUND, o.maxPages - tried.size);
    const schema = { type: "object", properties: { read: { type: "array", items: { type: "integer" } }, done: { type: "boolean" } }, required: ["read", "done"] };
    let pick: { read: number[]; done: boolean };
    try {
      pick = (await o.llm.structured(agentNextMessages(o.task, readText, listed, most), schema, o.call(), o.spent)) as typeof pick;
    } catch (err) {
      // The model could not choose (an answer that is no choice, a timeout, an unavailable provider): the pages read
      // still answer what they can, as when a limit stops the reading. A cancelled run stops as it was told.
      if (!(err instanceof CrawlboxError) || !err.code.startsWith("LLM_") || !o.active()) throw err;
      o.warnings.push(`The model could not choose the next pages to read (${err.code}: ${err.message}): the answer is drawn from the ${pages.length} pages read.`);
      break;
    }
    const chosen = [...new Set(pick.read)].filter((n) => Number.isInteger(n) && n >= 0 && n < ranked.length).slice(0, most).map((n) => ranked[n]!.url);
    if (chosen.length === 0) {
      o.onDecision?.(`Done: the ${pages.length} pages read answer the task.`);
      break;
    }
    // `{"read": [1], "done": true}`: the model wants that page and then has enough. It was stopped before reading
    // it, and the answer drawn without the page the model had just asked for.
    o.onDecision?.(`Reading next: ${chosen.join(", ")}${pick.done ? ", then done" : ""}.`);
    more = await readNow(chosen);
    if (pick.done) break;
  }
  return pages;
}
