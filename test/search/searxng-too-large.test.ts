/**
 * A SearXNG answer over the 4 MiB read cap (src/search/searxng.ts) is reported as too large, not as a backend that
 * could not be reached: the operator looks at the answer's size, not at the network.
 */
import { expect, test } from "bun:test";
import { createSearxngBackend } from "../../src/search/searxng.ts";

test("an answer over 4 MiB says the backend answered too much (same SEARCH_BACKEND_ERROR)", async () => {
  const big = JSON.stringify({ results: [{ url: "https://a.test/", title: "t", content: "x".repeat(5 * 1024 * 1024) }] });
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(big, { headers: { "content-type": "application/json" } }) });
  try {
    const logged: unknown[] = [];
    const backend = createSearxngBackend({ endpoint: `http://127.0.0.1:${server.port}`, engines: "", categories: "", log: (message, fields) => logged.push({ message, fields }) });
    const err = await backend.search({ query: "x", category: "general", limit: 5 }).then(() => undefined, (e) => e);
    expect(err).toMatchObject({ code: "SEARCH_BACKEND_ERROR", status: 500 });
    expect(err.message).toContain("more than 4194304 bytes");
    expect(err.message).not.toContain("could not be reached");
    expect(logged.length).toBe(1);
  } finally {
    server.stop(true);
  }
});
