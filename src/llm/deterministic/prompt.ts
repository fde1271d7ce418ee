/**
 * @module llm/deterministic/prompt
 * What the model is told when it writes an extractor for `deterministicJson` (llm/deterministic/extract.ts), and
 * how its answer becomes code. The model sees the caller's schema and prompt, the page's markdown and an outline
 * of its HTML (llm/deterministic/outline.ts), the page inside nonce-delimited blocks as every prompt of crawlbox
 * (llm/prompts.ts), and answers with one JavaScript function that reads the values from the DOM at run time, so
 * that the function, not the model, produces each later result.
 */
import { delimit, UNTRUSTED_CONTENT_RULE } from "../prompts.ts";
import type { LlmMessage } from "../types.ts";
import { MAX_EXTRACTOR_CHARS } from "./store.ts";

/** The instructions of the model that writes an extractor. */
export const CODEGEN_SYSTEM = [
  "You write one JavaScript function that extracts data from a web page's DOM:",
  "",
  "    async function extract(doc, askLlm) { ... }",
  "",
  "- `doc` is a DOM Document of the page's HTML, with no layout and no scripts run: use querySelector, querySelectorAll, textContent, getAttribute and DOM traversal. Element `href` and `src` properties are absolute URLs.",
  "- `askLlm(prompt)` resolves to a string; `askLlm(prompt, jsonSchema)` to a value of that schema, or null. Use it only for what selectors cannot do (summarise, classify, normalise by meaning), pass it the DOM text it needs, and check its answer.",
  "- The function is saved and run again on later versions of the same page, whose values will differ: every returned value must be read from `doc` (or come from askLlm) when it runs. Never return a value copied from the sample page; literals are only for selectors, attribute names, regular expressions, enum values and object keys.",
  "- The result must match the target JSON Schema exactly (required fields, types, no extra keys). Without a schema, return a JSON object whose keys describe the data.",
  "- For lists, select the repeated item elements first, then read each field inside its item.",
  "- Prefer stable anchors: ids, semantic attributes (itemprop, data-*, aria-*), headings, labels, table headers, JSON-LD scripts. Avoid :nth-child chains and long child (>) combinators.",
  "- If a required element is missing, throw an Error that names it. Do not catch and hide errors, and do not return placeholder data.",
  "- No network, storage, timers, randomness or DOM changes.",
  UNTRUSTED_CONTENT_RULE,
  "Answer with the function's source only, starting with `async function extract`: no prose, no Markdown fences.",
].join("\n");

/** What the model writes an extractor from. */
export interface CodegenInput {
  url: string;
  schema?: Record<string, unknown>;
  prompt?: string;
  markdown: string;
  outline: string;
  /** A failed attempt to fix: its code and why it failed. */
  retry?: { code: string; problem: string };
}

/** Characters of a failed attempt's code quoted back at most: enough to repair it, not to fill the context. */
const RETRY_QUOTE_CHARS = 12_000;
/** Characters of a failed attempt's problem quoted back at most. */
const RETRY_PROBLEM_CHARS = 1_000;

/** Messages asking the model for an extractor (or for a fixed one, after `retry`, quoted in at most `retryChars`). */
export function codegenMessages(o: CodegenInput, retryChars = RETRY_QUOTE_CHARS): LlmMessage[] {
  const parts: string[] = [];
  parts.push(`Page URL: ${o.url}`);
  parts.push(o.schema ? `Target JSON Schema:\n${JSON.stringify(o.schema)}` : "No schema was given: return a JSON object whose keys describe the extracted data.");
  if (o.prompt) parts.push(`What to extract, from the API caller:\n${o.prompt}`);
  parts.push(`The page's markdown (one sample; its values are not your output):\n${delimit(o.markdown, "markdown").text}`);
  parts.push(`An outline of the page's HTML (text shortened, scripts and styles left out but JSON-LD):\n${delimit(o.outline, "html outline").text}`);
  if (o.retry) {
    const problem = o.retry.problem.slice(0, RETRY_PROBLEM_CHARS);
    const codeChars = Math.max(0, Math.min(RETRY_QUOTE_CHARS, retryChars - problem.length - 200));
    const code = o.retry.code.length > codeChars ? `${o.retry.code.slice(0, codeChars)}\n/* …cut */` : o.retry.code;
    parts.push(`Your previous function failed on this page:\n${problem}\n\nThe function was:\n${code}\n\nWrite it again, fixed. Every value must still be read from doc at run time.`);
  }
  return [
    { role: "system", content: CODEGEN_SYSTEM },
    { role: "user", content: parts.join("\n\n") },
  ];
}

/** The system prompt of the extractor's `askLlm` calls. */
export const ASK_LLM_SYSTEM = [
  "You are a text-processing step in a data pipeline.",
  "Answer with the requested value only: no preamble and no Markdown.",
  "Stay grounded in the text you are given: summarise, classify, translate or reformat it, but never add facts from elsewhere.",
  "If the text lacks what is asked, answer with an empty value (null, \"\" or [] as the schema allows).",
].join(" ");

/** Messages of one `askLlm` call. */
export function askLlmMessages(prompt: string): LlmMessage[] {
  return [
    { role: "system", content: ASK_LLM_SYSTEM },
    { role: "user", content: prompt },
  ];
}

/** The extractor's source in a model's answer, or why there is none. */
export function codeFromAnswer(answer: string, truncated: boolean): { code: string } | { problem: string } {
  if (truncated) return { problem: "the answer was cut off at the token limit: write a shorter function" };
  let text = answer.trim();
  const fenced = /```[a-zA-Z]*\n([\s\S]*?)```/.exec(text);
  if (fenced) text = fenced[1]!.trim();
  const at = text.indexOf("async function extract");
  if (at < 0) return { problem: "the answer does not contain `async function extract(doc, askLlm)`" };
  const code = text.slice(at);
  if (code.length > MAX_EXTRACTOR_CHARS) return { problem: `the function is longer than ${MAX_EXTRACTOR_CHARS} characters` };
  return { code };
}
