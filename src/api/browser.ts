/**
 * @module api/browser
 * `/v2/browser` bodies (the SDK's `browser()` and `browserExecute()`): a standalone browser session's times and
 * profile, and the code run in it (`node` JavaScript, the default as upstream's, `python`, or `bash` agent-browser
 * commands; see api/interact.ts). `streamWebView` (default true, as upstream's) gives the session a live view
 * (interact/live-view.ts). `recordSession` (upstream's, default true there: it records the session for
 * `/v2/browser/{id}/replay`) is accepted so that the SDK's calls work, and changes nothing: crawlbox records no
 * session (docs/interact.md).
 */
import { t } from "elysia";
import { MAX_PROFILE_NAME } from "../storage/profiles.ts";
import { OriginProps, strictObject } from "./common.ts";
import { BROWSER_ACTIVITY_TTL_S, BROWSER_TTL_S, CodeLanguage, CodeTimeout, DEFAULT_INTERACT_TIMEOUT_S, MAX_CODE_CHARS, SessionTimesProps, type RunnableLanguage } from "./interact.ts";
import { validateBody } from "./validate.ts";

export const BrowserCreateSchema = strictObject(
  {
    ...SessionTimesProps,
    streamWebView: t.Optional(t.Boolean({ description: "Give the session a live view (liveViewUrl); default true" })),
    recordSession: t.Optional(t.Boolean({ description: "Upstream records the session for /replay (default true there); accepted, and crawlbox records nothing" })),
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

/**
 * Validates a `POST /v2/browser/{id}/execute` body: code (node, upstream's default language; python; or bash, which
 * the SDK's `browserExecute` sends unless told) and its time limit.
 */
export function parseBrowserExecuteBody(body: unknown): { code: string; language: RunnableLanguage; timeoutMs: number } {
  const v = validateBody(BrowserExecuteSchema, body);
  return { code: v.code, language: v.language ?? "node", timeoutMs: (v.timeout ?? DEFAULT_INTERACT_TIMEOUT_S) * 1000 };
}
