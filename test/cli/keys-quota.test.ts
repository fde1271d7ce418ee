/**
 * `crawlbox keys quota <id> --quota N`: the operator grants a key more credits (the quota is a lifetime total, so
 * raising it is the only way), on the data folder of a running server, which honours it at the key's next request.
 * There was no such command: the 402's advice ("raise the quota") could only be followed by editing the database.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { parseArgs, UsageError } from "../../src/cli/args.ts";
import { runKeys } from "../../src/cli/keys.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let h: Harness;
let site: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("<main><h1>Hi</h1><p>Text.</p></main>", { headers: { "content-type": "text/html" } }) });
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
  site.stop(true);
});

const keys = async (...argv: string[]) => {
  const printed: string[] = [];
  const code = await runKeys(h.services.config, parseArgs(["keys", ...argv]), (s) => printed.push(s));
  return { code, printed };
};

test("keys quota raises a key's quota for the running server; 0 makes it unlimited; usage is kept", async () => {
  const { key, record } = h.services.keys.create("one credit", 1);
  const scrape = async () => (await h.request("/v2/scrape", { method: "POST", auth: key, json: { url: `http://127.0.0.1:${site.port}/`, maxAge: 0 } })).status;
  expect(await scrape()).toBe(200);
  const refused = (await (await h.request("/v2/scrape", { method: "POST", auth: key, json: { url: `http://127.0.0.1:${site.port}/`, maxAge: 0 } })).json()) as any;
  expect(refused.code).toBe("INSUFFICIENT_CREDITS");
  expect(refused.error).toContain(`crawlbox keys quota <key_id> --quota <credits>`);

  expect(await keys("quota", record.id, "--quota", "3")).toEqual({ code: 0, printed: [`${record.id}: quota 3 credits`] });
  expect(await scrape()).toBe(200);
  const usage = (await (await h.request("/v2/team/credit-usage", { auth: key })).json()) as any;
  expect(usage.data.remainingCredits).toBe(1);

  expect((await keys("quota", record.id, "--quota", "0")).printed).toEqual([`${record.id}: quota unlimited`]);
  expect([await scrape(), await scrape(), await scrape()]).toEqual([200, 200, 200]);
  expect((await keys("list")).printed.find((l) => l.startsWith(record.id))).toEndWith("\t0");
});

test("keys quota needs an id and --quota; an unknown or revoked key is exit 1", async () => {
  await expect(keys("quota", "--quota", "5")).rejects.toBeInstanceOf(UsageError);
  await expect(keys("quota", "key_x")).rejects.toThrow("keys quota needs --quota <credits> (0 = unlimited)");
  await expect(keys("quota", "key_x", "--quota", "-1")).rejects.toThrow("--quota must be a whole number");
  expect((await keys("quota", "key_000000000000", "--quota", "5")).code).toBe(1);
  const { record } = h.services.keys.create("gone");
  h.services.keys.revoke(record.id);
  expect((await keys("quota", record.id, "--quota", "5")).code).toBe(1);
});
