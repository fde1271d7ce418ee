/**
 * @module server/routes/agent
 * `/v2/agent` (api-v2.md §2.9, the SDK's `startAgent`, `getAgentStatus`, `agent`, `cancelAgent`, `listAgents`,
 * `getAgentThread`): start a run, read its status, cancel it, list a key's runs, read a thread. The runs themselves
 * are src/agent's; this file only shapes them as upstream's types do (docs/agent.md).
 */
import { Elysia } from "elysia";
import { AgentRequestSchema, parseAgentBody, RESEARCH_LIMITS_HEADER, researchLimitsFrom } from "../../api/agent.ts";
import type { AgentJob } from "../../agent/store.ts";
import { traceEvents, traceSnapshot } from "../../agent/trace.ts";
import { AgentThreadNotFoundError } from "../../agent/errors.ts";
import { BadRequestError, NotFoundError } from "../../errors.ts";
import { IDEMPOTENCY_PARAMETER, idempotent } from "../../idempotency/guard.ts";
import { authPlugin } from "../auth.ts";
import { publicBaseUrl } from "../public-url.ts";
import type { Services } from "../services.ts";

/** Runs per page of `GET /v2/agent`. */
export const AGENT_LIST_PAGE = 20;

/** `GET /v2/agent/{id}`: upstream's `AgentStatusResponse`, plus `sources`, `warning` and `tokensUsed`. */
export function agentStatus(job: AgentJob): Record<string, unknown> {
  const r = job.request;
  const out: Record<string, unknown> = {
    success: job.status !== "failed",
    status: job.status,
    model: r.model,
    ...(r.effort ? { effort: r.effort } : {}),
    mode: r.mode ?? "extract",
    expiresAt: new Date(job.expiresAt).toISOString(),
    creditsUsed: job.credits,
    tokensUsed: job.tokens,
    threadId: job.threadId,
    threadTurn: job.turn,
  };
  if (job.data !== undefined) out.data = job.data;
  if (job.message !== undefined) out.message = job.message;
  if (job.sources !== undefined) out.sources = job.sources;
  if (job.warning !== undefined) out.warning = job.warning;
  if (job.error !== undefined) out.error = job.error;
  return out;
}

/** What a list shows of the run's target: the first URL's host, else the start of the prompt. */
function targetHint(job: AgentJob): string {
  const first = job.request.urls?.[0];
  if (first) {
    try {
      return new URL(first).hostname;
    } catch {
      // a validated URL always parses; fall through to the prompt
    }
  }
  const p = job.request.prompt.replace(/\s+/g, " ").trim();
  return p.length > 80 ? `${p.slice(0, 80)}…` : p;
}

/** One run in `GET /v2/agent` (upstream's `AgentListItem`). */
function listItem(job: AgentJob): Record<string, unknown> {
  const r = job.request;
  return {
    id: job.id,
    createdAt: new Date(job.createdAt).toISOString(),
    targetHint: targetHint(job),
    origin: r.origin,
    ...(r.integration ? { integration: r.integration } : {}),
    settings: { hidden: false, starred: false },
    status: job.status,
    options: { ...(r.urls ? { urls: r.urls } : {}), prompt: r.prompt, ...(r.schema ? { schema: r.schema } : {}), model: r.model, ...(r.effort ? { effort: r.effort } : {}) },
  };
}

/** One run of a thread (upstream's `AgentThreadRun`: `succeeded` where a status says `completed`). */
function threadRun(job: AgentJob, includeData: boolean): Record<string, unknown> {
  const r = job.request;
  return {
    id: job.id,
    turn: job.turn,
    mode: r.mode ?? "extract",
    prompt: r.prompt,
    ...(r.urls ? { urls: r.urls } : {}),
    ...(r.schema ? { schema: r.schema } : {}),
    ...(r.effort ? { effort: r.effort } : {}),
    status: job.status === "completed" ? "succeeded" : job.status,
    createdAt: new Date(job.createdAt).toISOString(),
    finishedAt: job.finishedAt === undefined ? null : new Date(job.finishedAt).toISOString(),
    creditsUsed: job.status === "processing" ? null : job.credits,
    message: job.message ?? null,
    ...(includeData && job.data !== undefined ? { data: job.data } : {}),
  };
}

/** The agent routes. */
export function agentRoutes(services: Services) {
  const { config, agent } = services;
  return new Elysia({ name: "crawlbox-agent" })
    .use(authPlugin(services.keys, config.authEnabled))
    .post(
      "/v2/agent",
      // The answer holds only the run's ids, so it is kept for replay like a crawl's.
      ({ body, who, request }) =>
        idempotent(services.idempotency, Date.now, { request, who, body, keepResponse: true, log: services.log }, () => {
          const req = parseAgentBody(body);
          const research = researchLimitsFrom(request.headers.get(RESEARCH_LIMITS_HEADER));
          return agent.start(research ? { ...req, research } : req, who);
        }),
      { detail: { tags: ["agent"], summary: "Start an agent run", parameters: [IDEMPOTENCY_PARAMETER], requestBody: { required: true, content: { "application/json": { schema: AgentRequestSchema as object } } } } },
    )
    .get(
      "/v2/agent",
      ({ query, who, request }) => {
        const raw = query.before;
        const before = raw === undefined ? Number.MAX_SAFE_INTEGER : Number(raw);
        if (!/^\d{1,16}$/.test(raw ?? "0")) throw new BadRequestError("before must be a Unix time in milliseconds.");
        const runs = agent.list(who.keyId, before, AGENT_LIST_PAGE + 1);
        const page = runs.slice(0, AGENT_LIST_PAGE);
        const out: Record<string, unknown> = { success: true, agents: page.map(listItem) };
        if (runs.length > AGENT_LIST_PAGE) out.next = `${publicBaseUrl(config.publicUrl, request)}/v2/agent?before=${page.at(-1)!.createdAt}`;
        return out;
      },
      { detail: { tags: ["agent"], summary: "The key's agent runs, newest first" } },
    )
    .get(
      "/v2/agent/threads/:threadId",
      ({ params, query, who }) => {
        const runs = agent.thread(params.threadId, who.keyId);
        if (!runs) throw new AgentThreadNotFoundError();
        const includeData = query.includeData === "true";
        const last = runs.at(-1)!;
        return {
          success: true,
          thread: {
            id: params.threadId,
            createdAt: new Date(runs[0]!.createdAt).toISOString(),
            updatedAt: new Date(last.finishedAt ?? last.createdAt).toISOString(),
            status: runs.some((r) => r.status === "processing") ? "running" : "idle",
            runs: runs.map((r) => threadRun(r, includeData)),
          },
        };
      },
      { detail: { tags: ["agent"], summary: "The runs of an agent thread" } },
    )
    .get(
      "/v2/agent/:id",
      ({ params, who }) => {
        const job = agent.get(params.id, who.keyId);
        if (!job) throw new NotFoundError("Agent run not found.");
        return agentStatus(job);
      },
      { detail: { tags: ["agent"], summary: "An agent run's status and answer" } },
    )
    .get(
      "/v2/agent/:id/trace",
      ({ params, query, who }) => {
        const job = agent.get(params.id, who.keyId);
        if (!job) throw new NotFoundError("Agent run not found.");
        // crawlbox's runs open no live browser sessions: with liveView the list is there, and empty.
        const live = query.liveView === "true" ? { activeBrowserSessions: [] } : {};
        return { success: true, id: job.id, events: traceEvents(services.db, job.id), creditsUsed: job.credits, ...live };
      },
      { detail: { tags: ["agent"], summary: "An agent run's trace: what it did, in order" } },
    )
    .get(
      "/v2/agent/:id/snapshots/:snapshotId",
      ({ params, who }) => {
        const job = agent.get(params.id, who.keyId);
        const snapshot = job ? traceSnapshot(services.db, job.id, params.snapshotId) : undefined;
        if (snapshot === undefined) throw new NotFoundError("Snapshot not found.");
        return { success: true, id: params.id, snapshotId: params.snapshotId, snapshot };
      },
      { detail: { tags: ["agent"], summary: "An artifact of an agent run's trace (its answer)" } },
    )
    .delete(
      "/v2/agent/:id",
      ({ params, who }) => {
        const cancelled = agent.cancel(params.id, who.keyId);
        if (cancelled === undefined) throw new NotFoundError("Agent run not found.");
        // A run that has already ended is left as it is and answered with upstream's `{success}` (api-v2.md §2.9),
        // plus the status it ended in: a 200, as the SDK's cancelAgent throws on anything else, whose `success` says
        // whether the run is cancelled (the SDK's "true if cancelled": a completed run answered true).
        if (!cancelled) {
          const status = agent.get(params.id, who.keyId)?.status ?? "cancelled";
          return { success: status === "cancelled", status };
        }
        return { success: true, status: "cancelled" };
      },
      { detail: { tags: ["agent"], summary: "Cancel an agent run (an ended run is left as it is: 200 with its status; success says whether it is cancelled)" } },
    );
}
