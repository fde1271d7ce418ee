/**
 * @module plugins/formats/change-tracking
 * The `changeTracking` format (api-v2.md §6.1): compares the page with the previous scrape of the same URL by
 * the same key and `tag`, and stores this scrape as the next one's baseline (src/change-tracking/history.ts).
 * - `changeStatus`: `removed` for a 404/410; otherwise `new` without history, else `changed` or `same`
 *   (whitespace-only changes are `same`).
 * - `visibility`: `hidden` when a crawl re-checks a page only because its previous crawl saw it.
 * - `git-diff` mode (no LLM needed): `diff: {text, json}` when changed, bounded (change-tracking/diff.ts) with a
 *   warning when cut.
 * - `json` mode (needs the LLM): with a `schema`, `json: {field: {previous, current}}` for the fields that
 *   differ, both versions extracted with this request's schema and prompt (a stored extraction is reused only when
 *   it was made with them); without one, the LLM's description of the change. Only when changed.
 * The page is always fetched live (a cached copy would hide changes): with `minAge` or `lockdown`, which allow only
 * the cache, it is a 400 before anything is fetched (scrape/page-source.ts). Requires `markdown` among the formats.
 * An answer that is an error (503, 429, a 403 bot wall: change-tracking/answer-status.ts) is stored as an error
 * answer, with a warning: it is compared with the latest answer when that was an error too (the same error page is
 * `same`), otherwise with the last good version; a good answer is compared with the last good version. So an outage
 * is one `changed`, and the page's return as it was is `same`.
 */
import { ChangeHistory, type Snapshot } from "../../src/change-tracking/history.ts";
import { CONTEXT_LINES, hasChanged, markdownDiff } from "../../src/change-tracking/diff.ts";
import { errorAnswerWarning, isErrorAnswerStatus, isRemovedStatus } from "../../src/change-tracking/answer-status.ts";
import { contextLeftOutWarning, diffCutWarning } from "../../src/change-tracking/diff-bounds.ts";
import { editsOnce, type PairEdits } from "../../src/change-tracking/shared-edits.ts";
import { usesModel, type PiiOptions } from "../../src/redact/redactor.ts";
import type { LlmClient } from "../../src/llm/client.ts";
import { CrawlboxError, ScrapeTimeoutError } from "../../src/errors.ts";
import { LlmNotConfiguredError } from "../../src/llm/errors.ts";
import { llmCallFor, type LlmLimits } from "../../src/llm/render-call.ts";
import { compileSchema } from "../../src/llm/schema.ts";
import { assertLivePageAllowed } from "../../src/scrape/page-source.ts";
import { formatIndex, type FormatRenderer, type RenderContext } from "../../src/scrape/renderer.ts";
import { JSON_EXTRA_CREDITS } from "./json.ts";

/**
 * What a snapshot was redacted with: `redactPII`'s options (its entities in order) and, for the modes that ask a
 * model, the model (`MODEL_NAME`). A snapshot redacted otherwise may hold what these redact (another model finds
 * other names), so it is redacted again; one redacted with these is compared as it is.
 */
export function redactionKey(options: PiiOptions, model: string | undefined): string {
  const key = { mode: options.mode, entities: [...options.entities].sort(), replaceStyle: options.replaceStyle };
  return JSON.stringify(usesModel(options) ? { ...key, model: model ?? null } : key);
}

/** Upstream's warning when the `json` mode's LLM call fails (the rest of the result stands). */
const STRUCTURED_DIFF_FAILED = "Structured diff generation failed.";
/** The warning upstream gives instead of change tracking under zero data retention. */
export const ZDR_WARNING = "Change tracking is not supported with zero data retention.";

/** The `changeTracking` field of a document. */
export interface ChangeTrackingResult {
  previousScrapeAt: string | null;
  changeStatus: "new" | "same" | "changed" | "removed";
  visibility: "visible" | "hidden";
  diff?: { text: string; json: unknown };
  json?: unknown;
}

interface Options {
  modes: ("json" | "git-diff")[];
  tag: string | null;
  schema?: Record<string, unknown>;
  prompt?: string;
}

/** Top-level fields whose values differ, as `{field: {previous, current}}`. */
export function fieldChanges(previous: unknown, current: unknown): Record<string, { previous: unknown; current: unknown }> {
  const p = (previous ?? {}) as Record<string, unknown>;
  const c = (current ?? {}) as Record<string, unknown>;
  const out: Record<string, { previous: unknown; current: unknown }> = {};
  for (const k of new Set([...Object.keys(p), ...Object.keys(c)])) {
    if (JSON.stringify(p[k] ?? null) !== JSON.stringify(c[k] ?? null)) out[k] = { previous: p[k] ?? null, current: c[k] ?? null };
  }
  return out;
}

/**
 * What a `json` mode extraction answered: a hash of its schema, prompt and model. Two extractions are compared only
 * when their keys are equal; a snapshot extracted otherwise is extracted again (api-v2.md §6.1: "the LLM extracts
 * both versions"), or a schema change would show as every field changing.
 */
export function extractionKey(schema: Record<string, unknown>, prompt: string | undefined, model: string): string {
  return new Bun.CryptoHasher("sha256").update([JSON.stringify(schema), prompt ?? "", model].join("\0")).digest("hex");
}

/** Dependencies of the renderer. */
export interface ChangeTrackingDeps {
  history: ChangeHistory;
  llm?: LlmClient;
  limits: LlmLimits;
  now?: () => number;
}

/** Creates the `changeTracking` renderer. */
export function createChangeTrackingFormat(deps: ChangeTrackingDeps): FormatRenderer {
  const now = deps.now ?? Date.now;

  async function jsonMode(ctx: RenderContext, o: Options, prev: Snapshot, markdown: string, edits: PairEdits): Promise<{ json: unknown; current?: unknown; key?: string }> {
    // A failure here is the page's warning, not its failure (changeModes): no job retry follows, so the call retries itself.
    const call = llmCallFor(ctx, deps.limits, { failureKept: true });
    if (o.schema) {
      const request = { schema: o.schema, ...(o.prompt ? { prompt: o.prompt } : {}) };
      const key = extractionKey(o.schema, o.prompt, deps.llm!.provider.model);
      const current = (await deps.llm!.extract({ content: markdown, ...request }, call)).value;
      // The stored extraction is reused only if it answered the same question; otherwise (another schema or prompt,
      // or a snapshot from before keys were recorded) the previous version's stored markdown is extracted again.
      const previous = prev.json !== undefined && prev.jsonKey === key ? prev.json : (await deps.llm!.extract({ content: prev.markdown, ...request }, call)).value;
      return { json: fieldChanges(previous, current), current, key };
    }
    return { json: await deps.llm!.describeChange(prev.markdown, markdown, o.prompt, call, edits) };
  }

  /**
   * The modes' fields of a changed page (`diff`, `json`) on `result`, the extraction on `snap`, their warnings. Both
   * modes read one line diff of the two versions, computed once (change-tracking/shared-edits.ts).
   */
  async function changeModes(ctx: RenderContext, o: Options, prev: Snapshot, markdown: string, result: ChangeTrackingResult, snap: Snapshot, warnings: string[]): Promise<void> {
    const modes = o.modes ?? [];
    const edits = editsOnce(prev.markdown, markdown);
    if (modes.includes("git-diff")) {
      const { text, json, cut, contextLeftOut } = markdownDiff(prev.markdown, markdown, edits);
      result.diff = { text, json };
      if (contextLeftOut) warnings.push(contextLeftOutWarning(contextLeftOut, CONTEXT_LINES));
      if (cut) warnings.push(diffCutWarning(cut));
    }
    if (!modes.includes("json")) return;
    try {
      const j = await jsonMode(ctx, o, prev, markdown, edits);
      result.json = j.json;
      if (j.current !== undefined) {
        snap.json = j.current;
        if (j.key !== undefined) snap.jsonKey = j.key;
      }
    } catch (err) {
      // As upstream: the document and the change status stand, with a warning (api-v2.md §6.1). A model that is down
      // or answers off-schema must not fail a scrape whose markdown and status are known. The scrape's own deadline
      // still ends it.
      if (!(err instanceof CrawlboxError) || err instanceof ScrapeTimeoutError) throw err;
      // The LLM's deadline is the scrape's: a call cut off by it is the scrape timing out, not a failed diff.
      if (Date.now() >= ctx.run!.deadline) throw new ScrapeTimeoutError(ctx.spec.timeoutMs);
      warnings.push(STRUCTURED_DIFF_FAILED);
    }
  }

  return {
    type: "changeTracking",
    needs: [],
    // Its json mode is billed as the json format is (+4), and with it once (upstream).
    extraCredits: (format) => ((format as unknown as Options).modes ?? []).includes("json") ? JSON_EXTRA_CREDITS : 0,
    creditGroup: "json",
    views: ["markdown"],
    needsFreshPage: true,
    validate(format, spec) {
      const o = format as unknown as Options;
      if ((o.modes ?? []).includes("json") && !deps.llm) throw new LlmNotConfiguredError('The "json" mode of changeTracking');
      // Named by its index in `formats`, as every other issue of the request is (and the json format's schema).
      if (o.schema) compileSchema(o.schema, ["formats", formatIndex(spec, format), "schema"]);
      // A cached copy recorded as the baseline, dated now, would hide the changes until it: never from the cache.
      assertLivePageAllowed(format, spec);
    },
    async render(ctx, format) {
      const o = format as unknown as Options;
      if (ctx.spec.zeroDataRetention || !ctx.run) return { warning: ZDR_WARNING };
      const keyId = ctx.run.keyId;
      const tag = o.tag ?? null;
      const markdown = ctx.markdown();
      const status = ctx.page.statusCode;
      const errorAnswer = isErrorAnswerStatus(status);
      // An error answer is compared with the latest answer (an error too: the same error page is `same`; else the
      // last good version); a good answer with the last good version, or, when every answer kept was an error, with
      // the latest of them (a page seen before is not `new`).
      const latest = deps.history.latest(keyId, ctx.spec.url, tag);
      const stored = errorAnswer || !latest?.error ? latest : (deps.history.latestGood(keyId, ctx.spec.url, tag) ?? latest);
      // With redactPII, the previous snapshot is redacted too: one stored by a scrape without redaction (or with other
      // options, or by another model) holds the raw text, which the diff's removed lines (and the json mode's prompt) would otherwise
      // carry. One this scrape's options redacted already is not redacted again (a model call, and another answer).
      const redaction = ctx.run.redact && ctx.spec.redactPII ? redactionKey(ctx.spec.redactPII, deps.llm?.provider.model) : undefined;
      const prev = stored && ctx.run.redact && stored.redaction !== redaction ? { ...stored, markdown: await ctx.run.redact(stored.markdown) } : stored;
      // An error answer after one of the same status is `same` whatever its text: error pages carry ray ids and times
      // (Cloudflare's 5xx and challenge pages), and compared by text every check of an outage was a change.
      const sameError = errorAnswer && prev?.error === true && prev.statusCode === status;
      const changeStatus: ChangeTrackingResult["changeStatus"] =
        isRemovedStatus(status) ? "removed" : !prev ? "new" : !sameError && hasChanged(prev.markdown, markdown) ? "changed" : "same";
      const result: ChangeTrackingResult = {
        previousScrapeAt: prev ? new Date(prev.scrapedAt).toISOString() : null,
        changeStatus,
        visibility: ctx.run.visibility ?? "visible",
      };
      const snap: Snapshot = { scrapedAt: now(), statusCode: status, markdown, ...(redaction !== undefined ? { redaction } : {}), ...(errorAnswer ? { error: true } : {}) };
      // An unchanged page keeps its extraction, with what it was extracted with (a later scrape checks that).
      if (prev?.json !== undefined && changeStatus === "same") {
        snap.json = prev.json;
        if (prev.jsonKey !== undefined) snap.jsonKey = prev.jsonKey;
      }
      const warnings: string[] = [];
      if (changeStatus === "changed" && prev) await changeModes(ctx, o, prev, markdown, result, snap, warnings);
      if (errorAnswer) warnings.push(errorAnswerWarning(status));
      // Recorded only if the whole scrape succeeds: a later format failing (an LLM error, the timeout) must not make
      // this version the one the next scrape compares with, or its change would never be reported.
      const record = () => deps.history.record(keyId, ctx.spec.url, tag, snap);
      if (ctx.run.onSuccess) ctx.run.onSuccess(record);
      else record();
      return warnings.length > 0 ? { changeTracking: result, warning: warnings.join(" ") } : { changeTracking: result };
    },
  };
}
