/**
 * A failed agent run's trace says why it failed in the SDK's `AgentTraceError` terms (agent/trace-error.ts), from the
 * run's typed error, not `internal` from the `agent` whatever happened: a key revoked mid-run is `refused` by the
 * `system`, not retryable; a key out of credits `credit_limit_reached` from `billing`; a model that rate-limits
 * past what a job waits is a retryable `internal` of the `agent`. Each message starts with the crawlbox code.
 * Real runs: the shop, the SearXNG fake and the fake model of agent-shop.ts.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type { AgentTraceError } from "@mendable/firecrawl-js";
import { traceErrorOf } from "../../src/agent/trace-error.ts";
import { AgentAttemptsSpentError, AgentNoPagesError } from "../../src/agent/errors.ts";
import { InsufficientCreditsError, KeyRevokedError } from "../../src/errors.ts";
import { LlmTimeoutError, LlmUnavailableError } from "../../src/llm/errors.ts";
import { SearchTimeoutError } from "../../src/search/errors.ts";
import type { FakeLlm } from "../llm/fake-llm.ts";
import type { Harness } from "../helpers/harness.ts";
import { kind, SCHEMA, useAgentShop } from "./agent-shop.ts";

const shop = useAgentShop();
let h: Harness;
let base: string;
let llm: FakeLlm;
beforeAll(() => ({ h, base, llm } = shop));
const { model, start } = shop;

/** The run's row status, read from the table: a revoked key can no longer ask for it. */
async function ended(id: string): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const row = h.services.db.query<{ status: string }, [string]>("SELECT status FROM agent_jobs WHERE id = ?").get(id)!;
    if (row.status !== "processing") return row.status;
    await Bun.sleep(25);
  }
  throw new Error("agent run did not finish");
}

/** The last two events of the run's trace (`error.occurred`, `run.finished`), through `GET /v2/agent/{id}/trace`. */
async function traceEnd(id: string, auth: string): Promise<any[]> {
  const res = await h.request(`/v2/agent/${id}/trace`, { auth });
  expect(res.status).toBe(200);
  return ((await res.json()) as any).events.slice(-2);
}

describe("a failed agent run's trace error", () => {
  test("a key revoked mid-run: refused by the system, not retryable, the message naming KEY_REVOKED", async () => {
    const { key, record } = h.services.keys.create("revoked mid-run");
    llm.reset();
    let revoked = false;
    // The operator revokes the key while the model chooses the next pages: the run stops before reading them.
    llm.respond = (req) => {
      if (kind(req) === "pick" && !revoked) revoked = h.services.keys.revoke(record.id);
      return model(req);
    };
    const { status, body } = await start({ urls: [`${base}/`], prompt: "List the shop's products and their prices", schema: SCHEMA }, h, key);
    expect(status).toBe(200);
    expect(await ended(body.id)).toBe("failed");
    expect(revoked).toBe(true);
    // The trace is its key's to read; the operator restores the key (there is no command for it) to read it.
    h.services.db.query("UPDATE api_keys SET revoked_at = NULL WHERE id = ?").run(record.id);
    const run = (await (await h.request(`/v2/agent/${body.id}`, { auth: key })).json()) as any;
    expect(run.error).toBe("The API key of this job was revoked.");
    const error: AgentTraceError = { code: "refused", source: "system", retryable: false, message: "KEY_REVOKED: The API key of this job was revoked." };
    expect(await traceEnd(body.id, key)).toMatchObject([
      { type: "error.occurred", error },
      { type: "run.finished", outcome: "failed", error },
    ]);
  });

  test("a key out of credits at its web search: credit_limit_reached from billing, not retryable", async () => {
    llm.reset();
    // Two runs of another key hold both run slots on a model that does not answer, until they are cancelled.
    llm.respond = (req) => (JSON.stringify(req.messages).includes("HOLD") ? { content: "{}", delayMs: 60_000 } : model(req));
    const holders = await Promise.all([1, 2].map(() => start({ urls: [`${base}/kettle`], prompt: "HOLD", schema: SCHEMA, strictConstrainToURLs: true })));
    const { key, record } = h.services.keys.create("runs out", 20);
    const { status, body } = await start({ prompt: "prices of the shop", schema: SCHEMA }, h, key);
    expect(status).toBe(200);
    // While the run waits, the operator lowers the key's quota below the search's 2 credits.
    expect(h.services.keys.setQuota(record.id, 1)).toBe(true);
    for (const held of holders) expect((await h.request(`/v2/agent/${held.body.id}`, { method: "DELETE" })).status).toBe(200);
    expect(await ended(body.id)).toBe("failed");
    const error = { code: "credit_limit_reached", source: "billing", retryable: false, message: expect.stringMatching(/^INSUFFICIENT_CREDITS: /) };
    expect(await traceEnd(body.id, key)).toMatchObject([
      { type: "error.occurred", error },
      { type: "run.finished", outcome: "failed", error },
    ]);
  });

  test("a model that rate-limits longer than a job waits: a retryable internal error of the agent", async () => {
    llm.reset();
    llm.respond = () => ({ status: 429, error: "slow down", headers: { "retry-after": "120" } });
    const { status, body } = await start({ urls: [`${base}/kettle`], prompt: "prices", schema: SCHEMA, strictConstrainToURLs: true });
    expect(status).toBe(200);
    expect(await ended(body.id)).toBe("failed");
    // One call: a Retry-After beyond the job's 60 s cap is not waited.
    expect(llm.chats()).toHaveLength(1);
    const error = { code: "internal", source: "agent", retryable: true, message: expect.stringMatching(/^LLM_RATE_LIMITED: /) };
    expect(await traceEnd(body.id, h.key)).toMatchObject([
      { type: "error.occurred", error },
      { type: "run.finished", outcome: "failed", error },
    ]);
  });
});

describe("traceErrorOf", () => {
  const p = { name: "ollama", address: "http://127.0.0.1:1", model: "m" };
  test("maps each known failure by its crawlbox code, to the SDK's AgentTraceError", () => {
    const cases: [unknown, Omit<AgentTraceError, "message">, string][] = [
      [new KeyRevokedError(), { code: "refused", source: "system", retryable: false }, "KEY_REVOKED: "],
      [new InsufficientCreditsError(), { code: "credit_limit_reached", source: "billing", retryable: false }, "INSUFFICIENT_CREDITS: "],
      [new LlmTimeoutError(p, 5_000), { code: "internal", source: "agent", retryable: true }, "LLM_TIMEOUT: "],
      [new LlmUnavailableError(p, "HTTP 404: no such model", undefined, undefined, false), { code: "internal", source: "agent", retryable: false }, "LLM_UNAVAILABLE: "],
      [new SearchTimeoutError(3_000), { code: "internal", source: "tool", retryable: true }, "SEARCH_TIMEOUT: "],
      [new AgentNoPagesError(), { code: "internal", source: "tool", retryable: false }, "AGENT_NO_PAGES: "],
      [new AgentAttemptsSpentError(3), { code: "internal", source: "system", retryable: false }, "AGENT_ATTEMPTS_SPENT: "],
      [new TypeError("boom"), { code: "internal", source: "agent", retryable: false }, "boom"],
    ];
    for (const [cause, kind, message] of cases) {
      const got: AgentTraceError = traceErrorOf(cause);
      expect({ code: got.code, source: got.source, retryable: got.retryable }).toEqual(kind);
      expect(got.message.startsWith(message)).toBe(true);
    }
  });
});
