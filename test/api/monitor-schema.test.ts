/**
 * The monitor body's schema, as the OpenAPI document shows it, says what `parseCreateMonitorBody` enforces: a search
 * target's `maxResults` (1–50, default 10) and `queries` (at most 10), a crawl target's `crawlOptions` (the SDK's
 * CrawlOptions, checked as a crawl body, `limit` at most 100 and 100 by default). And a wrong crawl option is
 * reported under its own path, `targets.<i>.crawlOptions…`, not at the target.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseCreateMonitorBody } from "../../src/api/monitor.ts";
import { DEFAULT_MONITOR_RESULTS, MAX_MONITOR_QUERIES, MAX_MONITOR_RESULTS } from "../../src/api/monitor-targets.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { paths, reject } from "./helpers.ts";

type Schema = { properties?: Record<string, Schema>; anyOf?: Schema[]; items?: Schema; additionalProperties?: unknown; maximum?: number; minimum?: number; maxItems?: number; default?: unknown; const?: unknown };

let h: Harness;
let targetSchemas: Record<string, Schema>;
beforeAll(async () => {
  h = await createHarness();
  const doc = (await (await h.request("/openapi.json", { auth: null })).json()) as any;
  const body = doc.paths["/v2/monitor"].post.requestBody.content["application/json"].schema as Schema;
  targetSchemas = Object.fromEntries(body.properties!.targets!.items!.anyOf!.map((s) => [String(s.properties!.type!.const), s]));
});
afterAll(() => h.close());

const body = (target: Record<string, unknown>) => ({ name: "m", schedule: { cron: "0 * * * *" }, targets: [target] });

describe("search target", () => {
  test("maxResults: documented 1..50, default 10; 50 is accepted, 51 refused at its path", () => {
    expect(targetSchemas.search!.properties!.maxResults).toMatchObject({ minimum: 1, maximum: MAX_MONITOR_RESULTS, default: DEFAULT_MONITOR_RESULTS });
    expect(MAX_MONITOR_RESULTS).toBe(50);
    const ok = parseCreateMonitorBody(body({ type: "search", queries: ["q"], maxResults: 50 }));
    expect(ok.targets[0]).toMatchObject({ maxResults: 50 });
    expect(parseCreateMonitorBody(body({ type: "search", queries: ["q"] })).targets[0]).toMatchObject({ maxResults: 10 });
    const { issues } = reject(parseCreateMonitorBody, body({ type: "search", queries: ["q"], maxResults: 51 }));
    expect(issues).toEqual([expect.objectContaining({ path: ["targets", 0, "maxResults"], message: "A search target reads at most 50 results per query." })]);
  });

  test("queries: documented at most 10, as enforced", () => {
    expect(targetSchemas.search!.properties!.queries).toMatchObject({ minItems: 1, maxItems: MAX_MONITOR_QUERIES });
    const { issues } = reject(parseCreateMonitorBody, body({ type: "search", queries: Array.from({ length: 11 }, (_, i) => `q${i}`) }));
    expect(paths(issues)).toEqual(["targets.0.queries"]);
  });
});

describe("crawl target", () => {
  test("crawlOptions: the SDK's CrawlOptions, checked as a crawl body; limit at most 100 (default 100)", () => {
    expect(targetSchemas.crawl!.properties!.crawlOptions).toMatchObject({ type: "object" });
    expect(parseCreateMonitorBody(body({ type: "crawl", url: "https://example.com", crawlOptions: { limit: 100 } })).targets[0]).toMatchObject({ crawlOptions: { limit: 100 } });
    expect(parseCreateMonitorBody(body({ type: "crawl", url: "https://example.com" })).targets[0]).toMatchObject({ crawlOptions: { limit: 100 } });
    // What the SDK's CrawlOptions type holds besides crawler options is accepted, as a crawl body accepts it; the
    // target's own url is the one crawled.
    const t = parseCreateMonitorBody(body({ type: "crawl", url: "https://example.com", crawlOptions: { limit: 5, maxConcurrency: 2, webhook: "https://hook.example", url: "https://other.example" } })).targets[0];
    expect(t).toMatchObject({ crawlOptions: { limit: 5 } });
    expect((t as { url: string }).url).toStartWith("https://example.com");
  });

  test("a wrong crawl option is reported under targets.0.crawlOptions, not at the target", () => {
    let { issues } = reject(parseCreateMonitorBody, body({ type: "crawl", url: "https://example.com", crawlOptions: { noSuchOption: 1 } }));
    expect(issues).toEqual([expect.objectContaining({ code: "unrecognized_keys", keys: ["noSuchOption"], path: ["targets", 0, "crawlOptions"] })]);
    ({ issues } = reject(parseCreateMonitorBody, body({ type: "crawl", url: "https://example.com", crawlOptions: { limit: 101 } })));
    expect(issues).toEqual(expect.arrayContaining([expect.objectContaining({ path: ["targets", 0, "crawlOptions", "limit"], message: "A monitor's crawl reads at most 100 pages." })]));
    ({ issues } = reject(parseCreateMonitorBody, body({ type: "crawl", url: "https://example.com", crawlOptions: { includePaths: ["(["] } })));
    expect(paths(issues)).toEqual(["targets.0.crawlOptions.includePaths.0"]);
  });
});
