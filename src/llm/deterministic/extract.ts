/**
 * @module llm/deterministic/extract
 * The `deterministicJson` format's work on one page (upstream's "deterministic JSON mode"): instead of asking the
 * model for the values, as `json` does, crawlbox asks it once for an extractor, a JavaScript function that reads them
 * from the page's DOM (llm/deterministic/prompt.ts), runs it in a browser sandbox (llm/deterministic/sandbox.ts) and
 * keeps it (llm/deterministic/store.ts). The next scrape of the same URL with the same schema, prompt and model runs
 * the same function: the same page gives the same JSON, and no model is asked (unless the function asks `askLlm`).
 * Extractors are kept per API key, and only for pages fetched the shared way (no `headers`, `actions` or `profile`,
 * which make a page personal): one key's extractor never runs for another.
 *
 * An extractor whose run fails or whose result breaks the schema is written again once, with the reason; a second
 * failure is {@link DeterministicJsonError} (the format turns it into a warning, as upstream does). A stored extractor
 * that stops working (the page changed) is rewritten the same way, but not on an error page (a non-2xx status): a
 * bad fetch neither replaces nor drops a working extractor. Under zero data retention, or for a personal fetch,
 * nothing is read from or written to the store: the extractor is written for that one scrape.
 *
 * With `redactPII`, the format gives {@link DeterministicInput.redact}: what reaches the model from the page and is
 * not redacted yet (the HTML outline's texts, each before it is shortened; a failed run's problem, which may quote
 * the page; the extractor's `askLlm` prompts and schemas, built from the DOM) goes through it where it is built; the
 * markdown comes redacted already (scrape/service.ts) and is sent as it is, and the caller's schema and prompt are the
 * caller's own, never redacted. The redaction's model calls are the format's own: they draw on its token budget
 * (`spent`), and a text is not redacted once the budget could not send it anyway.
 */
import type { BrowserPool } from "../../engines/browser/pool.ts";
import { estimateTokens, leadingWithin, weightedLength } from "../chunk.ts";
import type { LlmCall, OperationSpent } from "../call.ts";
import type { LlmClient } from "../client.ts";
import { LlmBudgetExceededError } from "../errors.ts";
import { redactJsonStrings } from "../../redact/json-strings.ts";
import { MAX_JSON_DEPTH, nestedDeeperThan, parseJsonAnswer, validateAgainst } from "../schema.ts";
import { retriedInCall } from "../retry.ts";
import { matchesAskSchema, redactAsk } from "./ask-schema.ts";
import { htmlOutline } from "./outline.ts";
import { askLlmMessages, CODEGEN_SYSTEM, codeFromAnswer, codegenMessages, type CodegenInput } from "./prompt.ts";
import { ExtractorRunError, runExtractor } from "./sandbox.ts";
import type { ExtractorStore } from "./store.ts";

/** Bump to make every stored extractor be written again (the prompt or the sandbox changed what code may expect). */
export const EXTRACTOR_VERSION = 1;
/** Characters of the model's room kept free for the parts of the prompt other than the page (URL, schema, prompt). */
const PROMPT_SLACK_CHARS = 2_000;

/** Why no extractor gave a result: the last attempt's problem. */
export class DeterministicJsonError extends Error {}

/**
 * The store key of an extractor: what it was written for. `redaction` names the redaction the model read the page
 * under ("off", or the normalised `redactPII` options): an extractor written from redacted text (`<EMAIL>` where the
 * page has an address) may rely on what the model could not see, so it is not reused without redaction, nor the
 * other way round.
 */
export function extractorKey(keyId: string, model: string, url: string, schema: Record<string, unknown> | undefined, prompt: string | undefined, redaction = "off"): string {
  const text = [EXTRACTOR_VERSION, keyId, model, url, JSON.stringify(schema ?? null), prompt ?? "", redaction].join("\0");
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

/** One page's extraction. */
export interface DeterministicInput {
  llm: LlmClient;
  pool: BrowserPool;
  /** Absent under zero data retention and for a personal fetch (headers, actions, a profile). */
  store?: ExtractorStore;
  /** The API key the page is scraped for: extractors are kept per key. */
  keyId: string;
  /** Whether the page came with a 2xx status: an error page does not make a stored extractor be rewritten. */
  pageOk: boolean;
  /** The URL asked for: with the model, schema and prompt, what the extractor is kept under. */
  url: string;
  /** Where relative links of the page point from (its `<base href>` or the URL it was served from). */
  baseUrl: string;
  html: string;
  markdown: string;
  schema?: Record<string, unknown>;
  prompt?: string;
  /**
   * With `redactPII`: redacts page text that reaches the model (see the module comment), its model calls made under
   * `call` and counted in `spent` (the format's {@link DeterministicInput.spent}).
   */
  redact?: (text: string, call: LlmCall, spent: OperationSpent) => Promise<string>;
  /** The redaction the page is read under, part of the store key ({@link extractorKey}). @default "off" */
  redaction?: string;
  call: LlmCall;
  spent: OperationSpent;
}

/** What a run gave: the value, and whether the extractor came from the store. */
export interface DeterministicResult {
  value: unknown;
  reused: boolean;
}

/** Checks a run's value against the schema (or, without one, that it is a JSON object). */
function problemsOf(value: unknown, schema: Record<string, unknown> | undefined): string[] {
  if (schema) return validateAgainst(schema, value);
  return typeof value === "object" && value !== null && !Array.isArray(value) ? [] : ["the result must be a JSON object"];
}

/** Runs the stored extractor or writes one; see the module comment. */
export async function extractDeterministic(o: DeterministicInput): Promise<DeterministicResult> {
  const key = extractorKey(o.keyId, o.llm.provider.model, o.url, o.schema, o.prompt, o.redaction);
  /**
   * `texts` redacted in one go under `call`, before `sends` tokens of them go to the model: refused as the chat would
   * be once the format's budget cannot hold them, so no redaction is paid for a prompt that is never sent.
   */
  const redactTexts = async <T>(texts: T[], sends: number, call: LlmCall): Promise<T[]> => {
    const redact = o.redact;
    if (!redact) return texts;
    if (o.spent.tokens + sends > call.tokenBudget) throw new LlmBudgetExceededError(call.tokenBudget, o.spent.tokens);
    return (await redactJsonStrings(texts, (text) => redact(text, call, o.spent))) as T[];
  };
  const sizeOf = (texts: string[]) => estimateTokens(texts.join("\n"));
  // The format keeps a failure as the page's warning (plugins/formats/deterministic-json.ts): no job retry of the page
  // follows, so the code-writing call and `askLlm` retry a failing server themselves, in a job page too.
  const llmCall = retriedInCall(o.call);
  /**
   * The extractor's `askLlm`: stopped with its run; an answer that breaks the schema (or nests too deep) is null.
   * With `redactPII` the answer is checked against the schema as sent, redacted: an `enum` choice comes back redacted.
   */
  const askLlm = async (asked: string, askedSchema: Record<string, unknown> | undefined, signal: AbortSignal) => {
    const call: LlmCall = { ...llmCall, signal: o.call.signal ? AbortSignal.any([o.call.signal, signal]) : signal };
    // The extractor builds its prompts and schemas from the page's DOM, which is not redacted.
    const sends = sizeOf(askLlmMessages(asked).map((m) => m.content));
    const { prompt, schema } = o.redact ? await redactAsk(asked, askedSchema, (texts) => redactTexts(texts, sends, call)) : { prompt: asked, schema: askedSchema };
    const answer = await o.llm.chat(askLlmMessages(prompt), schema, call, o.spent);
    if (!schema) return answer.content;
    const parsed = parseJsonAnswer(answer.content);
    if (!parsed.ok || nestedDeeperThan(parsed.value, MAX_JSON_DEPTH)) return null;
    return matchesAskSchema(schema, parsed.value) ? parsed.value : null;
  };
  /** A run's value, or the problem to tell the model. A client gone or the scrape's deadline passed is thrown. */
  const attempt = async (code: string): Promise<{ value: unknown } | { problem: string }> => {
    try {
      const value = await runExtractor({ pool: o.pool, code, html: o.html, url: o.baseUrl, askLlm, deadline: o.call.deadline, ...(o.call.signal ? { signal: o.call.signal } : {}) });
      const problems = problemsOf(value, o.schema);
      return problems.length === 0 ? { value } : { problem: `its result does not match the schema: ${problems.slice(0, 10).join("; ")}` };
    } catch (e) {
      if (e instanceof ExtractorRunError) return { problem: `it failed: ${e.message}` };
      throw e;
    }
  };
  // The model's room for one call (its context less the answer and the schema), less the instructions, the caller's
  // prompt and some slack; a third of the rest is kept for a retry's quoted code. The page gets the remainder: two
  // fifths for the markdown, three for the HTML outline.
  // Sizes are llm/chunk.ts weighted lengths: a Chinese character counts as the ASCII characters of its tokens.
  const room = Math.max(2_000, o.llm.chunkChars(o.schema) - weightedLength(CODEGEN_SYSTEM) - weightedLength(o.prompt ?? "") - PROMPT_SLACK_CHARS);
  const retryChars = Math.floor(room / 3);
  const pageChars = room - retryChars;
  const markdownChars = Math.floor(pageChars * 0.4);
  let basis: Omit<CodegenInput, "retry"> | undefined;
  const write = async (retry?: CodegenInput["retry"]): Promise<{ code: string } | { problem: string }> => {
    basis ??= {
      url: o.url,
      ...(o.schema ? { schema: o.schema } : {}),
      ...(o.prompt ? { prompt: o.prompt } : {}),
      markdown: weightedLength(o.markdown) > markdownChars ? `${leadingWithin(o.markdown, markdownChars)}\n…(cut)` : o.markdown,
      // Its texts redacted here, each before it is shortened: the outline is the page's own HTML (the markdown is
      // redacted already). The budget is checked against what the outline shows, not the windows read past its cuts.
      outline: leadingWithin(
        await htmlOutline(o.html, pageChars - markdownChars, o.redact ? (windows, shown) => redactTexts(windows, sizeOf(shown), llmCall) : undefined),
        pageChars - markdownChars,
      ),
    };
    // A failed run's problem may quote what the extractor read from the page; its code is the model's own answer.
    const quoted = retry ? { retry: { code: retry.code, problem: (await redactTexts([retry.problem], sizeOf([retry.problem]), llmCall))[0]! } } : {};
    const answer = await o.llm.chat(codegenMessages({ ...basis, ...quoted }, retryChars), undefined, llmCall, o.spent);
    return codeFromAnswer(answer.content, answer.truncated === true);
  };

  const stored = o.store?.get(key);
  let last: { code: string; problem: string } | undefined;
  if (stored !== undefined) {
    const ran = await attempt(stored);
    if ("value" in ran) return { value: ran.value, reused: true };
    last = { code: stored, problem: ran.problem };
    // An error page, or no time left: the stored extractor stays as it is.
    if (!o.pageOk) throw new DeterministicJsonError(`${ran.problem} (on a page that came with an error status; the kept extractor was left as it is)`);
    if (Date.now() >= o.call.deadline - 100) throw new DeterministicJsonError(last.problem);
  }
  // A stored extractor that failed gets one rewrite; a new one gets a first try and one rewrite.
  for (let tries = last ? 1 : 2; tries > 0; tries--) {
    const written = await write(last);
    if ("problem" in written) {
      last = { code: last?.code ?? "", problem: written.problem };
      continue;
    }
    const ran = await attempt(written.code);
    if ("value" in ran) {
      o.store?.put(key, o.keyId, o.url, o.llm.provider.model, written.code);
      return { value: ran.value, reused: false };
    }
    last = { code: written.code, problem: ran.problem };
    // A run the scrape's deadline stopped leaves no time to write another.
    if (Date.now() >= o.call.deadline - 100) break;
  }
  // Dropped only if nobody replaced it meanwhile (another scrape of the same page may have written a working one).
  if (stored !== undefined) o.store?.delete(key, stored);
  throw new DeterministicJsonError(last!.problem);
}
