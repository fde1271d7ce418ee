/**
 * Links inside `<iframe src="data:text/html,…">` documents are the page's (src/pipeline/links.ts), as upstream's
 * crawler follows them: in the `links` format and in what a crawl follows; percent-encoded and base64 documents; an
 * iframe inside such a document is not read; a malformed one is skipped.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";

const inner = (path: string, extra = "") => `<html><body><a href="${path}">in iframe</a>${extra}</body></html>`;
const deeper = `<iframe src="data:text/html,${encodeURIComponent(inner("/too-deep"))}"></iframe>`;
const HOME = `<html><body><h1>Home</h1><a href="/plain">plain</a>
<iframe src="data:text/html,${encodeURIComponent(inner("/from-percent", deeper))}"></iframe>
<iframe src="data:text/html;charset=utf-8;base64,${Buffer.from(inner("/from-base64")).toString("base64")}"></iframe>
<iframe src="data:text/html,%E0%A4%A"></iframe><iframe src="/framed"></iframe></body></html>`;

let site: ReturnType<typeof Bun.serve>;
let h: Harness;
let base: string;

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => new Response(new URL(req.url).pathname === "/" ? HOME : `<html><body><p>${new URL(req.url).pathname}</p></body></html>`, { headers: { "content-type": "text/html" } }),
  });
  base = `http://127.0.0.1:${site.port}`;
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
  site.stop(true);
});

describe("data:text/html iframes", () => {
  test("their links are in the links format, resolved against the page", async () => {
    const res = (await (await h.request("/v2/scrape", { method: "POST", json: { url: `${base}/`, formats: ["links"], maxAge: 0 } })).json()) as any;
    expect(res.data.links).toEqual([`${base}/plain`, `${base}/from-percent`, `${base}/from-base64`]);
  });

  test("a crawl follows them", async () => {
    const created = (await (await h.request("/v2/crawl", { method: "POST", json: { url: `${base}/`, limit: 10, sitemap: "skip" } })).json()) as any;
    let status: any;
    for (let i = 0; i < 400 && status?.status !== "completed"; i++) {
      status = await (await h.request(`/v2/crawl/${created.id}`)).json();
      if (status.status !== "completed") await Bun.sleep(25);
    }
    const paths = status.data.map((d: any) => new URL(d.metadata.sourceURL).pathname).sort();
    expect(paths).toEqual(["/", "/from-base64", "/from-percent", "/plain"]);
  });
});
