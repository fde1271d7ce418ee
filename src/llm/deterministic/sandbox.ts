/**
 * @module llm/deterministic/sandbox
 * Runs an extractor the LLM wrote (`async function extract(doc, askLlm)`, llm/deterministic/prompt.ts) on a page:
 * in an offline sandbox page of the browser (engines/browser/offline-sandbox.ts), never in crawlbox's process, since
 * the code comes from a model that has read the page and so may have been steered by it. There `doc` is the page's
 * HTML parsed by the browser's `DOMParser` (its scripts do not run), with a `<base>` of the page's resolved URL so
 * that `href` and `src` properties are absolute.
 *
 * Nothing the code does can send crawlbox more than crawlbox reads (interact/sandbox/channel.ts): `askLlm` goes
 * through crawlbox's isolated world of the page, bounded there ({@link MAX_ASK_PROMPT_CHARS} of prompt, a small
 * schema, {@link MAX_ASK_LLM_CALLS} calls a run), and is answered one call at a time. The result is read there too,
 * at most {@link MAX_RESULT_CHARS} characters, then checked to nest no deeper than {@link MAX_RESULT_DEPTH} levels.
 */
import type { BrowserPool } from "../../engines/browser/pool.ts";
import { acquireOfflineSandbox } from "../../engines/browser/offline-sandbox.ts";
import { openChannel, startInPage, waitOutcome, CHANNEL_CLIENT, type Channel } from "../../interact/sandbox/channel.ts";
import { raceAbort } from "../../scheduler/abortable.ts";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "../schema.ts";
import { ASK_SCHEMA_MAX_CHARS, checkAskSchema } from "./ask-schema.ts";

/** Longest one run may take, page included (the scrape's own deadline may end it sooner). */
export const EXTRACTOR_RUN_MS = 30_000;
/** `askLlm` calls one run may make. */
export const MAX_ASK_LLM_CALLS = 20;
/** Longest result (as JSON) a run may return. */
export const MAX_RESULT_CHARS = 5_000_000;
/** Deepest nesting of a result (arrays and objects). */
export const MAX_RESULT_DEPTH = MAX_JSON_DEPTH;
/** Longest prompt one `askLlm` call may send (it is cut there, in the code's world). */
export const MAX_ASK_PROMPT_CHARS = 200_000;
/** Longest error message of a run kept (it goes to the model's next attempt and to the client's warning). */
const MAX_ERROR_CHARS = 2_000;

/** Answers the extractor's `askLlm`: free text without a schema, a value of the schema's shape (or null) with one. */
export type AskLlm = (prompt: string, schema: Record<string, unknown> | undefined, signal: AbortSignal) => Promise<unknown>;

/** Why a run failed, in words fit for the model's next attempt and for the client's warning. */
export class ExtractorRunError extends Error {}

/**
 * The wrapper, in the sandbox page's own world: evaluates the code (a string) as a function expression, runs it, and
 * leaves the outcome in the document. It answers nothing itself.
 */
const WRAPPER = `async function (source, html, url) {
  const root = document.documentElement;
  root.setAttribute("data-cb-run", "1");
  await null;
  const send = ${CHANNEL_CLIENT}.send;
  const askLlm = (prompt, schema) => send({ p: String(prompt).slice(0, ${MAX_ASK_PROMPT_CHARS}), s: schema && typeof schema === "object" ? schema : null });
  try {
    const doc = new DOMParser().parseFromString(html, "text/html");
    for (const b of doc.querySelectorAll("base")) b.remove();
    const base = doc.createElement("base");
    base.setAttribute("href", url);
    doc.head.prepend(base);
    const extract = (0, eval)("(" + source + "\\n)");
    if (typeof extract !== "function") throw new Error("the code is not one function: async function extract(doc, askLlm) { ... }");
    const value = await extract(doc, askLlm);
    if (value === undefined) throw new Error("extract returned undefined");
    const text = JSON.stringify(value);
    if (typeof text !== "string") throw new Error("extract returned a value that is not JSON");
    root.setAttribute("data-cb-result", text);
  } catch (e) {
    root.setAttribute("data-cb-error", String(e && e.message !== undefined ? e.message : e).slice(0, ${MAX_ERROR_CHARS}));
  }
}`;

/** Runs `code` on `html` (served from `url`); resolves to its result, or throws {@link ExtractorRunError}. */
export async function runExtractor(o: { pool: BrowserPool; code: string; html: string; url: string; askLlm: AskLlm; deadline: number; signal?: AbortSignal }): Promise<unknown> {
  const left = Math.min(EXTRACTOR_RUN_MS, o.deadline - Date.now());
  if (left <= 0) throw new ExtractorRunError("no time was left to run the extractor");
  const timer = AbortSignal.timeout(left);
  const until = o.signal ? AbortSignal.any([o.signal, timer]) : timer;
  const sandbox = await acquireOfflineSandbox(o.pool, performance.now() + left, until);
  const session = sandbox.session;
  /** Its waits end too when the page crashes (an extractor over the page memory limit, page-crash.ts). */
  const live = AbortSignal.any([until, sandbox.crashed]);
  /** Ends with the run: `askLlm` calls still running stop (and are not billed further). */
  const ended = new AbortController();
  let channel: Channel | undefined;
  // One call at a time: the token budget is checked before each, against what the earlier ones spent.
  let asking: Promise<unknown> = Promise.resolve();
  const ask = (req: unknown) => {
    const r = (req ?? {}) as { p?: unknown; s?: unknown };
    const next = asking.then(async () => {
      const schema = r.s && typeof r.s === "object" ? checkAskSchema(r.s) : undefined;
      return o.askLlm(typeof r.p === "string" ? r.p : "", schema, AbortSignal.any([until, ended.signal]));
    });
    asking = next.catch(() => undefined);
    return next.catch((err: unknown) => {
      throw new Error(`askLlm failed: ${(err as Error).message ?? String(err)}`);
    });
  };
  try {
    channel = await raceAbort(openChannel(session, { maxRequestChars: MAX_ASK_PROMPT_CHARS + ASK_SCHEMA_MAX_CHARS + 100, maxCalls: MAX_ASK_LLM_CALLS, maxTotalChars: 20_000_000, maxPending: MAX_ASK_LLM_CALLS }, ask), live);
    await raceAbort(startInPage(session, WRAPPER, [o.code, o.html, o.url]), live);
    const out = await waitOutcome(session, MAX_RESULT_CHARS, live);
    if (out.result === undefined) throw new ExtractorRunError(out.error ?? "the extractor did not finish");
    if ((out.resultChars ?? 0) > MAX_RESULT_CHARS) throw new ExtractorRunError(`extract returned ${out.resultChars} characters of JSON, over the ${MAX_RESULT_CHARS} allowed`);
    let value: unknown;
    try {
      value = JSON.parse(out.result);
    } catch {
      throw new ExtractorRunError("extract's result could not be read as JSON");
    }
    if (nestedDeeperThan(value, MAX_RESULT_DEPTH)) throw new ExtractorRunError(`extract returned a value nested deeper than ${MAX_RESULT_DEPTH} levels`);
    return value;
  } catch (e) {
    if (o.signal?.aborted) throw e;
    if (timer.aborted) throw new ExtractorRunError(`the extractor did not finish within ${Math.round(left / 1000)} s`);
    if (sandbox.crashed.aborted) throw new ExtractorRunError((sandbox.crashed.reason as Error).message);
    if (e instanceof ExtractorRunError) throw e;
    throw new ExtractorRunError(String((e as Error).message ?? e).split("\n")[0]!.slice(0, 500));
  } finally {
    ended.abort();
    channel?.close();
    sandbox.release({ suspect: until.aborted });
  }
}
