/**
 * @module server/routes/interact
 * `POST /v2/scrape/{id}/interact` and `DELETE /v2/scrape/{id}/interact` (the SDK's `interact` and `stopInteraction`):
 * a prompt, or bash code (agent-browser commands), carried out in a browser session on a scrape's page
 * (src/interact, docs/interact.md), and the session's end. Answers are the SDK's `ScrapeExecuteResponse` (for a
 * prompt `output`/`result` the model's answer, `stdout` the steps; for code see run-code.ts) and
 * `ScrapeBrowserDeleteResponse`; an answer whose code or prompt failed or was stopped carries upstream's `error`
 * (its stderr), with `success` still true (the SDK reads the answer either way; see docs/interact.md). Needs the
 * browser engine, and an LLM provider for prompts.
 */
import { Elysia } from "elysia";
import { InteractRequestSchema, parseInteractBody } from "../../api/interact.ts";
import { DEFAULT_COUNTRY } from "../../engines/browser/emulation.ts";
import type { ScrapeDevice } from "../../interact/replay.ts";
import type { ScrapeReplay } from "../../scrape/run-options.ts";
import type { Action } from "../../api/actions.ts";
import { NotFoundError, UnsupportedOptionError } from "../../errors.ts";
import { MAX_STEPS, type PromptOutcome } from "../../interact/driver.ts";
import { LlmNotConfiguredError } from "../../llm/errors.ts";
import { llmCallForRun } from "../../llm/render-call.ts";
import { authPlugin } from "../auth.ts";
import type { Services } from "../services.ts";
import { droppedMessage, failureOf, INTERACT_CREDITS, runCode, stoppedMessage, type RunInSession } from "./run-code.ts";
import { liveViewUrls } from "./live.ts";
import { publicBaseUrl } from "../public-url.ts";
import { NO_BROWSER } from "../../scrape/capabilities.ts";

/** The interact routes. */
export function interactRoutes(services: Services) {
  const { config, interact } = services;
  return new Elysia({ name: "crawlbox-interact" })
    .use(authPlugin(services.keys, config.authEnabled))
    .post(
      "/v2/scrape/:id/interact",
      async ({ params, body, who, request }) => {
        const req = parseInteractBody(body);
        if (!interact) throw new UnsupportedOptionError("SCRAPE_BROWSER_REQUIRED", `interact needs the browser engine: ${NO_BROWSER}.`);
        if (req.prompt !== undefined && !services.llm) throw new LlmNotConfiguredError("interact (the model carries out the prompt)");
        const now = Date.now();
        const doc = (services.results.get(params.id, who.keyId, now) ?? services.jobResults.pageDocument(params.id, who.keyId)) as { metadata?: { url?: unknown; proxyUsed?: unknown } } | undefined;
        const url = doc?.metadata?.url;
        if (typeof url !== "string") throw new NotFoundError("Scrape not found.");
        // The scrape's actions, replayed when the session opens on the device it emulated, bring the page back to the
        // state the scrape saw.
        const replay = (services.results.replay(params.id, who.keyId, now) ?? services.jobResults.pageReplay(params.id, who.keyId)) as ScrapeReplay | undefined;
        const actions = (replay?.actions ?? []) as Action[];
        const device: ScrapeDevice = {
          mobile: replay?.mobile === true,
          ...(replay?.location ? { location: { country: replay.location.country ?? DEFAULT_COUNTRY, languages: replay.location.languages ?? [] } } : {}),
          // Served in the enhanced mode (asked, or `auto` retried): the session is stealthy too, through the same proxy.
          ...(doc?.metadata?.proxyUsed === "stealth" ? { stealth: true } : {}),
        };
        // Replayed actions start where the scrape started: its final URL is where they led (a link they followed), and
        // replayed there they found the page changed. A job page starts at its own URL (its sourceURL).
        const started = typeof replay?.url === "string" ? replay.url : (doc as { metadata?: { sourceURL?: unknown } }).metadata?.sourceURL;
        const target = {
          scrapeId: params.id,
          keyId: who.keyId,
          url: actions.length > 0 && typeof started === "string" && /^https?:\/\//i.test(started) ? started : url,
          actions,
          device,
          // `ttl`, `activityTtl`: the times of the session this request opens (one already open keeps its own).
          ...(req.lifeMs !== undefined ? { lifeMs: req.lifeMs } : {}),
          ...(req.idleMs !== undefined ? { idleMs: req.idleMs } : {}),
          // A standalone session of the key's to run in when the scrape has none (upstream's `existingSessionId`).
          ...(req.existingSessionId !== undefined ? { existingSessionId: req.existingSessionId } : {}),
        };
        /** The session's live view, while it is open (a script may have closed it). */
        const live = () => {
          const tokens = interact.liveTokensOf("scrape", params.id, who.keyId);
          return tokens ? liveViewUrls(publicBaseUrl(config.publicUrl, request), tokens) : {};
        };
        if (req.code !== undefined) {
          const inSession: RunInSession = (work, signal) => interact.inScrape({ ...target, signal }, work);
          return { ...(await runCode({ services, who, request, code: req.code, language: req.language, timeoutMs: req.timeoutMs, inSession, close: () => interact.close(params.id, who.keyId) })), ...live() };
        }
        const signal = AbortSignal.any([request.signal, AbortSignal.timeout(req.timeoutMs)]);
        const ends = Date.now() + req.timeoutMs;
        // The prompt's time is over (the model call's own deadline, which is the same end, may fire a moment first).
        const timeIsUp = () => signal.aborted || Date.now() >= ends - 100;
        const timedOut = () => !request.signal.aborted && timeIsUp();
        let ran = true;
        const prompted = () =>
          interact
            .prompt({
              ...target,
              prompt: req.prompt,
              llm: services.llm!,
              signal,
              call: () => llmCallForRun({ deadline: ends, signal, recordTokens: (t) => services.ledger.charge(who, 0, t) }, config),
            })
            // The prompt's own time ran out in the middle of a step (a model call): it was stopped, which is an answer.
            .catch((err: unknown) => {
              if (!timedOut()) throw err;
              // The time ran out before the prompt could start (opening the session): nothing was done, nothing charged.
              ran = false;
              return { log: [], exhausted: false, killed: true, stuck: false } as PromptOutcome;
            });
        const outcome = await services.ledger.holding(who, INTERACT_CREDITS, prompted, () => (ran ? INTERACT_CREDITS : 0));
        const answer = outcome.answer ?? "";
        const stopped = outcome.killed ? stoppedMessage(timeIsUp(), req.timeoutMs) : outcome.exhausted ? `No answer after ${MAX_STEPS} steps.` : "";
        const stderr = outcome.stuck ? `${stopped}\n${droppedMessage(undefined)}` : stopped;
        const exitCode = outcome.answer !== undefined ? 0 : outcome.killed ? 124 : 1;
        return { success: true, output: answer, result: answer, stdout: outcome.log.join("\n"), stderr, exitCode, killed: outcome.killed, ...failureOf(exitCode, outcome.killed, stderr), ...live() };
      },
      { detail: { tags: ["scrape"], summary: "Carry out a prompt, or run code, in a browser session on a scrape's page", requestBody: { required: true, content: { "application/json": { schema: InteractRequestSchema as object } } } } },
    )
    .delete(
      "/v2/scrape/:id/interact",
      async ({ params, who }) => {
        const closed = await interact?.close(params.id, who.keyId);
        if (!closed) throw new NotFoundError("No browser session is open for this scrape.");
        // An attached standalone session with a profile to save says whether it was written, as DELETE /v2/browser/{id}.
        const profile = closed.profileSaved !== undefined ? { profileSaved: closed.profileSaved } : {};
        return { success: true, status: "closed", sessionDurationMs: closed.durationMs, creditsBilled: closed.runs * INTERACT_CREDITS, ...profile };
      },
      { detail: { tags: ["scrape"], summary: "End a scrape's browser session" } },
    );
}
