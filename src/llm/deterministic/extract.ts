/**
 * @module llm/deterministic/extract
 * The `deterministicJson` format's work on one page (upstream's "deterministic JSON mode"): instead of asking the
 * model for the values, as `json` does, crawlbox asks it once for an extractor, a JavaScript function that reads them
 * from the page's DOM (llm/deterministic/prompt.ts), runs it in a browser sandbox (llm/deterministic/sandbox.ts) and
 * keeps it (llm/deterministic/store.ts). The next scrape of the same URL with the same schema, prompt and model runs
 * the same function: the same page gives the same JSON, and no model is asked (unless the function asks `askLlm`).
 *
 * An extractor whose run fails or whose result breaks the schema is written again once, with the reason; a second
 * failure is {@link DeterministicJsonError} (the format turns it into a warning, as upstream does). A stored extractor
 * that stops working (the page changed) is rewritten the same way. Under zero data retention nothing is read from or
 * written to the store: the extractor is written for that one scrape.
 */
import type { BrowserPool } from "../../engines/browser/pool.ts";
import type { LlmCall, LlmClient } from "../client.ts";
import { validateAgainst } from "../schema.ts";
import { htmlOutline } from "./outline.ts";
import { askLlmMessages, codeFromAnswer, codegenMessages, type CodegenInput } from "./prompt.ts";
import { ExtractorRunError, runExtractor } from "./sandbox.ts";
import type { ExtractorStore } from "./store.ts";

/** Bump to make every stored extractor be written again (the prompt or the sandbox changed what code may expect). */
export const EXTRACTOR_VERSION = 1;

/** Why no extractor gave a result: the last attempt's problem. */
export class DeterministicJsonError extends Error {}

/** The store key of an extractor: what it was written for. */
export function extractorKey(model: string, url: string, schema: Record<string, unknown> | undefined, prompt: string | undefined): string {
  const text = [EXTRACTOR_VERSION, model, url, JSON.stringify(schema ?? null), prompt ?? ""].join("\0");
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

/** One page's extraction. */
export interface DeterministicInput {
  llm: LlmClient;
  pool: BrowserPool;
  /** Absent under zero data retention. */
  store?: ExtractorStore;
  /** The URL asked for: with the model, schema and prompt, what the extractor is kept under. */
  url: string;
  /** Where relative links of the page point from (its `<base href>` or the URL it was served from). */
  baseUrl: string;
  html: string;
  markdown: string;
  schema?: Record<string, unknown>;
  prompt?: string;
  call: LlmCall;
  spent: { tokens: number };
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
  const key = extractorKey(o.llm.provider.model, o.url, o.schema, o.prompt);
  const askLlm = async (prompt: string, schema: Record<string, unknown> | undefined) => {
    if (schema) return o.llm.structured(askLlmMessages(prompt), schema, o.call, o.spent);
    return (await o.llm.chat(askLlmMessages(prompt), undefined, o.call, o.spent)).content;
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
  // Half the model's room for the page, split between the markdown and the outline.
  const room = Math.floor(o.llm.chunkChars(o.schema) / 2);
  let basis: Omit<CodegenInput, "retry"> | undefined;
  const write = async (retry?: CodegenInput["retry"]): Promise<{ code: string } | { problem: string }> => {
    basis ??= {
      url: o.url,
      ...(o.schema ? { schema: o.schema } : {}),
      ...(o.prompt ? { prompt: o.prompt } : {}),
      markdown: o.markdown.length > room ? `${o.markdown.slice(0, room)}\n…(cut)` : o.markdown,
      outline: htmlOutline(o.html, room),
    };
    const answer = await o.llm.chat(codegenMessages({ ...basis, ...(retry ? { retry } : {}) }), undefined, o.call, o.spent);
    return codeFromAnswer(answer.content, answer.truncated === true);
  };

  const stored = o.store?.get(key);
  let last: { code: string; problem: string } | undefined;
  if (stored !== undefined) {
    const ran = await attempt(stored);
    if ("value" in ran) return { value: ran.value, reused: true };
    last = { code: stored, problem: ran.problem };
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
      o.store?.put(key, o.url, o.llm.provider.model, written.code);
      return { value: ran.value, reused: false };
    }
    last = { code: written.code, problem: ran.problem };
    // A run the scrape's deadline stopped leaves no time to write another.
    if (Date.now() >= o.call.deadline - 100) break;
  }
  if (stored !== undefined) o.store?.delete(key);
  throw new DeterministicJsonError(last!.problem);
}
