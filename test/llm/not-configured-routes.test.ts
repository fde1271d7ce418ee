/**
 * Extract and the agent without an LLM provider (src/extract/service.ts, src/agent/service.ts): a 400
 * `LLM_NOT_CONFIGURED` whose message names what was asked for, not a route the client did not call. `/v1/extract`
 * and `/v1/deep-research` reach the same services as `/v2/extract` and `/v2/agent`: a v1 client was told that
 * "POST /v2/extract needs…" or "POST /v2/agent needs…".
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const post = async (path: string, json: unknown) => {
  const res = await h.request(path, { method: "POST", json });
  return { status: res.status, body: (await res.json()) as { success: boolean; code: string; error: string } };
};
const HINT = "Set MODEL_NAME to use a local Ollama";

describe("no LLM provider: the message names what was asked for, on /v1 and /v2", () => {
  test("extract", async () => {
    for (const path of ["/v2/extract", "/v1/extract"]) {
      const r = await post(path, { urls: ["https://example.com/"], prompt: "prices" });
      expect([path, r.status, r.body.success, r.body.code]).toEqual([path, 400, false, "LLM_NOT_CONFIGURED"]);
      expect(r.body.error).toStartWith("Extract needs an LLM provider, and none is configured.");
      expect(r.body.error).toContain(HINT);
      expect(r.body.error).not.toContain("/v2/");
    }
  });

  test("the agent, and v1's deep research (an agent run)", async () => {
    const agent = await post("/v2/agent", { urls: ["https://example.com/"], prompt: "prices" });
    expect([agent.status, agent.body.code]).toEqual([400, "LLM_NOT_CONFIGURED"]);
    expect(agent.body.error).toStartWith("The agent needs an LLM provider, and none is configured.");
    expect(agent.body.error).not.toContain("/v2/");
    const research = await post("/v1/deep-research", { query: "kettle prices" });
    expect([research.status, research.body.success, research.body.code]).toEqual([400, false, "LLM_NOT_CONFIGURED"]);
    expect(research.body.error).toStartWith("Deep research needs an LLM provider, and none is configured.");
    expect(research.body.error).toContain(HINT);
    expect(research.body.error).not.toContain("/v2/");
  });
});
