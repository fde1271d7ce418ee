/**
 * @module llm/task-prompts
 * The prompts of crawlbox's multi-step tasks: an agent run choosing what to read and answering in chat mode, a
 * monitor judging a change or a new search result against its goal, and an interact session's next browser step.
 * The same hygiene as llm/prompts.ts: everything that comes from a page (or was written from one) is inside a
 * nonce-delimited block, and every system prompt carries the rule that such a block is data.
 */
import { delimit, UNTRUSTED_CONTENT_RULE } from "./prompts.ts";
import type { LlmMessage } from "./types.ts";

const AGENT_SYSTEM = [
  "You are a research agent that reads web pages to complete a task for the user.",
  UNTRUSTED_CONTENT_RULE,
  "Answer with one JSON object only, no prose and no Markdown fences.",
].join("\n");

/**
 * Messages asking the agent which candidate links to read next for `task` (agent/explore.ts): what it has read so
 * far (title, URL and the start of each page) and the numbered candidates, both inside one delimited block.
 */
export function agentNextMessages(task: string, read: string, candidates: string, most: number): LlmMessage[] {
  const parts = [
    `The user's task:\n${task}`,
    `Below are the pages read so far and the numbered links found on them (or in search results). Choose at most ${most} links whose pages are most likely to hold what the task still needs, or say you are done when the pages read already answer it.`,
    'Answer as {"read": [<link numbers>], "done": <true|false>}.',
    delimit(`Pages read so far:\n${read || "(none)"}\n\nCandidate links:\n${candidates}`, "pages read and candidate links").text,
  ];
  return [
    { role: "system", content: AGENT_SYSTEM },
    { role: "user", content: parts.join("\n\n") },
  ];
}

const AGENT_CHAT_SYSTEM = [
  "You are a research agent answering the user from the web pages you read.",
  UNTRUSTED_CONTENT_RULE,
  "Answer in plain text (Markdown allowed). Use only what the pages say, name the URL of each page you rely on, and say so when the pages do not answer the question.",
].join("\n");

/**
 * Messages for a chat-mode answer: the earlier turns of the thread, the task, the pages. The earlier answers were
 * written from web pages, so they are data too: delimited like a page, never placed beside the user's request.
 */
export function agentChatMessages(task: string, history: string, pages: string): LlmMessage[] {
  const parts = [];
  if (history) parts.push(`The earlier turns of this conversation, for context:\n${delimit(history, "earlier turns").text}`);
  parts.push(`The user's request:\n${task}`);
  parts.push(delimit(pages, "pages read").text);
  return [
    { role: "system", content: AGENT_CHAT_SYSTEM },
    { role: "user", content: parts.join("\n\n") },
  ];
}

const MONITOR_JUDGE_SYSTEM = [
  "You judge whether a change to a monitored web page matters for the user's goal.",
  UNTRUSTED_CONTENT_RULE,
  "Answer with one JSON object only, no prose and no Markdown fences.",
].join("\n");

/** Messages asking whether a page's change (a unified diff of its markdown) is meaningful for `goal`. */
export function monitorJudgeMessages(goal: string, url: string, diff: string): LlmMessage[] {
  const parts = [
    `The user monitors pages for this goal:\n${goal}`,
    `The page ${url} changed; its diff (lines starting with - were removed, + were added) is below.`,
    'Say whether the change is meaningful for the goal, how sure you are, why, and list the meaningful changes: {"meaningful": <bool>, "confidence": "high"|"medium"|"low", "reason": "...", "meaningfulChanges": [{"type": "added"|"removed"|"changed", "before": <text or null>, "after": <text or null>, "reason": "..."}]}.',
    delimit(diff, "diff of the page").text,
  ];
  return [
    { role: "system", content: MONITOR_JUDGE_SYSTEM },
    { role: "user", content: parts.join("\n\n") },
  ];
}

/** Messages asking whether a new search result (title, snippet, URL) matters for a monitor's `goal`. */
export function monitorResultMessages(goal: string, query: string, result: string): LlmMessage[] {
  const parts = [
    `The user monitors the web for this goal:\n${goal}`,
    `A search for ${JSON.stringify(query)} found a result it had not found before; its title, snippet and URL are below.`,
    'Say whether it matters for the goal, how sure you are, and why: {"meaningful": <bool>, "confidence": "high"|"medium"|"low", "reason": "...", "meaningfulChanges": []}.',
    delimit(result, "search result").text,
  ];
  return [
    { role: "system", content: MONITOR_JUDGE_SYSTEM },
    { role: "user", content: parts.join("\n\n") },
  ];
}

const INTERACT_SYSTEM = [
  "You operate a web browser for the user, one step at a time, to do what they ask on the current page.",
  UNTRUSTED_CONTENT_RULE,
  "Answer with one JSON object only, no prose and no Markdown fences.",
].join("\n");

/** Messages asking for the next browser step toward `task`, given the page now and the steps taken so far. */
export function interactMessages(task: string, page: string, steps: string): LlmMessage[] {
  const parts = [
    `The user's request:\n${task}`,
    steps ? `Steps taken so far:\n${steps}` : "No step has been taken yet.",
    "Choose the next step. Actions: click (an element by its number), type (text into an element by its number), press (a key: Enter, Tab, Escape, ArrowDown, ArrowUp, PageDown, PageUp), scroll (down or up), wait (for the page to change), or done (with the answer to the user's request, taken from the page).",
    'Answer as {"action": "click"|"type"|"press"|"scroll"|"wait"|"done", "element": <number>, "text": "<text to type, or up/down to scroll>", "key": "<key>", "answer": "<with done: the answer>"}.',
    delimit(page, "current page").text,
  ];
  return [
    { role: "system", content: INTERACT_SYSTEM },
    { role: "user", content: parts.join("\n\n") },
  ];
}
