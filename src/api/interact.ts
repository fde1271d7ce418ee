/**
 * @module api/interact
 * `POST /v2/scrape/{id}/interact` (the SDK's `ScrapeExecuteRequest`): `prompt` (what to do on the scrape's page, in
 * words), or `code` with a `language`, `timeout` in seconds, `origin`. crawlbox carries out prompts; code is
 * refused (docs/interact.md says why).
 */
import { t } from "elysia";
import { BadRequestError } from "../errors.ts";
import { Int, oneOf, OriginProps, PromptField, strictObject } from "./common.ts";
import { validateBody } from "./validate.ts";

/** Longest a prompt may run, in seconds (the SDK's `timeout`). */
export const MAX_INTERACT_TIMEOUT_S = 300;
export const DEFAULT_INTERACT_TIMEOUT_S = 60;

export const InteractRequestSchema = strictObject(
  {
    code: t.Optional(t.String({ maxLength: 100_000 })),
    prompt: t.Optional(PromptField),
    language: t.Optional(oneOf(["python", "node", "bash"])),
    timeout: t.Optional(Int({ minimum: 1, maximum: MAX_INTERACT_TIMEOUT_S })),
    ...OriginProps,
  },
  { description: "POST /v2/scrape/{id}/interact body" },
);

/** Validates an interact body: a prompt and its time limit; code is a 400 that says why. */
export function parseInteractBody(body: unknown): { prompt: string; timeoutMs: number } {
  const v = validateBody(InteractRequestSchema, body);
  if (v.code?.trim()) {
    throw new BadRequestError(
      "crawlbox does not run caller code on the server (Python, Node or Bash next to the browser is not something it can sandbox); send a prompt, which crawlbox carries out with its own browser actions, or use the scrape's actions (executeJavascript runs code in the page).",
      [{ code: "custom", path: ["code"], message: "code is not run by crawlbox" }],
      "INTERACT_CODE_NOT_SUPPORTED",
    );
  }
  if (!v.prompt?.trim()) throw new BadRequestError("Send a prompt: what to do on the scrape's page.", [{ code: "custom", path: ["prompt"], message: "prompt is required" }]);
  return { prompt: v.prompt, timeoutMs: (v.timeout ?? DEFAULT_INTERACT_TIMEOUT_S) * 1000 };
}
