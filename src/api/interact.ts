/**
 * @module api/interact
 * `POST /v2/scrape/{id}/interact` (the SDK's `ScrapeExecuteRequest`): `prompt` (what to do on the scrape's page, in
 * words), or `code` with a `language`, `timeout` in seconds, `origin`; and, as upstream's route takes them, `ttl` and
 * `activityTtl` for the session the request opens (the bounds of `/v2/browser`'s), and `existingSessionId`, a
 * standalone session of the key's to run in when the scrape has none (upstream's route takes it too). crawlbox carries
 * out prompts, code in `language: "node"` and `"python"` in a browser sandbox (src/interact/sandbox) and in `"bash"` as
 * agent-browser commands (src/interact/shell). `/v2/browser/{id}/execute` takes code the same way.
 */
import { t } from "elysia";
import { BadRequestError } from "../errors.ts";
import { Int, oneOf, OriginProps, PromptField, strictObject } from "./common.ts";
import { validateBody } from "./validate.ts";

/** A session's whole life, in seconds: bounds and default (`ttl`; an interact session's default is its own, 1800). */
export const BROWSER_TTL_S = { min: 30, max: 3_600, default: 600 };
/** Seconds a session may go unused before it closes: bounds and default (`activityTtl`). */
export const BROWSER_ACTIVITY_TTL_S = { min: 10, max: 3_600, default: 300 };

/** `ttl` and `activityTtl` as both routes that open a session take them. */
export const SessionTimesProps = {
  ttl: t.Optional(Int({ minimum: BROWSER_TTL_S.min, maximum: BROWSER_TTL_S.max, description: "Session life in seconds" })),
  activityTtl: t.Optional(Int({ minimum: BROWSER_ACTIVITY_TTL_S.min, maximum: BROWSER_ACTIVITY_TTL_S.max, description: "Seconds unused before the session closes" })),
};

/** Longest a prompt or script may run, in seconds (the SDK's `timeout`). */
export const MAX_INTERACT_TIMEOUT_S = 300;
export const DEFAULT_INTERACT_TIMEOUT_S = 60;
/** Characters of one script. */
export const MAX_CODE_CHARS = 100_000;
/** Characters of an `existingSessionId` (crawlbox's ids are UUIDs). */
const MAX_SESSION_ID_CHARS = 200;

export const CodeLanguage = oneOf(["python", "node", "bash"]);
export const CodeTimeout = Int({ minimum: 1, maximum: MAX_INTERACT_TIMEOUT_S, description: "Seconds (default 60)" });

export const InteractRequestSchema = strictObject(
  {
    code: t.Optional(t.String({ maxLength: MAX_CODE_CHARS })),
    prompt: t.Optional(PromptField),
    language: t.Optional(CodeLanguage),
    timeout: t.Optional(CodeTimeout),
    ...SessionTimesProps,
    existingSessionId: t.Optional(t.String({ minLength: 1, maxLength: MAX_SESSION_ID_CHARS, description: "A browser session of yours (POST /v2/browser) to run in when the scrape has none; the scrape's own, when open, comes first" })),
    ...OriginProps,
  },
  { description: "POST /v2/scrape/{id}/interact body" },
);

/** Languages of code crawlbox runs: all the SDK's. */
export type RunnableLanguage = "bash" | "node" | "python";

/**
 * The times (`ttl`, `activityTtl`) of the session an interact request opens, when it sets them, or the standalone
 * session it asks to run in instead (`existingSessionId`, used when the scrape has no session).
 */
export interface SessionTimesAsked {
  lifeMs?: number;
  idleMs?: number;
  existingSessionId?: string;
}

/** What an interact request asks for: a prompt, or code; with its time limit, and its session's times. */
export type InteractWork = SessionTimesAsked & ({ prompt: string; timeoutMs: number; code?: undefined } | { code: string; language: RunnableLanguage; timeoutMs: number; prompt?: undefined });

/** Validates an interact body: a prompt, or bash code (not both), and its time limit. */
export function parseInteractBody(body: unknown): InteractWork {
  const v = validateBody(InteractRequestSchema, body);
  const timeoutMs = (v.timeout ?? DEFAULT_INTERACT_TIMEOUT_S) * 1000;
  const times: SessionTimesAsked = {
    ...(v.ttl !== undefined ? { lifeMs: v.ttl * 1000 } : {}),
    ...(v.activityTtl !== undefined ? { idleMs: v.activityTtl * 1000 } : {}),
    ...(v.existingSessionId !== undefined ? { existingSessionId: v.existingSessionId } : {}),
  };
  const code = v.code?.trim() ? v.code : undefined;
  const prompt = v.prompt?.trim() ? v.prompt : undefined;
  if (code && prompt) throw new BadRequestError("Send either code or a prompt, not both.", [{ code: "custom", path: ["code"], message: "code and prompt are exclusive" }]);
  if (code) {
    // The SDK's interact() sends language "node" when none is given.
    return { code, language: v.language ?? "node", timeoutMs, ...times };
  }
  if (!prompt) throw new BadRequestError("Send a prompt (what to do on the scrape's page) or code.", [{ code: "custom", path: ["prompt"], message: "prompt or code is required" }]);
  return { prompt, timeoutMs, ...times };
}
