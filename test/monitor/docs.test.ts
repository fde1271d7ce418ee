/**
 * docs/monitor.md says what the routes answer: the `Monitor` and check-page shapes it gives have the fields a real
 * answer has, none written as a constant (`previousScrapeId: null`) that the server in fact fills, and no section
 * claims a field the server fills is always null.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createHarness, type Harness } from "../helpers/harness.ts";

const doc = readFileSync(join(import.meta.dir, "../../docs/monitor.md"), "utf8").replace(/\s*\n\s*/g, " ");
let site: ReturnType<typeof Bun.serve>;
let h: Harness;

beforeAll(async () => {
  site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("<html><body><main><p>A page.</p></main></body></html>", { headers: { "content-type": "text/html" } }) });
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
  site.stop(true);
});

/** The top-level fields of the shape the doc gives after `label` (`{a, b: {c}, d?}` → a, b: {c}, d?). */
function shape(label: string): string[] {
  const at = doc.indexOf(label);
  expect(at).toBeGreaterThanOrEqual(0);
  const open = doc.indexOf("`{", at) + 1;
  const fields: string[] = [];
  let depth = 0;
  let field = "";
  for (const ch of doc.slice(open)) {
    if (ch === "{") depth++;
    if (ch === "}") depth--;
    if (depth === 0) break;
    if (ch === "," && depth === 1) {
      fields.push(field.trim());
      field = "";
    } else if (!(ch === "{" && depth === 1)) field += ch;
  }
  fields.push(field.trim());
  return fields;
}

const names = (fields: string[]) => fields.map((f) => f.replace(/[?:].*$/, "").trim());

describe("docs/monitor.md", () => {
  test("the Monitor and page shapes are the answers' fields, none given as a constant null", async () => {
    const json = async (path: string, init?: Parameters<Harness["request"]>[1]) => ((await (await h.request(path, init)).json()) as any).data;
    const m = await json("/v2/monitor", { method: "POST", json: { name: "doc", schedule: { text: "daily" }, targets: [{ type: "scrape", urls: [`http://127.0.0.1:${site.port}/a`] }] } });
    const started = await json(`/v2/monitor/${m.id}/run`, { method: "POST", json: {} });
    let check: any;
    for (let i = 0; i < 400 && (!check || ["queued", "running"].includes(check.status)); i++) {
      check = await json(`/v2/monitor/${m.id}/checks/${started.id}`);
      await Bun.sleep(25);
    }

    const monitorShape = shape("A `Monitor`:");
    const optional = new Set(monitorShape.filter((f) => /^\w+\?/.test(f)).map((f) => f.replace(/\?.*$/, "")));
    expect(names(monitorShape).filter((f) => !optional.has(f)).sort()).toEqual(Object.keys(m).filter((k) => !optional.has(k)).sort());
    const pageShape = shape("A page of a check:");
    expect(names(pageShape).sort()).toEqual(Object.keys(check.pages[0]).sort());
    for (const f of [...monitorShape, ...pageShape]) expect(f).not.toMatch(/:\s*null$/);
    await h.request(`/v2/monitor/${m.id}`, { method: "DELETE" });
  });

  test("no section says previousScrapeId or snapshot is always null (the server fills both)", () => {
    expect(doc).not.toMatch(/`previousScrapeId` and `snapshot` are always `null`/);
    expect(doc).toMatch(/`previousScrapeId` \(the earlier check's scrape\s+of the same URL in the same target that its change tracking compared with/);
  });

  test("it says a page whose diff shows no hunk is not judged, and that previousScrapeId matches URLs without their fragment", () => {
    expect(doc).toContain("A changed page whose diff shows no hunk");
    expect(doc).toContain("is not judged: `judgment` is `null`, and the model is not called.");
    expect(doc).toContain("URLs are the same page there without their `#fragment`");
  });
});
