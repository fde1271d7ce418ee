/**
 * A webhook URL with a user and password: delivered as upstream's axios delivers it, with `Authorization: Basic` and
 * without them in the URL (src/api/webhook.ts withoutCredentials). Before, the job was accepted and every event failed
 * at the egress gate, with the password in each delivery record's `lastError`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { normalizeWebhook } from "../../src/api/webhook.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startReceiver, type Receiver } from "./helpers.ts";

let h: Harness;
let rx: Receiver;
let site: ReturnType<typeof Bun.serve>;
beforeAll(async () => {
  h = await createHarness({ allowPrivateWebhooks: false });
  rx = startReceiver();
  site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("<html><body><h1>Hi</h1><p>A page.</p></body></html>", { headers: { "content-type": "text/html" } }) });
});
afterAll(async () => {
  await h.close();
  rx.stop();
  site.stop(true);
});

describe("webhook URL credentials", () => {
  test("events reach the receiver with Basic auth; no delivery record shows the password", async () => {
    const hook = rx.url.replace("http://", "http://hook-user:s%40cret@") + "/creds";
    const res = await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`http://127.0.0.1:${site.port}/`], webhook: { url: hook, headers: { authorization: "Bearer replaced" } } } });
    const { id } = (await res.json()) as { id: string };
    const deadline = Date.now() + 20_000;
    while (rx.to("/creds").length < 3 && Date.now() < deadline) await Bun.sleep(25);
    const got = rx.to("/creds");
    expect(got.map((r) => JSON.parse(r.body).type)).toEqual(["batch_scrape.started", "batch_scrape.page", "batch_scrape.completed"]);
    for (const r of got) expect(r.headers.get("authorization")).toBe(`Basic ${btoa("hook-user:s@cret")}`);
    const deliveries = JSON.stringify(await (await h.request(`/v2/webhooks/deliveries?jobId=${id}`)).json());
    expect(deliveries).toContain(`"url":"${rx.url}/creds"`);
    expect(deliveries).not.toContain("s%40cret");
    expect(deliveries).not.toContain("hook-user");
  });

  test("normalised: the URL loses its user and password, which become the Authorization header (bad escapes kept as written)", () => {
    const { webhook } = normalizeWebhook({ url: "https://a:b@hooks.example.com/x?y=1", headers: { "X-Other": "1" } }, ["completed"], ["webhook"]);
    expect(webhook).toMatchObject({ url: "https://hooks.example.com/x?y=1", headers: { "X-Other": "1", Authorization: `Basic ${btoa("a:b")}` } });
    expect(normalizeWebhook("https://only-user@hooks.example.com/", ["completed"], ["webhook"]).webhook?.headers).toEqual({ Authorization: `Basic ${btoa("only-user:")}` });
    expect(normalizeWebhook("https://u:%zz@hooks.example.com/", ["completed"], ["webhook"]).webhook?.headers).toEqual({ Authorization: `Basic ${btoa("u:%zz")}` });
    expect(normalizeWebhook("https://hooks.example.com/", ["completed"], ["webhook"]).webhook).toMatchObject({ url: "https://hooks.example.com/", headers: {} });
  });
});
