/**
 * @module api/agent
 * `POST /v2/agent` ([LATEST] only, api-v2.md §2.9). crawlbox does not run the cloud agent, but the body is
 * modelled so the route can validate it and answer with a clear error rather than a generic 404/422.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { strictObject, oneOf, UrlField, UuidField, PromptField, JsonSchemaField, OriginProps, CloudProps } from "./common.ts";
import { AgentWebhookField, AGENT_WEBHOOK_EVENTS, normalizeWebhook, type AgentWebhook } from "./webhook.ts";
import { urlAt } from "./url.ts";
import { validateBody, throwIfIssues } from "./validate.ts";
import type { Issue } from "./issues.ts";
import { BadRequestError } from "../errors.ts";

/** Accepted agent models; all are rewritten to {@link AGENT_MODEL}, as upstream. */
export const AGENT_MODELS = ["spark-1-pro", "spark-1-mini", "spark-2"] as const;
export const AGENT_MODEL = "spark-2";

export const AgentRequestSchema = strictObject(
  {
    urls: t.Optional(t.Array(UrlField)),
    prompt: PromptField,
    schema: t.Optional(JsonSchemaField),
    maxCredits: t.Optional(t.Number({ exclusiveMinimum: 0 })),
    strictConstrainToURLs: t.Optional(t.Boolean()),
    webhook: t.Optional(AgentWebhookField),
    model: t.Optional(oneOf(AGENT_MODELS)),
    effort: t.Optional(oneOf(["low", "medium", "high"])),
    threadId: t.Optional(UuidField),
    mode: t.Optional(oneOf(["extract", "chat"])),
    /** Forwarded verbatim upstream; its shape belongs to the cloud agent, so it is not checked here. */
    exchange: t.Optional(t.Object({}, { additionalProperties: true })),
    ...CloudProps,
    ...OriginProps,
  },
  { description: "POST /v2/agent body" },
);

export type AgentRequestInput = Static<typeof AgentRequestSchema>;

/** How long a v1 deep research may read, and how many rounds (api/v1-deep-research.ts). */
export interface ResearchLimits {
  /** Reading stops this long after the run was created; the answer is drawn from what was read. */
  timeLimitMs: number;
  /** v1's `maxDepth`: the first reading and at most `maxDepth - 1` rounds of the model picking more. */
  maxDepth: number;
}

/** A validated agent request: URLs normalised, model rewritten, webhook normalised. */
export type AgentRequest = Omit<AgentRequestInput, "urls" | "webhook" | "model" | "origin" | "threatProtection" | "auditMetadata"> & {
  urls?: string[];
  webhook?: AgentWebhook;
  model: typeof AGENT_MODEL;
  origin: string;
  /** Set by `/v1/deep-research` (the {@link RESEARCH_LIMITS_HEADER} header), not by the /v2 body. */
  research?: ResearchLimits;
};

/**
 * The header `/v1/deep-research` passes its `timeLimit` (seconds) and `maxDepth` in to the agent run it starts:
 * `{"timeLimit": 30–300, "maxDepth": 1–12}` (a client of `/v2/agent` may send it too: it only bounds the run).
 */
export const RESEARCH_LIMITS_HEADER = "x-crawlbox-research-limits";

/** The limits in a {@link RESEARCH_LIMITS_HEADER} header, or undefined without one; a 400 for a bad one. */
export function researchLimitsFrom(header: string | null): ResearchLimits | undefined {
  if (header === null) return undefined;
  let v: { timeLimit?: unknown; maxDepth?: unknown } = {};
  try {
    v = JSON.parse(header);
  } catch {
    // reported below
  }
  const ok = (x: unknown, min: number, max: number): x is number => Number.isInteger(x) && (x as number) >= min && (x as number) <= max;
  if (typeof v !== "object" || v === null || !ok(v.timeLimit, 30, 300) || !ok(v.maxDepth, 1, 12)) {
    throw new BadRequestError(`${RESEARCH_LIMITS_HEADER} must be {"timeLimit": 30 to 300, "maxDepth": 1 to 12}.`);
  }
  return { timeLimitMs: v.timeLimit * 1000, maxDepth: v.maxDepth };
}

/** Validates and normalises an agent body; throws `BadRequestError` (400). */
export function parseAgentBody(body: unknown): AgentRequest {
  const v = validateBody(AgentRequestSchema, body);
  const issues: Issue[] = [];
  // Without urls the run starts from a web search for the prompt: an empty one would be accepted, then fail the run
  // with the search's "Bad Request". Refused up front instead, naming the field.
  if (v.prompt.trim() === "" && (v.urls?.length ?? 0) === 0) {
    issues.push({ code: "custom", path: ["prompt"], message: "prompt must not be empty when no urls are given: the agent searches the web for it." });
  }
  const urls = v.urls?.map((u, i) => urlAt(u, ["urls", i], issues));
  const wh = v.webhook === undefined ? undefined : normalizeWebhook(v.webhook, AGENT_WEBHOOK_EVENTS, ["webhook"]);
  if (wh) issues.push(...wh.issues);
  throwIfIssues(issues);
  const { threatProtection: _t, auditMetadata: _a, webhook: _w, urls: _u, ...rest } = v;
  const out: AgentRequest = { ...rest, model: AGENT_MODEL, origin: v.origin ?? "api" };
  if (urls) out.urls = urls as string[];
  if (wh?.webhook) out.webhook = wh.webhook;
  return out;
}
