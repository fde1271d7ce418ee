/**
 * A session's navigation to a site the egress gate cannot reach (src/interact/sandbox/navigate.ts), with real Chromium
 * and local servers: bash's `open` and `reload`, and JavaScript's `goto`, fail with the scrape's own message
 * (`Could not connect to … (ECONNREFUSED).`, exit code 1; an Error the code can catch) instead of reporting success
 * on the gate's error page; https's refused tunnel is told in the same words; and after a failed navigation the URL
 * read is the document's whose title is read (Chromium's error page), not the page before it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { closeAndAssertNoChromium } from "../browser/helpers.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

const html = (body: string) => new Response(body, { headers: { "content-type": "text/html" } });
let h: Harness;
let site: ReturnType<typeof Bun.serve>;
let base: string;
/** A port nothing listens on (a server started and stopped). */
let closedPort: number;

beforeAll(async () => {
  site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => html("<html><head><title>First</title></head><body><p>first</p></body></html>") });
  base = `http://127.0.0.1:${site.port}`;
  const gone = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  closedPort = gone.port!;
  gone.stop(true);
  h = await createHarness({ browserConcurrency: 4 });
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  site.stop(true);
});

/** Sessions opened by the tests, closed after each (a key may hold 2 at once). */
const opened: string[] = [];
async function session(): Promise<string> {
  const { id } = (await (await h.request("/v2/browser", { method: "POST", json: {} })).json()) as any;
  opened.push(id);
  return id;
}
afterEach(async () => {
  for (const id of opened.splice(0)) await h.request(`/v2/browser/${id}`, { method: "DELETE" });
});
async function run(id: string, code: string, language: "bash" | "node"): Promise<any> {
  return (await h.request(`/v2/browser/${id}/execute`, { method: "POST", json: { code, language } })).json();
}

describe("a navigation the gate could not make fails as a scrape of its URL does", () => {
  test("bash: open of an http site that refuses connections is an error, and get url / get title read the same page", async () => {
    const id = await session();
    await run(id, `agent-browser open ${base}/`, "bash");
    const refused = `http://127.0.0.1:${closedPort}/`;
    const r = await run(id, `agent-browser open ${refused}`, "bash");
    expect(r).toMatchObject({ exitCode: 1, stdout: "", stderr: `✗ Could not connect to 127.0.0.1:${closedPort} (ECONNREFUSED).\n` });
    const json = await run(id, `agent-browser open ${refused} --json`, "bash");
    expect(JSON.parse(json.stdout)).toEqual({ success: false, error: `Could not connect to 127.0.0.1:${closedPort} (ECONNREFUSED).` });
    // The page shows the gate's answer at that URL: the URL and the title read are that document's.
    expect((await run(id, "agent-browser get url; agent-browser get title --json", "bash")).stdout).toBe(`${refused}\n{"success":true,"data":""}\n`);
  }, 60_000);

  test("bash: https's refused tunnel in the same words; then get url and get title are both Chromium's error page's", async () => {
    const id = await session();
    const r = await run(id, `agent-browser open ${base}/\nagent-browser open https://127.0.0.1:${closedPort}/\nagent-browser get url\nagent-browser get title`, "bash");
    // Before, `get url` still named the page before (puppeteer's URL lags behind the error page) while `get title` read the error page's.
    expect([r.stdout, r.stderr]).toEqual([
      `✓ First\n  ${base}/\nchrome-error://chromewebdata/\n127.0.0.1\n`,
      `✗ Could not connect to 127.0.0.1:${closedPort} (net::ERR_TUNNEL_CONNECTION_FAILED at https://127.0.0.1:${closedPort}/).\n`,
    ]);
  }, 60_000);

  test("bash: reload of a page whose server has gone is the same error", async () => {
    const other = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => html("<title>Soon gone</title>") });
    const port = other.port!;
    const id = await session();
    expect((await run(id, `agent-browser open http://127.0.0.1:${port}/`, "bash")).stdout).toStartWith("✓ Soon gone\n");
    other.stop(true);
    const r = await run(id, "agent-browser reload", "bash");
    expect(r).toMatchObject({ exitCode: 1, stderr: `✗ Could not connect to 127.0.0.1:${port} (ECONNREFUSED).\n` });
  }, 60_000);

  test("JavaScript: goto rejects with the same message; page.url() is then the document's", async () => {
    const id = await session();
    const refused = `http://127.0.0.1:${closedPort}/`;
    const r = await run(
      id,
      `await page.goto("${base}/");\ntry { await page.goto("${refused}"); console.log("no error"); } catch (e) { console.log(e instanceof Error, e.message); }\n` +
        `try { await page.goto("https://127.0.0.1:${closedPort}/"); } catch (e) { console.log(e.message); }\nconsole.log(page.url(), await page.title())`,
      "node",
    );
    expect(r).toMatchObject({ exitCode: 0, stderr: "" });
    expect(r.stdout).toBe(
      `true Could not connect to 127.0.0.1:${closedPort} (ECONNREFUSED).\n` +
        `Could not connect to 127.0.0.1:${closedPort} (net::ERR_TUNNEL_CONNECTION_FAILED at https://127.0.0.1:${closedPort}/).\n` +
        "chrome-error://chromewebdata/ 127.0.0.1\n",
    );
  }, 60_000);
});
