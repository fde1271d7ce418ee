/**
 * What changeTracking compares with: an error answer (503 maintenance page, 429, a 403 bot wall) is stored as an error
 * answer, compared with the latest answer when that was an error too, while a good answer is compared with the last
 * good version; so an outage is one `changed` and the page's return as it was is `same`. With `redactPII` a snapshot
 * stored redacted (with the same options and model) is compared as it is, not sent to the model again on every
 * scrape. And the two modes share one line diff.
 */
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { isErrorAnswerStatus, isRemovedStatus } from "../../src/change-tracking/answer-status.ts";
import { MAX_SNAPSHOTS_PER_URL } from "../../src/change-tracking/history.ts";
import * as lineDiff from "../../src/change-tracking/line-diff.ts";
import { isRetryableStatus } from "../../src/jobs/retry-policy.ts";
import { redactionKey } from "../../plugins/formats/change-tracking.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";
import { page, startPageSite, type PageSite } from "./pages.ts";

let site: PageSite;
let llm: FakeLlm;
let h: Harness;

beforeAll(async () => {
  site = startPageSite();
  llm = startFakeLlm();
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model" });
});
afterAll(async () => {
  await h.close();
  site.stop();
  llm.stop();
});

const scrape = async (path: string, extra: Record<string, unknown> = {}) => {
  const formats = ["markdown", { type: "changeTracking", modes: ["git-diff"] }];
  const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}${path}`, formats, ...extra } });
  expect(res.status).toBe(200);
  return ((await res.json()) as any).data;
};

describe("error answers are kept apart from the page's versions", () => {
  for (const status of [503, 403, 429]) {
    test(`200 → ${status} → 200: changed (with a warning) then same, not changed twice`, async () => {
      const path = `/maint-${status}`;
      site.set(path, page("Shop", "The shop sells kettles and toasters."));
      expect((await scrape(path)).changeTracking.changeStatus).toBe("new");
      const ok = await scrape(path);
      expect(ok.changeTracking.changeStatus).toBe("same");
      const lastGood = ok.changeTracking.previousScrapeAt;

      site.set(path, page("Maintenance", "We are down for maintenance."), status);
      const down = await scrape(path);
      expect(down.metadata.statusCode).toBe(status);
      expect(down.changeTracking.changeStatus).toBe("changed");
      expect(down.changeTracking.diff.text).toContain("+We are down for maintenance.");

      site.set(path, page("Shop", "The shop sells kettles and toasters."));
      const back = await scrape(path);
      expect(back.changeTracking.changeStatus).toBe("same");
      expect(Date.parse(back.changeTracking.previousScrapeAt)).toBeGreaterThan(Date.parse(lastGood));
      expect(back.warning).toBeUndefined();
      expect(String(down.warning)).toContain(`The page answered HTTP ${status}`);
      expect(String(down.warning)).toContain("compares with the last version that was not an error");
    });
  }

  test("200, 503, 503, 503, 200: new, changed, same, same, same (was new, changed, changed, changed, same)", async () => {
    const shop = page("Shop", "The shop sells kettles.");
    const down = page("Maintenance", "We are down for maintenance.");
    const statuses: string[] = [];
    const answers: [string, number][] = [[shop, 200], [down, 503], [down, 503], [down, 503], [shop, 200]];
    const data: any[] = [];
    for (const [html, status] of answers) {
      site.set("/outage", html, status);
      const d = await scrape("/outage");
      data.push(d);
      statuses.push(d.changeTracking.changeStatus);
    }
    expect(statuses).toEqual(["new", "changed", "same", "same", "same"]);
    // Each error answer is compared with the one before it; the return with the last good version, the first scrape.
    const previousAt = data.map((d) => Date.parse(d.changeTracking.previousScrapeAt ?? "0"));
    expect(previousAt[2]).toBeGreaterThan(previousAt[1]!);
    expect(previousAt[3]).toBeGreaterThan(previousAt[2]!);
    expect(previousAt[4]).toBe(previousAt[1]!);
    for (const d of data.slice(1, 4)) expect(d.warning).toContain("The page answered HTTP 503: changeTracking keeps this answer as an error answer");
    expect(data[4].warning).toBeUndefined();
  });

  test("a page that always answers 403 is new, then same; one that moves behind a 401 for good is changed once", async () => {
    site.set("/walled", page("Access denied", "Please verify you are human."), 403);
    expect([await scrape("/walled"), await scrape("/walled"), await scrape("/walled")].map((d) => d.changeTracking.changeStatus)).toEqual(["new", "same", "same"]);
    site.set("/members", page("Members", "The members' news."));
    await scrape("/members");
    site.set("/members", page("Sign in", "Sign in to read the members' news."), 401);
    expect([await scrape("/members"), await scrape("/members"), await scrape("/members")].map((d) => d.changeTracking.changeStatus)).toEqual(["changed", "same", "same"]);
    // The page the gate was hiding, back as it was: compared with the last good version.
    site.set("/members", page("Members", "The members' news."));
    expect((await scrape("/members")).changeTracking.changeStatus).toBe("same");
  });

  test("error pages that carry a ray id and the time: an outage is one change (each check was one)", async () => {
    site.set("/ray", page("Shop", "Kettles."));
    await scrape("/ray");
    const statuses: string[] = [];
    for (let i = 0; i < 3; i++) {
      site.set("/ray", page("Error 522", `Connection timed out. Ray ID: 8c1f${i}a2b. ${new Date(Date.UTC(2026, 10, 24, 20, i)).toISOString()}`), 522);
      statuses.push((await scrape("/ray")).changeTracking.changeStatus);
    }
    site.set("/ray", page("Shop", "Kettles."));
    statuses.push((await scrape("/ray")).changeTracking.changeStatus);
    expect(statuses).toEqual(["changed", "same", "same", "same"]);
  });

  test("another error page during an outage is a change; a good answer with only error answers before is compared with the latest", async () => {
    site.set("/errs", page("Shop", "Kettles."));
    await scrape("/errs");
    site.set("/errs", page("Maintenance", "Back at noon."), 503);
    expect((await scrape("/errs")).changeTracking.changeStatus).toBe("changed");
    site.set("/errs", page("Bad gateway", "The upstream server failed."), 502);
    expect((await scrape("/errs")).changeTracking.changeStatus).toBe("changed");
    site.set("/errs", page("Shop", "Kettles."));
    expect((await scrape("/errs")).changeTracking.changeStatus).toBe("same");

    site.set("/late", page("Wall", "Checking your browser."), 403);
    await scrape("/late");
    site.set("/late", page("Late", "The page at last."));
    const late = await scrape("/late");
    expect(late.changeTracking.changeStatus).toBe("changed");
    expect(late.changeTracking.diff.text).toContain("+The page at last.");
  });

  test("a 5xx carrying the page's real content: an error answer, compared with the last good version (same when it is it); another status by its text", async () => {
    const v1 = page("Shop", "Kettles cost 20 USD.");
    const v2 = page("Shop", "Kettles cost 25 USD.");
    const seen: string[] = [];
    const diffs: (string | undefined)[] = [];
    for (const [html, status] of [[v1, 200], [v1, 500], [v2, 500], [v2, 502], [v2, 200]] as const) {
      site.set("/real-500", html, status);
      const d = await scrape("/real-500");
      expect(d.metadata.statusCode).toBe(status);
      seen.push(d.changeTracking.changeStatus);
      diffs.push(d.changeTracking.diff?.text);
    }
    // The page served with a 500 as it was is no change; its change while the 500 lasts (same status: same whatever
    // its text) is reported when it answers without an error, from the last good version. A 502 after the 500 is
    // compared by its text with it (docs/llm.md said "changed" for any other status).
    expect(seen).toEqual(["new", "same", "same", "same", "changed"]);
    expect(diffs[4]).toContain("-Kettles cost 20 USD.");
    expect(diffs[4]).toContain("+Kettles cost 25 USD.");

    site.set("/real-500b", v1);
    await scrape("/real-500b");
    site.set("/real-500b", v2, 500);
    const changed = await scrape("/real-500b");
    expect(changed.changeTracking.changeStatus).toBe("changed");
    expect(changed.changeTracking.diff.text).toContain("+Kettles cost 25 USD.");
    expect(changed.warning).toContain("The page answered HTTP 500");
    // What docs/llm.md says of it agrees.
    const doc = await Bun.file(new URL("../../docs/llm.md", import.meta.url)).text();
    expect(doc).not.toContain("another status is `changed`");
    expect(doc).toContain("A 5xx that carries the page's real content");
  });

  test(`an outage longer than the ${MAX_SNAPSHOTS_PER_URL} snapshots kept: the last good version is kept, the return is same`, async () => {
    site.set("/long-outage", page("Shop", "The shop sells toasters."));
    await scrape("/long-outage");
    site.set("/long-outage", page("Maintenance", "Still down."), 503);
    for (let i = 0; i < MAX_SNAPSHOTS_PER_URL + 2; i++) await scrape("/long-outage");
    const rows = () => h.services.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM change_snapshots WHERE url = ?").get(`${site.url}/long-outage`)!.n;
    // The latest 20 error answers, and the good version before them.
    expect(rows()).toBe(MAX_SNAPSHOTS_PER_URL + 1);
    site.set("/long-outage", page("Shop", "The shop sells toasters."));
    expect((await scrape("/long-outage")).changeTracking.changeStatus).toBe("same");
    expect(rows()).toBe(MAX_SNAPSHOTS_PER_URL);
  });

  test("a 404 is an answer about the page: removed, and kept (its return is a change)", async () => {
    site.set("/gone-then-back", page("Page", "Here today."));
    await scrape("/gone-then-back");
    site.set("/gone-then-back", page("Gone"), 404);
    const gone = await scrape("/gone-then-back");
    expect(gone.changeTracking.changeStatus).toBe("removed");
    expect(gone.warning).toBeUndefined();
    site.set("/gone-then-back", page("Page", "Here today."));
    expect((await scrape("/gone-then-back")).changeTracking.changeStatus).toBe("changed");
  });
});

describe("redactPII: a snapshot stored redacted is not redacted again", () => {
  test("one model call per scrape (was 1, 2, 2), and a model redacting its own output differently is no change", async () => {
    site.set("/person", page("Contact", "Ada Lovelace answers questions about the engine.", "Visit 12 Baker Street any day."));
    llm.reset();
    // The model finds the name in the page; in text already redacted it also (wrongly) picks the street: redacting
    // the stored copy again would make it differ from the current one.
    llm.respond = (req) => {
      const text = req.messages.map((m) => m.content).join("\n");
      const spans = [{ text: "Ada Lovelace", type: "PERSON" }];
      if (text.includes("<PERSON>")) spans.push({ text: "12 Baker Street", type: "LOCATION" });
      return { content: JSON.stringify({ spans }) };
    };
    const chats = () => llm.requests.filter((r) => r.messages.length > 0).length;
    const extra = { redactPII: { mode: "accurate" } };
    const counts: number[] = [];
    const statuses: string[] = [];
    for (let i = 0; i < 3; i++) {
      const before = chats();
      const d = await scrape("/person", extra);
      counts.push(chats() - before);
      statuses.push(d.changeTracking.changeStatus);
      expect(d.markdown).toContain("<PERSON> answers");
    }
    expect(counts).toEqual([1, 1, 1]);
    expect(statuses).toEqual(["new", "same", "same"]);
  });

  test("a snapshot redacted with other options is redacted again with this scrape's (it may hold what these redact)", async () => {
    site.set("/mixed", page("Team", "Write to team@example.org or call +44 20 7946 0958."));
    await scrape("/mixed", { redactPII: { mode: "fast", entities: ["EMAIL"] } });
    site.set("/mixed", page("Team", "Write to team@example.org or call +44 20 7946 0958 today."));
    const d = await scrape("/mixed", { redactPII: { mode: "fast" } });
    expect(d.changeTracking.changeStatus).toBe("changed");
    expect(JSON.stringify(d.changeTracking)).not.toContain("7946");
  });
});

describe("one predicate per meaning", () => {
  test("removed, error answers and retries: the statuses they meant before", () => {
    for (let status = 100; status < 700; status++) {
      expect(isRemovedStatus(status)).toBe(status === 404 || status === 410);
      expect(isErrorAnswerStatus(status)).toBe(status === 401 || status === 403 || status === 408 || status === 429 || (status >= 500 && status <= 599));
      expect(isRetryableStatus(status)).toBe(status === 408 || status === 429 || status >= 500);
    }
  });

  test("the redaction key names the model for the modes that use one (a MODEL_NAME change redacts again)", () => {
    const accurate = { mode: "accurate" as const, entities: ["PERSON" as const, "EMAIL" as const], replaceStyle: "tag" as const };
    expect(redactionKey(accurate, "model-a")).not.toBe(redactionKey(accurate, "model-b"));
    expect(redactionKey(accurate, "model-a")).toBe(redactionKey({ ...accurate, entities: ["EMAIL", "PERSON"] }, "model-a"));
    const fast = { ...accurate, mode: "fast" as const };
    expect(redactionKey(fast, "model-a")).toBe(redactionKey(fast, "model-b"));
  });
});

describe("the two modes share one line diff", () => {
  test("git-diff and json (no schema) on a long page: the diff runs once (it ran once per mode: 1.2 s stalls instead of 0.63 s)", async () => {
    llm.reset();
    llm.respond = () => ({ content: '{"changes":[],"summary":"Item 250 changed."}' });
    const items = (changed: string) => Array.from({ length: 300 }, (_, i) => `Item ${i}: ${i === 250 ? changed : "an unchanged line of the long catalogue page"}.`);
    const formats = ["markdown", { type: "changeTracking", modes: ["git-diff", "json"], tag: "shared" }];
    const run = async () => {
      const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/catalogue`, formats } });
      return ((await res.json()) as any).data;
    };
    site.set("/catalogue", page("Catalogue", ...items("the old description")));
    await run();
    site.set("/catalogue", page("Catalogue", ...items("the new description")));
    const spy = spyOn(lineDiff, "lineEdits");
    try {
      const d = await run();
      expect(d.changeTracking.diff.text).toContain("+Item 250: the new description.");
      expect(d.changeTracking.json.summary).toBe("Item 250 changed.");
      expect(llm.chats().at(-1)!.messages[1]!.content).toContain("excerpts");
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });
});
