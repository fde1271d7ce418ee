/**
 * A client that disconnects while its scrape runs stops the scrape, and the stop is not an "unhandled error" with an
 * exception id in the operator's log (it was, for every such disconnect): it is answered, to nobody, as 499
 * CLIENT_CLOSED_REQUEST and logged at debug.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Logger } from "../../src/log.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

const lines: { level: string; msg: string }[] = [];
const log: Logger = {
  debug: (msg) => void lines.push({ level: "debug", msg }),
  info: (msg) => void lines.push({ level: "info", msg }),
  warn: (msg) => void lines.push({ level: "warn", msg }),
  error: (msg) => void lines.push({ level: "error", msg }),
};

let h: Harness;
let site: ReturnType<typeof Bun.serve>;
let hits = 0;
beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch() {
      hits++;
      await Bun.sleep(5_000);
      return new Response("<p>late</p>", { headers: { "content-type": "text/html" } });
    },
  });
  h = await createHarness({}, { log });
});
afterAll(async () => {
  await h.close();
  site.stop(true);
});

test("a scrape whose client went away is stopped without an unhandled-error log line", async () => {
  const base = h.listen();
  const client = new AbortController();
  const pending = fetch(`${base}/v2/scrape`, {
    method: "POST",
    headers: { authorization: `Bearer ${h.key}`, "content-type": "application/json" },
    body: JSON.stringify({ url: `http://127.0.0.1:${site.port}/slow`, timeout: 30_000 }),
    signal: client.signal,
  }).catch(() => undefined);
  for (let i = 0; i < 100 && hits === 0; i++) await Bun.sleep(20);
  expect(hits).toBe(1);
  client.abort();
  await pending;
  // The server sees the disconnect, aborts the scrape, and maps what it threw.
  for (let i = 0; i < 100 && !lines.some((l) => l.msg.includes("client went away")); i++) await Bun.sleep(20);
  expect(lines.filter((l) => l.level === "error")).toEqual([]);
  expect(lines.some((l) => l.level === "debug" && l.msg.includes("client went away"))).toBe(true);
});
