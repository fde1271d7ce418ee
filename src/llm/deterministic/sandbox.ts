/**
 * @module llm/deterministic/sandbox
 * Runs an extractor the LLM wrote (`async function extract(doc, askLlm)`, llm/deterministic/prompt.ts) on a page:
 * in an offline sandbox page of the browser (engines/browser/offline-sandbox.ts), never in crawlbox's process, since
 * the code comes from a model that has read the page and so may have been steered by it. There `doc` is the page's
 * HTML parsed by the browser's `DOMParser` (its scripts do not run), with a `<base>` of the page's URL so that `href`
 * and `src` properties are absolute.
 *
 * Nothing the code does can send crawlbox more than crawlbox reads. The code gets no binding: `askLlm` writes its
 * request into the sandbox document and signals crawlbox's isolated world of the page (interact/isolated-world.ts),
 * which shares the DOM but not the code's JavaScript, and which alone can call crawlbox; it reads each request with
 * bounds of its own ({@link MAX_ASK_PROMPT_CHARS}, a small schema), at most {@link MAX_ASK_LLM_CALLS} a run, one at a
 * time. The result is left in the document the same way and read there, at most {@link MAX_RESULT_CHARS} characters
 * and {@link MAX_RESULT_DEPTH} levels deep. The code itself is passed as a string and evaluated inside crawlbox's
 * wrapper, whose own value is all the browser answers the run with.
 */
import type { BrowserPool } from "../../engines/browser/pool.ts";
import { acquireOfflineSandbox } from "../../engines/browser/offline-sandbox.ts";
import { inWorld } from "../../interact/isolated-world.ts";
import { raceAbort } from "../../scheduler/abortable.ts";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "../schema.ts";
import { ASK_SCHEMA_MAX_CHARS, checkAskSchema } from "./ask-schema.ts";

/** The binding's name, in crawlbox's isolated world only. */
const BINDING = "__crawlboxAskLlm";
/** Longest one run may take, page included (the scrape's own deadline may end it sooner). */
export const EXTRACTOR_RUN_MS = 30_000;
/** `askLlm` calls one run may make. */
export const MAX_ASK_LLM_CALLS = 20;
/** Longest result (as JSON) a run may return. */
export const MAX_RESULT_CHARS = 5_000_000;
/** Deepest nesting of a result (arrays and objects). */
export const MAX_RESULT_DEPTH = MAX_JSON_DEPTH;
/** Longest prompt one `askLlm` call may send (it is cut there). */
export const MAX_ASK_PROMPT_CHARS = 200_000;
/** Longest error message of a run kept (it goes to the model's next attempt and to the client's warning). */
const MAX_ERROR_CHARS = 2_000;

/** Answers the extractor's `askLlm`: free text without a schema, a value of the schema's shape (or null) with one. */
export type AskLlm = (prompt: string, schema: Record<string, unknown> | undefined, signal: AbortSignal) => Promise<unknown>;

/** Why a run failed, in words fit for the model's next attempt and for the client's warning. */
export class ExtractorRunError extends Error {}

/** Set up in crawlbox's isolated world: forwards the code's `askLlm` requests, bounded, and hands back answers. */
const WORLD_PROGRAM = `(() => {
  if (globalThis.__crawlboxAsk) return;
  const root = () => document.documentElement;
  let calls = 0;
  const answer = (id, reply) => { root().setAttribute("data-cb-answer-" + id, JSON.stringify(reply)); document.dispatchEvent(new Event("crawlbox-answer-" + id)); };
  globalThis.__crawlboxAsk = answer;
  document.addEventListener("crawlbox-ask", () => {
    for (const name of root().getAttributeNames()) {
      if (!name.startsWith("data-cb-ask-")) continue;
      const id = name.slice(12, 30);
      const raw = root().getAttribute(name) || "";
      root().removeAttribute(name);
      if (++calls > ${MAX_ASK_LLM_CALLS}) { answer(id, { e: "askLlm may be called at most ${MAX_ASK_LLM_CALLS} times" }); continue; }
      let req = null;
      try { req = raw.length <= ${MAX_ASK_PROMPT_CHARS * 2 + ASK_SCHEMA_MAX_CHARS} ? JSON.parse(raw) : null; } catch (e) { req = null; }
      if (!req || typeof req !== "object") { answer(id, { e: "askLlm's request is too large (prompts are cut at ${MAX_ASK_PROMPT_CHARS} characters)" }); continue; }
      const p = typeof req.p === "string" ? req.p.slice(0, ${MAX_ASK_PROMPT_CHARS}) : "";
      const s = req.s && typeof req.s === "object" ? JSON.stringify(req.s) : "";
      if (s.length > ${ASK_SCHEMA_MAX_CHARS}) { answer(id, { e: "askLlm's schema is larger than ${ASK_SCHEMA_MAX_CHARS} characters" }); continue; }
      globalThis.${BINDING}(JSON.stringify({ id: id, p: p, s: s }));
    }
  });
})()`;

/** Reads the run's outcome in the isolated world, bounded there before it crosses. */
const READ_OUTCOME = `(() => {
  const r = document.documentElement.getAttribute("data-cb-result");
  const e = document.documentElement.getAttribute("data-cb-error");
  if (r !== null) return r.length > ${MAX_RESULT_CHARS} ? { tooLong: r.length } : { json: r };
  return { error: e === null ? "the extractor did not finish" : e.slice(0, ${MAX_ERROR_CHARS}) };
})()`;

/**
 * The wrapper, in the sandbox page's own world: evaluates the code (a string) as a function expression, runs it, and
 * leaves the outcome in the document. It answers nothing itself (its promise resolves to undefined).
 */
const WRAPPER = `async function (source, html, url) {
  const root = document.documentElement;
  let n = 0;
  const askLlm = (prompt, schema) => new Promise((resolve, reject) => {
    const id = String(++n);
    document.addEventListener("crawlbox-answer-" + id, () => {
      const raw = root.getAttribute("data-cb-answer-" + id);
      root.removeAttribute("data-cb-answer-" + id);
      let reply = null;
      try { reply = JSON.parse(raw); } catch (e) { reply = { e: "askLlm's answer could not be read" }; }
      if (reply && typeof reply.e === "string") reject(new Error(reply.e)); else resolve(reply ? reply.v : null);
    }, { once: true });
    root.setAttribute("data-cb-ask-" + id, JSON.stringify({ p: String(prompt), s: schema && typeof schema === "object" ? schema : null }));
    document.dispatchEvent(new Event("crawlbox-ask"));
  });
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
  /** Ends with the run: answers still being written stop (and are not billed further). */
  const ended = new AbortController();
  let asking = Promise.resolve();
  const onBinding = (e: { name: string; payload: string }) => {
    if (e.name !== BINDING || ended.signal.aborted) return;
    // Bounded by the world's program; anything else did not come from it.
    if (e.payload.length > MAX_ASK_PROMPT_CHARS + ASK_SCHEMA_MAX_CHARS + 200) return;
    let req: { id?: unknown; p?: unknown; s?: unknown };
    try {
      req = JSON.parse(e.payload);
    } catch {
      return;
    }
    const id = typeof req.id === "string" && /^\d{1,18}$/.test(req.id) ? req.id : undefined;
    if (!id) return;
    // One call at a time: the token budget is checked before each, against what the earlier ones spent.
    asking = asking.then(async () => {
      let reply: { v?: unknown; e?: string };
      try {
        const schema = typeof req.s === "string" && req.s !== "" ? checkAskSchema(JSON.parse(req.s)) : undefined;
        reply = { v: await o.askLlm(typeof req.p === "string" ? req.p : "", schema, AbortSignal.any([until, ended.signal])) };
      } catch (err) {
        reply = { e: `askLlm failed: ${(err as Error).message ?? String(err)}`.slice(0, 1000) };
      }
      if (ended.signal.aborted) return;
      await inWorld(session, `globalThis.__crawlboxAsk(${JSON.stringify(id)}, ${JSON.stringify(reply)})`).catch(() => undefined);
    });
  };
  try {
    await raceAbort(
      (async () => {
        // Bindings reach a named world only with the Runtime domain on.
        await session.send("Runtime.enable");
        await session.send("Runtime.addBinding", { name: BINDING, executionContextName: "crawlbox" });
        session.on("Runtime.bindingCalled", onBinding);
        await inWorld(session, WORLD_PROGRAM);
      })(),
      until,
    );
    const { result } = await session.send("Runtime.evaluate", { expression: "globalThis", returnByValue: false });
    await raceAbort(
      session.send("Runtime.callFunctionOn", {
        functionDeclaration: WRAPPER,
        objectId: result.objectId!,
        arguments: [{ value: o.code }, { value: o.html }, { value: o.url }],
        awaitPromise: true,
        returnByValue: false,
        silent: true,
      }),
      until,
    );
    const out = (await raceAbort(inWorld(session, READ_OUTCOME), until)).value as { json?: string; tooLong?: number; error?: string };
    if (out.tooLong !== undefined) throw new ExtractorRunError(`extract returned ${out.tooLong} characters of JSON, over the ${MAX_RESULT_CHARS} allowed`);
    if (typeof out.json !== "string") throw new ExtractorRunError(out.error ?? "the extractor failed");
    let value: unknown;
    try {
      value = JSON.parse(out.json);
    } catch {
      throw new ExtractorRunError("extract's result could not be read as JSON");
    }
    if (nestedDeeperThan(value, MAX_RESULT_DEPTH)) throw new ExtractorRunError(`extract returned a value nested deeper than ${MAX_RESULT_DEPTH} levels`);
    return value;
  } catch (e) {
    if (o.signal?.aborted) throw e;
    if (timer.aborted) throw new ExtractorRunError(`the extractor did not finish within ${Math.round(left / 1000)} s`);
    if (e instanceof ExtractorRunError) throw e;
    throw new ExtractorRunError(String((e as Error).message ?? e).split("\n")[0]!.slice(0, 500));
  } finally {
    ended.abort();
    session.off("Runtime.bindingCalled", onBinding);
    sandbox.release({ suspect: until.aborted });
  }
}
