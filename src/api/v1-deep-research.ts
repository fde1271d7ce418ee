/**
 * @module api/v1-deep-research
 * v1's deep research (`POST /v1/deep-research`, `GET /v1/deep-research/{id}`; the v1 SDK's `deepResearch`, older
 * MCP tools), deprecated upstream, served by crawlbox's agent (docs/agent.md): the query is the run's prompt, with
 * the analysis and system prompts; `formats: ["json"]` with `jsonOptions.schema` runs it in extract mode, else in
 * chat mode, whose text is the `finalAnalysis`; `maxUrls` bounds the pages read (as the run's `maxCredits`, and its
 * effort). The status is the run's, reshaped: `activities` from its trace (searches, pages read, the model's
 * reasoning, the answer), `sources` from the pages it read. v1's `maxDepth` (the first reading and at most
 * `maxDepth - 1` rounds of the model picking more pages) and `timeLimit` (seconds from the start after which no more
 * pages are picked) bound the run's reading; the answer is then drawn from what was read. A `webhook`
 * becomes the run's: v1's events `started`, `page` (the run's `action`: a page read), `completed`, `failed`, and the
 * deliveries are the agent's (`agent.started`, `agent.action`, …), as docs/agent.md describes them.
 */
import { Type as t, type Static } from "@sinclair/typebox";
import { OriginProps, strictObject } from "./common.ts";
import { validateBody } from "./validate.ts";
import { BadRequestError } from "../errors.ts";

/** The v1 request body (upstream's `deepResearchRequestSchema`). */
export const DeepResearchRequestSchema = strictObject({
  query: t.String({ minLength: 1, maxLength: 10_000 }),
  maxDepth: t.Optional(t.Integer({ minimum: 1, maximum: 12, default: 7 })),
  timeLimit: t.Optional(t.Integer({ minimum: 30, maximum: 300, default: 300 })),
  maxUrls: t.Optional(t.Integer({ minimum: 1, maximum: 1000, default: 20 })),
  analysisPrompt: t.Optional(t.String({ maxLength: 10_000 })),
  systemPrompt: t.Optional(t.String({ maxLength: 10_000 })),
  formats: t.Optional(t.Array(t.Union([t.Literal("markdown"), t.Literal("json")]))),
  jsonOptions: t.Optional(
    strictObject({ schema: t.Optional(t.Record(t.String(), t.Unknown())), prompt: t.Optional(t.String({ maxLength: 10_000 })), systemPrompt: t.Optional(t.String({ maxLength: 10_000 })) }),
  ),
  webhook: t.Optional(t.Unknown()),
  __experimental_streamSteps: t.Optional(t.Boolean()),
  ...OriginProps,
});
type DeepResearchRequest = Static<typeof DeepResearchRequestSchema>;

/** v1 webhook events as the agent's: a page read is the run's `action`. */
const V1_EVENTS: Record<string, string> = { started: "started", page: "action", completed: "completed", failed: "failed" };

/**
 * v1's webhook (a URL, or `{url, headers, metadata, events}`) as the agent's; the agent's own validation then checks
 * it. An event v1 does not have is passed on unchanged, so that the agent's validation names it.
 */
function agentWebhook(webhook: unknown): unknown {
  if (typeof webhook !== "object" || webhook === null || Array.isArray(webhook)) return webhook;
  const w = webhook as Record<string, unknown>;
  if (!Array.isArray(w.events)) return w;
  return { ...w, events: [...new Set(w.events.map((e) => (typeof e === "string" ? (V1_EVENTS[e] ?? e) : e)))] };
}

/** v1's `timeLimit` (seconds) and `maxDepth`, defaults applied, for the agent run (a bad body was refused already). */
export function deepResearchLimits(body: unknown): { timeLimit: number; maxDepth: number } {
  const v = validateBody(DeepResearchRequestSchema, body) as DeepResearchRequest;
  return { timeLimit: v.timeLimit ?? 300, maxDepth: v.maxDepth ?? 7 };
}

/** Pages a run reads for `maxUrls`: the agent's effort (3, 6 or 12 pages) and its credit cap (a page each, 2 for the search). */
function budget(maxUrls: number): { effort: "low" | "medium" | "high"; maxCredits: number } {
  const effort = maxUrls <= 3 ? "low" : maxUrls <= 6 ? "medium" : "high";
  return { effort, maxCredits: maxUrls + 2 };
}

/** A v1 deep research body as the `/v2/agent` body that does it. Throws a 400 for a bad body. */
export function deepResearchBodyToAgent(body: unknown): Record<string, unknown> {
  const v = validateBody(DeepResearchRequestSchema, body) as DeepResearchRequest;
  const json = (v.formats ?? ["markdown"]).includes("json");
  if (v.query.trim() === "") throw new BadRequestError("query must not be empty.", [{ code: "custom", path: ["query"], message: "query must not be empty." }]);
  // The query first: it is the task; the other prompts say how to go about it.
  const prompt = [v.query, v.systemPrompt, v.analysisPrompt, json ? v.jsonOptions?.systemPrompt : undefined, json ? v.jsonOptions?.prompt : undefined]
    .filter((p): p is string => typeof p === "string" && p.trim() !== "")
    .join("\n\n");
  if (prompt.length > 10_000) {
    throw new BadRequestError("The query and its prompts together exceed 10,000 characters (the agent's prompt limit).", [{ code: "too_big", path: [], message: "The query and its prompts together exceed 10,000 characters." }]);
  }
  return {
    prompt,
    mode: json ? "extract" : "chat",
    ...(json && v.jsonOptions?.schema ? { schema: v.jsonOptions.schema } : {}),
    ...budget(v.maxUrls ?? 20),
    ...(v.webhook !== undefined ? { webhook: agentWebhook(v.webhook) } : {}),
    origin: v.origin ?? "api",
    ...(v.integration !== undefined ? { integration: v.integration } : {}),
  };
}

type Body = Record<string, unknown>;
type Activity = { type: string; status: string; message: string; timestamp: string; depth: number };

/** The trace events of a run as v1's activities and the sources read so far; `depth` counts the model's rounds. */
function fromTrace(events: Body[]): { activities: Activity[]; sources: { url: string; title: string; description: string }[]; depth: number } {
  const activities: Activity[] = [];
  const sources: { url: string; title: string; description: string }[] = [];
  let depth = 1;
  for (const e of events) {
    if (typeof e !== "object" || e === null) continue;
    const at = String(e.occurredAt ?? "");
    const add = (type: string, status: string, message: string) => activities.push({ type, status, message, timestamp: at, depth });
    const params = (e.parameters ?? {}) as Body;
    const result = (e.result ?? {}) as Body;
    switch (e.type) {
      case "progress.reported":
        add(e.phase === "finalizing" ? "synthesis" : "thought", "complete", String(e.message ?? ""));
        break;
      case "tool_call.started":
        if (e.toolName === "search") add("search", "processing", `Searching the web for: ${String(params.query ?? "")}`);
        else add("extract", "processing", `Reading ${String(params.url ?? "")}`);
        break;
      case "tool_call.finished":
        if (e.toolName === "search") add("search", "complete", `Found ${Array.isArray(result.results) ? result.results.length : 0} results`);
        else if (result.error) add("extract", "error", `Could not read ${String(result.url ?? "")}`);
        else {
          add("extract", "complete", `Read ${String(result.url ?? "")}`);
          sources.push({ url: String(result.url ?? ""), title: typeof result.title === "string" ? result.title : "", description: "" });
        }
        break;
      case "reasoning.summary":
        add("reasoning", "complete", String(e.text ?? ""));
        depth++;
        break;
      case "run.finished":
        add("synthesis", e.outcome === "succeeded" ? "complete" : "error", e.outcome === "succeeded" ? "Research complete" : `Research ${String(e.outcome ?? "ended")}`);
        break;
    }
  }
  return { activities, sources, depth };
}

/**
 * A run's `/v2/agent/{id}` status and `/trace` events as v1's deep research status: `{success, status, data:
 * {finalAnalysis, activities, sources, json?}, error?, expiresAt, currentDepth, maxDepth, activities, sources,
 * summaries}`. A cancelled run reads `failed` (v1 knew no other end).
 */
export function deepResearchStatusFromAgent(run: Body, events: Body[], maxDepth = 7): Body {
  const { activities, sources: read, depth } = fromTrace(events);
  const finalSources = Array.isArray(run.sources) ? (run.sources as string[]).map((url) => read.find((s) => s.url === url) ?? { url, title: "", description: "" }) : read;
  const status = run.status === "processing" ? "processing" : run.status === "completed" ? "completed" : "failed";
  const json = run.mode === "extract" && run.data !== undefined ? run.data : undefined;
  const finalAnalysis = typeof run.message === "string" ? run.message : json !== undefined ? JSON.stringify(json, null, 2) : "";
  return {
    success: status !== "failed",
    status,
    data: { finalAnalysis, activities, sources: finalSources, ...(json !== undefined ? { json } : {}) },
    ...(status === "failed" ? { error: typeof run.error === "string" ? run.error : run.status === "cancelled" ? "The research was cancelled." : "The research failed." } : {}),
    ...(typeof run.warning === "string" ? { warning: run.warning } : {}),
    expiresAt: run.expiresAt,
    currentDepth: depth,
    maxDepth: Math.max(depth, maxDepth),
    activities,
    sources: finalSources,
    summaries: [],
    creditsUsed: run.creditsUsed,
  };
}
