/**
 * Firecrawl Exchange ("Alexandria", a cloud service): `/v2/exchange/*` and a scrape's `alexandria` calls are answered
 * as upstream answers a team without it, 403 "Exchange is not enabled for this team.", after the key is checked.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe("Firecrawl Exchange", () => {
  test("/v2/exchange routes: 403 with upstream's message for a key, 401 without one", async () => {
    for (const [path, method] of [["/v2/exchange", "GET"], ["/v2/exchange/discover", "GET"], ["/v2/exchange/providers/x/call", "POST"]] as const) {
      const res = await h.request(path, { method, ...(method === "POST" ? { json: {} } : {}) });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ success: false, code: "EXCHANGE_NOT_ENABLED", error: "Exchange is not enabled for this team." });
    }
    expect((await h.request("/v2/exchange/discover", { auth: null })).status).toBe(401);
  });

  test("a scrape of alexandria calls (the MCP server's firecrawl_scrape in Alexandria mode): 403, not a 400 for the missing url", async () => {
    const res = await h.request("/v2/scrape", { method: "POST", json: { alexandria: { provider: "firecrawl", capability: "find-tools", options: {} }, origin: "mcp-fastmcp" } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe("EXCHANGE_NOT_ENABLED");
  });
});
