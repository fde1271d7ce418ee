/**
 * `agent-browser close` in a script ends its session as `DELETE` does, and now says, as `DELETE` does, whether the
 * session's profile was saved (`profileSaved` in the script's answer): before, a script that closed a session with
 * a profile to save was not told, so a client keeping a persistent profile had to close by DELETE to know. A session
 * without a profile to save (none, or `saveChanges: false`) has no such field, as DELETE's answer has none.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeAndAssertNoChromium } from "../browser/helpers.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let site: ReturnType<typeof Bun.serve>;
let h: Harness;
let base: string;

const html = (body: string, headers: Record<string, string> = {}) => new Response(body, { headers: { "content-type": "text/html", ...headers } });

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const url = new URL(req.url);
      if (url.pathname === "/setcookie") return html(`<html><head><title>Set</title></head><body><p>Cookie set</p></body></html>`, { "set-cookie": `sid=${url.searchParams.get("v")}; Path=/` });
      return html(`<html><head><title>Show</title></head><body><p id="c">${req.headers.get("cookie") ?? "nobody"}</p></body></html>`);
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  h = await createHarness({ browserConcurrency: 4 });
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  site.stop(true);
});

const open = async (json: Record<string, unknown> = {}) => ((await (await h.request("/v2/browser", { method: "POST", json })).json()) as any).id as string;
const run = async (id: string, code: string) => ((await (await h.request(`/v2/browser/${id}/execute`, { method: "POST", json: { code, language: "bash" } })).json()) as any);
/** The cookie a new session started from `profile` finds (the session closed by its script). */
const cookieSeenBy = async (profile: string) => {
  const id = await open({ profile: { name: profile, saveChanges: false } });
  const out = await run(id, `agent-browser open ${base}/show && agent-browser get text '#c' && agent-browser close`);
  return out.stdout.trim().split("\n").at(-2);
};

describe("agent-browser close says whether the session's profile was saved", () => {
  test("a profile session closed by its script: profileSaved true, the session ended, the next one finds what it changed; none without a profile to save", async () => {
    const id = await open({ profile: { name: "closed-by-script" } });
    const out = await run(id, `agent-browser open ${base}/setcookie?v=BYSCRIPT && agent-browser close`);
    expect(out).toMatchObject({ success: true, exitCode: 0, killed: false, profileSaved: true });
    expect(out.stdout.trim().split("\n").at(-1)).toBe("✓ Browser closed");
    // Ended, as DELETE ends it: its DELETE is then a 410.
    expect((await h.request(`/v2/browser/${id}`, { method: "DELETE" })).status).toBe(410);
    expect(await cookieSeenBy("closed-by-script")).toBe("sid=BYSCRIPT");
    // No profile, or one not to save (saveChanges: false), or a script that does not close: no profileSaved.
    for (const json of [{}, { profile: { name: "readonly", saveChanges: false } }]) {
      const closed = await run(await open(json), "agent-browser close");
      expect(closed).toMatchObject({ success: true, exitCode: 0, stdout: "✓ Browser closed\n" });
      expect(closed.profileSaved).toBeUndefined();
    }
    const open2 = await open({ profile: { name: "still-open" } });
    const ran = await run(open2, `agent-browser open ${base}/setcookie?v=OPEN`);
    expect(ran).toMatchObject({ success: true, exitCode: 0 });
    expect(ran.profileSaved).toBeUndefined();
    expect(((await (await h.request(`/v2/browser/${open2}`, { method: "DELETE" })).json()) as any).profileSaved).toBe(true);
  }, 60_000);

  test("a scrape's session attached from a standalone one (existingSessionId), closed by its script: profileSaved too", async () => {
    const id = await open({ profile: { name: "attached-close" } });
    expect(await run(id, `agent-browser open ${base}/setcookie?v=ATTACHED`)).toMatchObject({ exitCode: 0 });
    const scrapeId = ((await (await h.request("/v2/scrape", { method: "POST", json: { url: `${base}/show`, formats: ["markdown"], maxAge: 0 } })).json()) as any).data.metadata.scrapeId as string;
    const res = await h.request(`/v2/scrape/${scrapeId}/interact`, { method: "POST", json: { code: "agent-browser close", language: "bash", existingSessionId: id } });
    expect(await res.json()).toMatchObject({ success: true, exitCode: 0, stdout: "✓ Browser closed\n", profileSaved: true });
    expect(await cookieSeenBy("attached-close")).toBe("sid=ATTACHED");
  }, 60_000);
});
