/**
 * @module monitor/check
 * One check of a monitor: every URL of its scrape targets scraped live with the `changeTracking` format (tag
 * `monitor:<monitor id>:<target id>`, so each monitor and target keeps its own history, apart from the caller's own
 * change tracking), two at a time in the server's scrape slots. A page is `new` (no earlier version), `same`,
 * `changed` (with its git-style diff), `removed` (a 404 or 410) or `error`. With `judgeEnabled`, the model says
 * whether each change matters for the monitor's `goal`. Each page is charged as the scrape it is.
 */
import type { MonitorCrawlTarget, MonitorScrapeTarget, MonitorSearchTarget, MonitorTarget } from "../api/monitor-targets.ts";
import type { ScrapeOptions } from "../api/scrape-options.ts";
import type { KeyIdentity } from "../auth/keys.ts";
import { isErrorAnswerStatus } from "../change-tracking/answer-status.ts";
import { CrawlboxError } from "../errors.ts";
import { leadingWithin } from "../llm/chunk.ts";
import type { LlmClient } from "../llm/client.ts";
import type { LlmMessage } from "../llm/types.ts";
import { monitorJudgeMessages, monitorResultMessages } from "../llm/task-prompts.ts";
import { llmCallForRun, type LlmLimits } from "../llm/render-call.ts";
import { forEachLimited } from "../scrape/each-limited.ts";
import { specFromOptions, type SpecDefaults } from "../scrape/from-options.ts";
import type { ConcurrencyLimiter } from "../scrape/limiter.ts";
import type { ScrapeDocument } from "../scrape/document.ts";
import type { ScrapeService } from "../scrape/service.ts";
import { EMPTY_SUMMARY, type CheckPage, type MonitorSummary } from "./rows.ts";
import { monitorTag } from "./target-ids.ts";

/** Pages of one check scraped at once. */
const PAGES_AT_ONCE = 2;
/** Characters of a page's diff kept with the check (a rewritten page of megabytes would store megabytes per check). */
export const MAX_DIFF_CHARS = 100_000;

/** The judgment's JSON Schema (the SDK's `MonitorPageJudgment`). */
const JUDGMENT_SCHEMA: Record<string, unknown> = {
  type: "object",
  properties: {
    meaningful: { type: "boolean" },
    confidence: { type: "string", enum: ["high", "medium", "low"] },
    reason: { type: "string" },
    meaningfulChanges: {
      type: "array",
      items: {
        type: "object",
        properties: { type: { type: "string", enum: ["added", "removed", "changed"] }, before: { type: ["string", "null"] }, after: { type: ["string", "null"] }, reason: { type: "string" } },
        required: ["type", "before", "after", "reason"],
      },
    },
  },
  required: ["meaningful", "confidence", "reason", "meaningfulChanges"],
};

/** One page of a crawl target's crawl: its document, or why it failed. */
export interface CrawledPage {
  url: string;
  document?: ScrapeDocument;
  error?: string;
}

/** Runs a crawl target's crawl, handing over each page; resolves with the crawl's id (crawl-target.ts). */
export type CrawlRunner = (
  o: { monitorId: string; checkId: string; target: MonitorCrawlTarget; who: KeyIdentity; signal: AbortSignal },
  onPage: (page: CrawledPage) => Promise<void>,
) => Promise<string>;

/** One search of a search target: its results and what it cost (search-target wiring in server/services.ts). */
export type SearchRunner = (
  o: { target: MonitorSearchTarget; query: string; who: KeyIdentity; signal: AbortSignal },
) => Promise<{ results: { url: string; title?: string; description?: string }[]; credits: number }>;

/** What a check needs. */
export interface CheckDeps {
  /** Crawl targets' crawls (undefined: the check has none to run). */
  crawl?: CrawlRunner;
  /** Search targets' searches (undefined: no search backend). */
  searchTarget?: SearchRunner;
  scrape: ScrapeService;
  limiter: ConcurrencyLimiter;
  llm?: LlmClient;
  config: SpecDefaults & LlmLimits;
  newId: () => string;
  now: () => number;
}

/** A check's input. */
export interface CheckInput {
  monitorId: string;
  /** The check's id: the crawls it starts carry it, so that a restart can stop them (jobs/types.ts monitorCheckId). */
  checkId: string;
  who: KeyIdentity;
  targets: MonitorTarget[];
  /** The goal to judge changes against, when `judgeEnabled`. */
  judgeGoal?: string;
  signal: AbortSignal;
  /** Called with each page as it is done, and its place in the targets' order (stored by the caller). */
  onPage(page: CheckPage, index: number): void;
  /** Records the judge's tokens for the key. */
  recordTokens: (tokens: number) => void;
  /**
   * What the monitor's previous check recorded for this page: its status (a page still gone is `same`, not `removed`
   * again) and the latest scrape id of the URL (the `previousScrapeId` of a page that fails: a page scraped names
   * the one it was compared with, {@link CheckInput.comparedScrapeId}).
   */
  previousPage(targetId: string, url: string): { status: CheckPage["status"]; scrapeId?: string } | undefined;
  /**
   * The scrape of an earlier check that changeTracking compared this page's answer with (an `errorAnswer` or not; its
   * document's `previousScrapeAt`, in ms): the page's `previousScrapeId` once it was scraped (monitor/store.ts
   * comparedScrapeId).
   */
  comparedScrapeId(targetId: string, url: string, answer: { errorAnswer: boolean; previousScrapeAt: number }): string | undefined;
}

/** The scrape options of a monitored page: the target's, with `changeTracking` (its own tag) and `markdown`. */
export function monitoredOptions(monitorId: string, target: MonitorScrapeTarget | MonitorCrawlTarget): ScrapeOptions {
  const formats = (target.scrapeOptions.formats ?? []) as { type: string; [k: string]: unknown }[];
  const own = formats.find((f) => f.type === "changeTracking");
  const others = formats.filter((f) => f.type !== "changeTracking");
  if (!others.some((f) => f.type === "markdown")) others.unshift({ type: "markdown" });
  const modes = (own?.modes as string[] | undefined) ?? ["git-diff"];
  const tracking = { ...(own ?? {}), type: "changeTracking", modes: modes.includes("git-diff") ? modes : [...modes, "git-diff"], tag: monitorTag(monitorId, target.id) };
  return { ...target.scrapeOptions, formats: [...others, tracking] } as ScrapeOptions;
}

/** The spec a monitored page is scraped with (also what the capability check sees when the monitor is saved). */
export function monitoredSpec(monitorId: string, target: MonitorScrapeTarget | MonitorCrawlTarget, url: string, defaults: SpecDefaults) {
  return specFromOptions(url, url, monitoredOptions(monitorId, target), {}, defaults);
}

/** What a check found: its summary, what its pages cost, and each crawl target's crawl. */
export interface CheckOutcome {
  summary: MonitorSummary;
  credits: number;
  /** What each crawl or search target did, by target id (the check's `targetResults`). */
  targetResults: Record<string, Record<string, unknown>>;
}

/**
 * Runs one check: the scrape targets' URLs first (two at a time), then each crawl target's crawl (crawl-target.ts).
 * Never throws for a page's failure; throws when the check is aborted.
 */
export async function runCheck(deps: CheckDeps, input: CheckInput): Promise<CheckOutcome> {
  const summary: MonitorSummary = { ...EMPTY_SUMMARY };
  const outcome: CheckOutcome = { summary, credits: 0, targetResults: {} };
  const done = (page: CheckPage, index: number) => {
    outcome.credits += page.credits;
    summary.totalPages++;
    summary[page.status]++;
    input.onPage(page, index);
  };
  const scrapes = input.targets.filter((t): t is MonitorScrapeTarget => t.type === "scrape");
  const work = scrapes.flatMap((target) => target.urls.map((url) => ({ target, url }))).map((w, index) => ({ ...w, index }));
  /** A page of a scrape or crawl target, carrying the previous check's scrape id of its URL even if it fails. */
  const newPage = (targetId: string, url: string) => {
    const previous = input.previousPage(targetId, url);
    const page: CheckPage = { id: deps.newId(), targetId, url, status: "error", credits: 0, createdAt: deps.now() };
    if (previous?.scrapeId) page.previousScrapeId = previous.scrapeId;
    return { page, previous };
  };
  await forEachLimited(work, PAGES_AT_ONCE, input.signal, async ({ target, url, index }) => {
    const { page, previous } = newPage(target.id, url);
    try {
      const spec = monitoredSpec(input.monitorId, target, url, deps.config);
      const doc = await deps.limiter.run(spec.timeoutMs, () => deps.scrape.scrape(spec, input.who, { signal: input.signal }), input.who.keyId);
      await readDocument(deps, input, doc, page, previous);
    } catch (err) {
      if (input.signal.aborted) throw err;
      page.status = "error";
      page.error = err instanceof CrawlboxError ? `${err.code}: ${err.message}` : (err as Error).message;
    }
    done(page, index);
  });
  let index = work.length;
  for (const target of input.targets) {
    if (target.type !== "crawl") continue;
    if (!deps.crawl) throw new TypeError("a crawl target needs the job service");
    const crawlId = await deps.crawl(
      { monitorId: input.monitorId, checkId: input.checkId, target, who: input.who, signal: input.signal },
      async (result) => {
        const { page, previous } = newPage(target.id, result.url);
        if (result.document) await readDocument(deps, input, result.document, page, previous);
        else page.error = result.error ?? "The page could not be scraped.";
        done(page, index++);
      },
    );
    outcome.targetResults[target.id] = { crawlId };
  }
  for (const target of input.targets) {
    if (target.type !== "search") continue;
    const searched = await checkSearchTarget(deps, input, target, (page) => done(page, index++));
    outcome.targetResults[target.id] = searched.result;
    // The searches' credits are the check's (its result pages cost nothing themselves).
    outcome.credits += searched.credits;
  }
  return outcome;
}

/** A page's status, diff and judgment from its scraped document (with the changeTracking format). */
async function readDocument(deps: CheckDeps, input: CheckInput, doc: ScrapeDocument, page: CheckPage, previous: ReturnType<CheckInput["previousPage"]>): Promise<void> {
  const url = page.url;
  page.credits = Number(doc.metadata.creditsUsed ?? 0);
  const tracking = doc.changeTracking as { changeStatus: CheckPage["status"]; previousScrapeAt?: string | null; diff?: { text: string; json: unknown }; json?: unknown } | undefined;
  page.status = tracking?.changeStatus ?? "error";
  if (page.status === "removed" && previous?.status === "removed") page.status = "same";
  page.scrapeId = String(doc.metadata.scrapeId);
  // A monitor whose formats ask for JSON keeps each check's extraction: what the page says now, beside what changed.
  if (doc.json !== undefined && doc.json !== null) page.snapshot = { json: doc.json };
  page.statusCode = doc.metadata.statusCode;
  // The scrape its changeTracking compared with, which `previousScrapeAt` dates: none at a first sight, the last good
  // version for a good answer after an outage (not the latest scrape, an error answer).
  if (tracking) {
    const at = tracking.previousScrapeAt ? Date.parse(tracking.previousScrapeAt) : NaN;
    const compared = Number.isFinite(at) ? input.comparedScrapeId(page.targetId, url, { errorAnswer: isErrorAnswerStatus(page.statusCode ?? 0), previousScrapeAt: at }) : undefined;
    if (compared) page.previousScrapeId = compared;
    else delete page.previousScrapeId;
  }
  if (tracking?.diff) {
    const text = tracking.diff.text;
    // A cut diff keeps its text only: the parsed form would describe the whole of it.
    page.diff = text.length > MAX_DIFF_CHARS ? { text: `${text.slice(0, MAX_DIFF_CHARS)}\n… (diff cut at ${MAX_DIFF_CHARS} of ${text.length} characters)` } : tracking.diff;
  }
  // changeTracking's json mode: the fields that changed, as the SDK's per-field diff (beside the text diff).
  if (tracking?.json !== undefined && page.status === "changed") page.diff = { ...(page.diff ?? {}), json: tracking.json };
  if (!tracking) page.error = "The page was scraped but has no change-tracking result.";
  // A diff with no hunk (its first change alone too long for the diff's bounds: the scrape's warning says so) shows
  // the model nothing to judge.
  if (page.status === "changed" && page.diff?.text && hasHunks(page.diff.text) && input.judgeGoal && deps.llm) {
    const diff = leadingWithin(page.diff.text, deps.llm.chunkChars(JUDGMENT_SCHEMA));
    await judge(deps, deps.llm, input, page, monitorJudgeMessages(input.judgeGoal, url, diff), "change");
  }
}

/** Whether a `diff.text` shows any change: a hunk header, not only `--- previous` and `+++ current`. */
function hasHunks(text: string): boolean {
  return /^@@ /m.test(text);
}

/**
 * Sets the model's judgment of `messages` on `page`; true when it has one. A failure leaves the change or result
 * standing, with the page saying why it has no judgment (a stopped check stops, though).
 */
async function judge(deps: CheckDeps, llm: LlmClient, input: CheckInput, page: CheckPage, messages: LlmMessage[], what: "change" | "result"): Promise<boolean> {
  const run = { deadline: deps.now() + deps.config.llmTimeoutMs, signal: input.signal, recordTokens: input.recordTokens };
  try {
    page.judgment = await llm.structured(messages, JUDGMENT_SCHEMA, llmCallForRun(run, deps.config, deps.now));
    return true;
  } catch (err) {
    if (input.signal.aborted) throw err;
    page.error = `The ${what} could not be judged: ${err instanceof CrawlboxError ? err.code : (err as Error).message}`;
    return false;
  }
}

/**
 * A search target: each query searched (within `searchWindow`, with the domain filters); a result URL the target has
 * not reported before is `new`, one it has is `same`. With a judge, each new result is judged against the goal and
 * counted in `matches`. Nothing is scraped: the cost is the searches'.
 */
async function checkSearchTarget(deps: CheckDeps, input: CheckInput, target: MonitorSearchTarget, done: (page: CheckPage) => void): Promise<{ result: Record<string, unknown>; credits: number }> {
  if (!deps.searchTarget) throw new TypeError("a search target needs the search backend");
  const seen = new Set<string>();
  let searchCredits = 0;
  let matches = 0;
  let judged = 0;
  let fresh = 0;
  for (const query of target.queries) {
    const found = await deps.searchTarget({ target, query, who: input.who, signal: input.signal });
    searchCredits += found.credits;
    for (const r of found.results) {
      if (seen.has(r.url)) continue;
      seen.add(r.url);
      const page: CheckPage = { id: deps.newId(), targetId: target.id, url: r.url, status: input.previousPage(target.id, r.url) ? "same" : "new", credits: 0, createdAt: deps.now() };
      if (page.status === "new") {
        fresh++;
        if (input.judgeGoal && deps.llm) {
          const text = [r.title, r.description, r.url].filter(Boolean).join("\n");
          if (await judge(deps, deps.llm, input, page, monitorResultMessages(input.judgeGoal, query, text), "result")) {
            judged++;
            if ((page.judgment as { meaningful?: boolean }).meaningful) matches++;
          }
        }
      }
      done(page);
    }
  }
  const summary = `${seen.size} results, ${fresh} new${input.judgeGoal ? `, ${matches} matching the goal` : ""}.`;
  return {
    result: { searchCompleted: true, resultCount: seen.size, matches, summary, judgeDegraded: false, degradedReason: null, searchCredits, judgeCredits: 0, resultsJudged: judged },
    credits: searchCredits,
  };
}
