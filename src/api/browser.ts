/**
 * @module api/browser
 * `/v2/browser` bodies (the SDK's `browser()` and `browserExecute()`): a standalone browser session's times and
 * profile, and the code run in it (`bash` agent-browser commands or `node` JavaScript; see api/interact.ts).
 * `streamWebView` (default true, as upstream's) gives the session a live view (interact/live-view.ts).
 */
import { t } from "elysia";
import { MAX_PROFILE_NAME } from "../storage/profiles.ts";
import { Int, OriginProps, strictObject } from "./common.ts";
import { CodeLanguage, CodeTimeout, DEFAULT_INTERACT_TIMEOUT_S, MAX_CODE_CHARS, type RunnableLanguage } from "./interact.ts";
import { validateBody } from "./validate.ts";

/** A session's whole life, in seconds: bounds and default. */
export const BROWSER_TTL_S = { min: 30, max: 3_600, default: 600 };
/** Seconds a session may go unused before it closes: bounds and default. */
export const BROWSER_ACTIVITY_TTL_S = { min: 10, max: 3_600, default: 300 };

export const BrowserCreateSchema = strictObject(
  {
    ttl: t.Optional(Int({ minimum: BROWSER_TTL_S.min, maximum: BROWSER_TTL_S.max, description: "Session life in seconds (default 600)" })),
    activityTtl: t.Optional(Int({ minimum: BROWSER_ACTIVITY_TTL_S.min, maximum: BROWSER_ACTIVITY_TTL_S.max, description: "Seconds unused before the session closes (default 300)" })),
    streamWebView: t.Optional(t.Boolean({ description: "Give the session a live view (liveViewUrl); default true" })),
    profile: t.Optional(strictObject({ name: t.String({ minLength: 1, maxLength: MAX_PROFILE_NAME }), saveChanges: t.Optional(t.Boolean({ default: true })) })),
    ...OriginProps,
  },
  { description: "POST /v2/browser body" },
);

export const BrowserExecuteSchema = strictObject(
  {
    code: t.String({ minLength: 1, maxLength: MAX_CODE_CHARS }),
    language: t.Optional(CodeLanguage),
    timeout: t.Optional(CodeTimeout),
    ...OriginProps,
  },
  { description: "POST /v2/browser/{id}/execute body" },
);

/** A validated `POST /v2/browser` body. */
export interface BrowserCreate {
  lifeMs: number;
  idleMs: number;
  /** Whether the session has a live view (`streamWebView`). */
  liveView: boolean;
  profile?: { name: string; saveChanges: boolean };
}

/** Validates a `POST /v2/browser` body (an empty body is a session with the defaults). */
export function parseBrowserCreateBody(body: unknown): BrowserCreate {
  const v = validateBody(BrowserCreateSchema, body ?? {});
  return {
    liveView: v.streamWebView ?? true,
    lifeMs: (v.ttl ?? BROWSER_TTL_S.default) * 1000,
    idleMs: (v.activityTtl ?? BROWSER_ACTIVITY_TTL_S.default) * 1000,
    ...(v.profile ? { profile: { name: v.profile.name, saveChanges: v.profile.saveChanges ?? true } } : {}),
  };
}

/** Validates a `POST /v2/browser/{id}/execute` body: code (bash, the SDK's default language, node or python) and its time limit. */
export function parseBrowserExecuteBody(body: unknown): { code: string; language: RunnableLanguage; timeoutMs: number } {
  const v = validateBody(BrowserExecuteSchema, body);
  return { code: v.code, language: v.language ?? "bash", timeoutMs: (v.timeout ?? DEFAULT_INTERACT_TIMEOUT_S) * 1000 };
}
