/**
 * What becomes changeTracking's baseline: a transient error answer (503 maintenance page, 429, a 403 bot wall) is
 * compared but not recorded, so the page's return is not a second false `changed`; and with `redactPII` a snapshot
 * stored redacted is compared as it is, not sent to the model again on every scrape.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
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

describe("transient error answers are not the baseline", () => {
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
