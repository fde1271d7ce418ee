/**
 * @module agent/service
 * `/v2/agent` (api-v2.md §2.9): an asynchronous research run. The configured LLM decides which pages to read
 * (agent/explore.ts: the caller's URLs, or a web search for the prompt, then the links it chooses), and answers
 * from them (agent/answer.ts): JSON, against the request's `schema` when it has one (`mode: "extract"`, the
 * default), or text (`mode: "chat"`). Runs of one conversation share a thread: a run given a `threadId` sees the
 * earlier turns. `effort` sets how many pages a run may read, `maxCredits` what it may spend.
 *
 * The run's row is written before the answer (nothing accepted is lost: `crawlbox serve` runs unfinished runs
 * again at start); webhooks announce `agent.started`, an `agent.action` per page tried, then `agent.completed`,
 * `agent.failed` or `agent.cancelled`. Cost: each page as a scrape, the search as a search; tokens as token usage.
 */
import type { Database } from "bun:sqlite";
import type { AgentRequest } from "../api/agent.ts";
import { parseSearchBody } from "../api/search.ts";
import type { KeyIdentity, KeyStore } from "../auth/keys.ts";
import { BadRequestError, TooManyRequestsError } from "../errors.ts";
import { readPages, type PageReaderDeps } from "../extract/read-pages.ts";
import { RunQueue } from "../extract/run-queue.ts";
import { JobCredits } from "../extract/job-credits.ts";
import type { LlmClient } from "../llm/client.ts";
import { LlmNotConfiguredError } from "../llm/errors.ts";
import { JOB_LLM_RETRY } from "../llm/retry.ts";
import { assertRequestSchema } from "../llm/schema.ts";
import type { Logger } from "../log.ts";
import type { SearchService } from "../search/service.ts";
import { immediate } from "../storage/database.ts";
import { enqueueWebhookEvent } from "../webhooks/index.ts";
import { answer, threadHistory } from "./answer.ts";
import { AgentAttemptsSpentError, AgentNoPagesError, AgentThreadBusyError, AgentThreadNotFoundError } from "./errors.ts";
import { TraceRecorder } from "./trace.ts";
import { CANCELLED_TRACE_ERROR, traceErrorOf } from "./trace-error.ts";
import { AGENT_MIN_CREDITS, EFFORT_PAGES, MAX_AGENT_RUNS_PER_KEY, MAX_AGENT_URLS, MAX_ATTEMPTS, PAGES_AT_ONCE, RUNS_AT_ONCE, SEARCH_CREDITS, SEARCH_RESULTS } from "./limits.ts";
import { explore } from "./explore.ts";
import { OwnerGuard } from "../extract/owner-guard.ts";
import type { AgentEnd, AgentJob, AgentStore } from "./store.ts";

/** Dependencies of {@link AgentService}. */
export interface AgentServiceDeps extends PageReaderDeps {
  db: Database;
  store: AgentStore;
  /** Undefined when no LLM is configured: the agent is then a 400. */
  llm?: LlmClient;
  /** A run goes on under its key's current quota, and stops once the key is revoked (extract/owner-guard.ts). */
  keys: Pick<KeyStore, "identityOf" | "isActive">;
  search: SearchService;
  canSearch: boolean;
  config: PageReaderDeps["config"] & { llmTimeoutMs: number; llmTokenBudget: number; authEnabled: boolean };
  kickWebhooks: () => void;
  log: Pick<Logger, "warn">;
  now?: () => number;
  newId?: () => string;
}

/** Runs agent jobs. */
export class AgentService {
  private readonly now: () => number;
  private readonly newId: () => string;
  private readonly queue: RunQueue;
  /** This process, as the owner of the runs it executes (store claim and finish). */
  private readonly owner = crypto.randomUUID();

  constructor(private readonly deps: AgentServiceDeps) {
    this.now = deps.now ?? Date.now;
    this.newId = deps.newId ?? (() => crypto.randomUUID());
    this.queue = new RunQueue(RUNS_AT_ONCE, (id, signal) => this.run(id, signal), (id, err) => deps.log.warn("agent run could not be recorded", { id, error: String(err) }));
  }

  /** Accepts a run for `who` and starts it; throws the 4xx a client would get before anything is stored. */
  start(req: AgentRequest, who: KeyIdentity): { success: true; id: string; threadId: string; threadTurn: number } {
    // Named by what it is, not by a route: /v1/deep-research (a run with `research` limits) reaches this too.
    if (!this.deps.llm) throw new LlmNotConfiguredError(req.research ? "Deep research" : "The agent");
    const urls = req.urls ?? [];
    if (urls.length === 0 && req.strictConstrainToURLs) throw new BadRequestError("strictConstrainToURLs needs urls: the agent may read only the URLs given.");
    if (urls.length === 0 && !this.deps.canSearch) {
      throw new BadRequestError("An agent without urls searches the web for its prompt, which needs a search backend: set SEARXNG_ENDPOINT (docs/search.md), or give urls.");
    }
    assertRequestSchema(req.schema);
    // A prompt or schema that leaves the model no room for page content is a 400 now, not a run failing later.
    this.deps.llm.chunkChars(req.schema, { prompt: req.prompt, callerSchema: true });
    // A run without URLs pays for its search before it reads anything: a cap below that could buy no page at all.
    if (urls.length === 0 && req.maxCredits !== undefined && req.maxCredits < SEARCH_CREDITS + 1) {
      throw new BadRequestError(`maxCredits ${req.maxCredits} cannot pay for the web search (${SEARCH_CREDITS} credits) and one page; give urls or raise it.`);
    }
    // With urls the first page is the least a run reads: a cap below it was accepted, then failed having read nothing.
    if (urls.length > 0 && req.maxCredits !== undefined && req.maxCredits < 1) {
      throw new BadRequestError(`maxCredits ${req.maxCredits} cannot pay for one page (1 credit); raise it to at least 1.`);
    }
    this.deps.ledger.assertCanSpend(who, Math.min(AGENT_MIN_CREDITS, req.maxCredits ?? AGENT_MIN_CREDITS));
    const id = this.newId();
    let threadId = req.threadId ?? this.newId();
    let turn = 1;
    immediate(this.deps.db, () => {
      // Counted in the transaction that stores the run: parallel requests cannot both pass at the limit.
      if (this.deps.store.processingCount(who.keyId) >= MAX_AGENT_RUNS_PER_KEY) {
        throw new TooManyRequestsError("TOO_MANY_AGENT_RUNS", `This key already has ${MAX_AGENT_RUNS_PER_KEY} agent runs processing; wait for one to finish.`);
      }
      if (req.threadId) {
        const runs = this.deps.store.thread(req.threadId, this.now());
        if (runs.length === 0 || runs[0]!.keyId !== who.keyId) throw new AgentThreadNotFoundError();
        const busy = runs.find((r) => r.status === "processing");
        if (busy) throw new AgentThreadBusyError(busy.id);
        threadId = req.threadId;
        turn = this.deps.store.nextTurn(threadId);
      }
      this.deps.store.create({ id, keyId: who.keyId, threadId, turn, request: req }, this.now());
      this.announce(id, who.keyId, req, "started", true, []);
    });
    this.deps.kickWebhooks();
    this.queue.schedule(id);
    return { success: true, id, threadId, threadTurn: turn };
  }

  /** The run `id` of `keyId`, or undefined (unknown, expired, another key's). */
  get(id: string, keyId: string): AgentJob | undefined {
    const job = this.deps.store.get(id, this.now());
    return job && job.keyId === keyId ? job : undefined;
  }

  /** `keyId`'s runs created before `before`, newest first. */
  list(keyId: string, before: number, limit: number): AgentJob[] {
    return this.deps.store.list(keyId, before, limit, this.now());
  }

  /** A thread's runs, when it is `keyId`'s. */
  thread(threadId: string, keyId: string): AgentJob[] | undefined {
    const runs = this.deps.store.thread(threadId, this.now());
    return runs.length > 0 && runs[0]!.keyId === keyId ? runs : undefined;
  }

  /**
   * Cancels a processing run (its pages stop, nothing more is charged); undefined for an unknown run, false for
   * one that has already ended.
   */
  cancel(id: string, keyId: string): boolean | undefined {
    const job = this.get(id, keyId);
    if (!job) return undefined;
    let cancelled = false;
    immediate(this.deps.db, () => {
      cancelled = this.deps.store.cancel(id, keyId, this.now());
      // With an error, as a cancelled crawl's event (api-v2.md §4): a receiver reads why `success` is false.
      if (cancelled) this.announce(id, keyId, job.request, "cancelled", false, [], "The agent run was cancelled.");
    });
    if (!cancelled) return false;
    const trace = new TraceRecorder(this.deps.db, id, this.now);
    trace.cancelRequested();
    trace.runFinished("cancelled", CANCELLED_TRACE_ERROR);
    this.queue.abort(id, new Error("cancelled"));
    this.deps.kickWebhooks();
    return true;
  }

  /** At `crawlbox serve` start: runs again what a stopped process left unfinished. Returns how many. */
  resumeAbandoned(): number {
    const jobs = this.deps.store.processing();
    for (const job of jobs) this.queue.schedule(job.id);
    return jobs.length;
  }

  /**
   * Stops running runs and refuses new ones. The runs stay `processing`, resumed by the next start, and are released
   * with their attempt given back (AgentStore.releaseOwned): a graceful stop is not one of the MAX_ATTEMPTS a run may
   * be interrupted. Done here, before the server closes the database, not in each run's abort handler.
   */
  async close(): Promise<void> {
    this.queue.close();
    try {
      this.deps.store.releaseOwned(this.owner, this.now());
    } catch (err) {
      // The runs keep the attempt (as after a crash); the stop goes on.
      this.deps.log.warn("agent runs could not be released at shutdown", { error: String(err) });
    }
  }

  private announce(id: string, keyId: string, req: AgentRequest, event: "started" | "action" | "completed" | "failed" | "cancelled", success: boolean, data: unknown[], error?: string) {
    if (!req.webhook) return;
    enqueueWebhookEvent(this.deps.db, { jobId: id, keyId, jobKind: "agent", event, success, data, webhook: req.webhook, ...(error ? { error } : {}) }, { now: this.now() });
  }

  /**
   * Records the end of a run and announces it (once: not when the run was cancelled or taken over meanwhile). A failed
   * run's `cause` (its typed error) sets the trace's error (agent/trace-error.ts).
   */
  private end(job: AgentJob, outcome: AgentEnd, cause?: unknown): void {
    immediate(this.deps.db, () => {
      if (!this.deps.store.finish(job.id, this.owner, outcome, this.now())) return;
      const trace = new TraceRecorder(this.deps.db, job.id, this.now);
      if (outcome.status === "completed") trace.artifact(outcome.message !== undefined ? "markdown" : "json", outcome.message ?? JSON.stringify(outcome.data));
      trace.runFinished(outcome.status === "completed" ? "succeeded" : "failed", outcome.status === "failed" ? traceErrorOf(cause ?? outcome.error) : null);
      const data = outcome.status === "completed" ? [outcome.message !== undefined ? { message: outcome.message } : outcome.data] : [];
      this.announce(job.id, job.keyId, job.request, outcome.status, outcome.status === "completed", data, outcome.error);
    });
    this.deps.kickWebhooks();
  }

  private async run(id: string, signal: AbortSignal): Promise<void> {
    const job = this.deps.store.get(id, this.now());
    if (!job || job.status !== "processing") return;
    const attempts = this.deps.store.claim(id, this.owner, this.now());
    if (attempts === undefined) return;
    if (attempts > MAX_ATTEMPTS) {
      const gaveUp = new AgentAttemptsSpentError(MAX_ATTEMPTS);
      return this.end(job, { status: "failed", error: gaveUp.message, tokens: job.tokens, credits: job.credits }, gaveUp);
    }
    const req = job.request;
    const who = this.deps.keys.identityOf(job.keyId);
    const warnings: string[] = [];
    let tokens = 0;
    const credits = JobCredits.forJob(this.deps.db, this.deps.store, this.deps.ledger, who, job, this.owner);
    // A key revoked while the run goes on or waits (or gone from CRAWLBOX_API_KEYS at a restart) fails it before its
    // next page, charge, search or model round; `run` stops with the run's own signal (a cancel, a shutdown) too.
    const guard = new OwnerGuard(this.deps, job.keyId, signal, credits);
    const run = guard.signal;
    const urls = (req.urls ?? []).slice(0, MAX_AGENT_URLS);
    if ((req.urls?.length ?? 0) > MAX_AGENT_URLS) warnings.push(`Only the first ${MAX_AGENT_URLS} of the ${req.urls!.length} URLs were read.`);
    const maxPages = Math.max(EFFORT_PAGES[req.effort ?? "medium"], urls.length);
    // Every model call of the run (each pick, the answer) gets the configured LLM timeout; together they may spend
    // the per-page token budget for every page the run may read, and one more for the picks.
    const spent = { tokens: 0 };
    const callNow = () => ({
      signal: run,
      deadline: this.now() + this.deps.config.llmTimeoutMs,
      limitMs: this.deps.config.llmTimeoutMs,
      // A transient 429/503 of the model is waited out (llm/retry.ts), not the run's end: its pages are read and paid.
      retry: JOB_LLM_RETRY,
      warnings,
      tokenBudget: this.deps.config.llmTokenBudget * (maxPages + 1),
      onTokens: (t: number) => {
        tokens += t;
        this.deps.ledger.charge(who, 0, t);
      },
    });
    // Cancelled (here or by another process) or taken over: stop before the next round, and before the answer.
    // A revoked key throws here (KeyRevokedError), ending the run as failed rather than as cancelled.
    const active = () => {
      guard.check();
      return !signal.aborted && this.deps.store.get(id, this.now())?.status === "processing";
    };
    const trace = new TraceRecorder(this.deps.db, id, this.now);
    // Once per run: an attempt given back at a graceful stop makes a resumed run's `attempts` 1 again.
    if (!this.deps.store.hasTrace(id)) trace.runStarted();
    trace.progress("planning", urls.length > 0 ? `Reading the ${urls.length} URL(s) given${req.strictConstrainToURLs ? ", and only those" : ", then the links that help"}.` : "Searching the web for the task.");
    /** Reads pages, each a traced `scrape` tool call. */
    const read = async (batch: string[]) => {
      const calls = batch.map((url) => trace.toolStarted("scrape", { url }));
      const got = await readPages(this.deps, batch, { who, signal: run, charge: guard.charge, warnings, concurrency: PAGES_AT_ONCE, beforePage: guard.check, collectLinks: req.strictConstrainToURLs !== true });
      batch.forEach((url, i) => {
        const p = got.find((g) => g.url === url);
        trace.toolFinished(calls[i]!, "scrape", p ? { url, title: p.title ?? null, characters: p.markdown.length, links: p.links.length } : { url, error: "The page could not be read (see the run's warning)." });
      });
      return got;
    };
    try {
      guard.check();
      const pages = await explore({
        llm: this.deps.llm!,
        call: callNow,
        spent,
        task: req.prompt,
        urls,
        strict: req.strictConstrainToURLs === true,
        maxPages,
        read,
        search: async (query) => {
          guard.check();
          const call = trace.toolStarted("search", { query: query.slice(0, 500), limit: SEARCH_RESULTS });
          const found = await this.deps.search.search(parseSearchBody({ query: query.slice(0, 500), limit: SEARCH_RESULTS, origin: "agent" }), who, { signal: run, chargeCredits: false });
          guard.charge(found.creditsUsed);
          const hits = (found.data.web ?? []).map((r) => ({ url: String(r.url), ...(typeof r.title === "string" ? { title: r.title } : {}) }));
          trace.toolFinished(call, "search", { results: hits.map((h) => h.url) });
          return hits;
        },
        onDecision: (text) => trace.reasoning(text),
        affordable: (n) => req.maxCredits === undefined || credits.spent + n <= req.maxCredits,
        onRead: (url) => {
          immediate(this.deps.db, () => this.announce(id, job.keyId, req, "action", true, [{ action: "scrape", url }]));
          // Sent now, not at the dispatcher's next poll (up to a second later).
          this.deps.kickWebhooks();
        },
        active,
        warnings,
        ...(req.research ? { maxRounds: req.research.maxDepth - 1, readUntil: job.createdAt + req.research.timeLimitMs, now: this.now } : {}),
      });
      if (!active()) return;
      if (pages.length === 0) throw new AgentNoPagesError();
      trace.progress("finalizing", `Answering from ${pages.length} page(s).`);
      const earlier = this.deps.store.thread(job.threadId, this.now()).filter((r) => r.turn < job.turn);
      const result = await answer(this.deps.llm!, { mode: req.mode ?? "extract", task: req.prompt, ...(req.schema ? { schema: req.schema } : {}), history: threadHistory(earlier), pages, warnings }, callNow(), spent);
      this.end(job, { status: "completed", ...result, sources: pages.map((p) => p.url), ...(warnings.length ? { warning: warnings.join(" ") } : {}), tokens, credits: credits.total });
    } catch (err) {
      if (signal.aborted && this.queue.closed) return; // stopping: the run stays processing and is resumed at the next start
      this.end(job, { status: "failed", error: guard.failureMessage(err), ...(warnings.length ? { warning: warnings.join(" ") } : {}), tokens, credits: credits.total }, guard.failure(err));
    }
  }
}
