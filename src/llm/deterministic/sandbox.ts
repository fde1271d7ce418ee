/**
 * @module llm/deterministic/sandbox
 * Runs an extractor the LLM wrote (`async function extract(doc, askLlm)`, llm/deterministic/prompt.ts) on a page:
 * in an offline sandbox page of the browser (engines/browser/offline-sandbox.ts), never in crawlbox's process, since
 * the code comes from a model that has read the page and so may have been steered by it. There `doc` is the page's
 * HTML parsed by the browser's `DOMParser` (its scripts do not run), with a `<base>` of the page's URL so that `href`
 * and `src` properties are absolute; `askLlm(prompt, schema?)` is the sandbox's one binding, answered by the
 * configured LLM under the format's deadline and token budget, at most {@link MAX_ASK_LLM_CALLS} times a run. What
 * `extract` returns comes back as JSON, at most {@link MAX_RESULT_CHARS} characters.
 */
import type { BrowserPool } from "../../engines/browser/pool.ts";
import { acquireOfflineSandbox } from "../../engines/browser/offline-sandbox.ts";
import { raceAbort } from "../../scheduler/abortable.ts";

/** The binding's name in the sandbox page. */
const BINDING = "__crawlboxAskLlm";
/** Longest one run may take, page included (the scrape's own deadline may end it sooner). */
export const EXTRACTOR_RUN_MS = 30_000;
/** `askLlm` calls one run may make. */
export const MAX_ASK_LLM_CALLS = 20;
/** Longest result (as JSON) a run may return. */
export const MAX_RESULT_CHARS = 5_000_000;
/** Longest prompt one `askLlm` call may send (it is cut there). */
export const MAX_ASK_PROMPT_CHARS = 200_000;

/** Answers the extractor's `askLlm`: free text without a schema, a value of the schema's shape with one. */
export type AskLlm = (prompt: string, schema: Record<string, unknown> | undefined) => Promise<unknown>;

/** Why a run failed, in words fit for the model's next attempt and for the client's warning. */
export class ExtractorRunError extends Error {}

/** The program evaluated in the sandbox: parses the page, defines `askLlm`, runs `code`, returns JSON or an error. */
function program(code: string): string {
  return `(async (html, url) => {
  const call = globalThis[${JSON.stringify(BINDING)}];
  const doc = new DOMParser().parseFromString(html, "text/html");
  if (url && !doc.querySelector("base[href]")) { const b = doc.createElement("base"); b.setAttribute("href", url); doc.head.prepend(b); }
  const askLlm = async (prompt, schema) => call({ p: String(prompt), s: schema && typeof schema === "object" ? schema : null });
  try {
${code}
    const value = await extract(doc, askLlm);
    if (value === undefined) return { ok: false, error: "extract returned undefined" };
    const text = JSON.stringify(value);
    if (text === undefined) return { ok: false, error: "extract returned a value that is not JSON" };
    if (text.length > ${MAX_RESULT_CHARS}) return { ok: false, error: "extract returned more than ${MAX_RESULT_CHARS} characters of JSON" };
    return { ok: true, json: text };
  } catch (e) {
    return { ok: false, error: String(e && e.message !== undefined ? e.message : e).slice(0, 2000) };
  }
})`;
}

/** Runs `code` on `html` (served from `url`); resolves to its result, or throws {@link ExtractorRunError}. */
export async function runExtractor(o: { pool: BrowserPool; code: string; html: string; url: string; askLlm: AskLlm; deadline: number; signal?: AbortSignal }): Promise<unknown> {
  const left = Math.min(EXTRACTOR_RUN_MS, o.deadline - Date.now());
  if (left <= 0) throw new ExtractorRunError("no time was left to run the extractor");
  const timer = AbortSignal.timeout(left);
  const until = o.signal ? AbortSignal.any([o.signal, timer]) : timer;
  const sandbox = await acquireOfflineSandbox(o.pool, performance.now() + left, until);
  let calls = 0;
  try {
    await sandbox.page.exposeFunction(BINDING, async (req: { p?: unknown; s?: unknown }) => {
      if (++calls > MAX_ASK_LLM_CALLS) throw new Error(`askLlm may be called at most ${MAX_ASK_LLM_CALLS} times`);
      const prompt = typeof req?.p === "string" ? req.p.slice(0, MAX_ASK_PROMPT_CHARS) : "";
      const schema = req?.s && typeof req.s === "object" && !Array.isArray(req.s) ? (req.s as Record<string, unknown>) : undefined;
      try {
        return await o.askLlm(prompt, schema);
      } catch (e) {
        // The extractor gets the reason, not the server's stack.
        const thrown = new Error(`askLlm failed: ${(e as Error).message ?? String(e)}`.slice(0, 1000));
        thrown.stack = `Error: ${thrown.message}`;
        throw thrown;
      }
    });
    const ran = (await raceAbort(sandbox.page.evaluate((source: string, html: string, url: string) => (0, eval)(source)(html, url), program(o.code), o.html, o.url), until).catch((e: unknown) => {
      if (o.signal?.aborted) throw e;
      if (timer.aborted) throw new ExtractorRunError(`the extractor did not finish within ${Math.round(left / 1000)} s`);
      // The code could not be parsed (or the sandbox failed): the browser's first line.
      return { ok: false, error: String((e as Error).message ?? e).split("\n")[0]!.slice(0, 1000) };
    })) as { ok?: boolean; json?: unknown; error?: unknown };
    if (!ran.ok || typeof ran.json !== "string") throw new ExtractorRunError(typeof ran.error === "string" ? ran.error : "the extractor failed");
    return JSON.parse(ran.json);
  } finally {
    sandbox.release({ suspect: until.aborted });
  }
}
