/**
 * A meta refresh or `Refresh` header to another page, on a server without a browser (engines/refresh-hops.ts): the
 * document is the target's, as a browser gives it. It was the stub ("This page has moved") with a warning that the
 * page needs JavaScript. Loops and long chains stop with a warning; the client's headers go only to their origin.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";

const html = (body: string, head = "") => new Response(`<html><head>${head}</head><body>${body}</body></html>`, { headers: { "content-type": "text/html" } });
const refresh = (to: string) => `<meta http-equiv="refresh" content="0; url=${to}">`;
const seenHeaders: Record<string, string | null> = {};

let site: ReturnType<typeof Bun.serve>;
let other: ReturnType<typeof Bun.serve>;
let h: Harness;

beforeAll(async () => {
  other = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      seenHeaders.other = req.headers.get("x-secret");
      return html("<h1>Elsewhere</h1><p>The page on the other origin, reached by a refresh.</p>");
    },
  });
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const p = new URL(req.url).pathname;
      if (p === "/old") return html("<p>This page has moved.</p>", refresh("/new"));
      if (p === "/new") {
        seenHeaders.new = req.headers.get("x-secret");
        return html("<h1>New home</h1><p>The article text lives here now, long enough to be the page's content.</p>");
      }
      if (p === "/header") return new Response("<html><body>Moved.</body></html>", { headers: { "content-type": "text/html", refresh: "0;url=/new" } });
      if (p === "/loop-a") return html("<p>A</p>", refresh("/loop-b"));
      if (p === "/loop-b") return html("<p>B</p>", refresh("/loop-a"));
      if (p.startsWith("/chain/")) return html(`<p>${p}</p>`, refresh(`/chain/${Number(p.slice(7)) + 1}`));
      if (p === "/away") return html("<p>Moved away.</p>", refresh(`http://127.0.0.1:${other.port}/landing`));
      if (p === "/later") return html("<p>Read this first.</p>", '<meta http-equiv="refresh" content="30; url=/new">');
      if (p === "/noscript") return html("<main><h1>Real article</h1><p>The article as served, readable without scripts.</p></main>", '<noscript><meta http-equiv="refresh" content="0; url=/new"></noscript>');
      if (p === "/commented") return html("<main><h1>Real article</h1><p>The article as served.</p></main>", '<!-- <meta http-equiv="refresh" content="0; url=/new"> -->');
      if (p === "/dead-end") return html("<p>Moved to a host that is down.</p>", refresh("http://127.0.0.1:9/gone"));
      if (p === "/slow-target") return html("<p>Moved to a slow page.</p>", refresh("/slow"));
      if (p === "/slow") return Bun.sleep(5_000).then(() => html("<p>late</p>"));
      return new Response("not found", { status: 404 });
    },
  });
  h = await createHarness({ browserEnabled: false });
});
afterAll(async () => {
  await h.close();
  site.stop(true);
  other.stop(true);
});

const scrape = async (path: string, extra: Record<string, unknown> = {}) => {
  const res = await h.request("/v2/scrape", { method: "POST", json: { url: `http://127.0.0.1:${site.port}${path}`, maxAge: 0, ...extra } });
  expect(res.status).toBe(200);
  return ((await res.json()) as any).data;
};

describe("refreshes without a browser", () => {
  test("a meta refresh and a Refresh header: the target's document, its address in metadata.url", async () => {
    for (const path of ["/old", "/header"]) {
      const data = await scrape(path);
      expect(data.markdown).toContain("# New home");
      expect(data.metadata.url).toBe(`http://127.0.0.1:${site.port}/new`);
      expect(data.metadata.sourceURL).toBe(`http://127.0.0.1:${site.port}${path}`);
      expect(data.warning).toBeUndefined();
    }
  });

  test("a refresh after 30 s is no redirect: the page itself", async () => {
    const data = await scrape("/later");
    expect(data.markdown).toContain("Read this first.");
  });

  test("a loop and a chain of more than 5 stop at the page reached, with a warning naming the target", async () => {
    const loop = await scrape("/loop-a");
    expect(loop.markdown).toContain("B");
    expect(loop.warning).toContain(`/loop-a`);
    expect(loop.warning).toContain("already visited");
    const chain = await scrape("/chain/0");
    expect(chain.metadata.url).toBe(`http://127.0.0.1:${site.port}/chain/5`);
    expect(chain.warning).toContain("more than 5 refreshes");
  });

  test("a refresh in <noscript> or a comment is not live: the page itself, as a browser with scripts shows it", async () => {
    for (const path of ["/noscript", "/commented"]) {
      const data = await scrape(path);
      expect(data.markdown).toContain("# Real article");
      expect(data.metadata.url).toBe(`http://127.0.0.1:${site.port}${path}`);
    }
  });

  test("a target that cannot be fetched leaves the page asked for, with a warning (not an error naming the target)", async () => {
    const dead = await scrape("/dead-end");
    expect(dead.markdown).toContain("Moved to a host that is down.");
    expect(dead.warning).toContain("http://127.0.0.1:9/gone");
    expect(dead.warning).toContain("fetching it failed");
    const started = performance.now();
    const slow = await scrape("/slow-target", { timeout: 1500 });
    expect(performance.now() - started).toBeLessThan(4_000);
    expect(slow.markdown).toContain("Moved to a slow page.");
    expect(slow.warning).toContain("/slow");
  });

  test("the client's headers go to their own origin only", async () => {
    await scrape("/old", { headers: { "x-secret": "s3" } });
    expect(seenHeaders.new).toBe("s3");
    const away = await scrape("/away", { headers: { "x-secret": "s3" } });
    expect(away.markdown).toContain("Elsewhere");
    expect(seenHeaders.other).toBeNull();
  });
});
