/**
 * A graceful restart (SIGTERM) does not spend an extract job's attempts: the job the stopping process runs is
 * released with its attempt given back (ExtractStore.releaseOwned), so three restarts while it waits for the model
 * leave it free to complete. Before, every claim counted and the fourth start failed it ("started 3 times").
 * Real `serve` processes on one data directory; a local site and the local fake LLM (Ollama protocol).
 */
import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { type RestartableServer, restartableServer } from "../jobs/restart-helpers.ts";
import { type FakeLlm, startFakeLlm } from "../llm/fake-llm.ts";

const RESTARTS = 3;
const SCHEMA = { type: "object", properties: { price: { type: "number" } }, required: ["price"] };
let server: RestartableServer | undefined;
let site: ReturnType<typeof Bun.serve> | undefined;
let llm: FakeLlm | undefined;
afterEach(async () => {
  await server?.cleanup();
  site?.stop(true);
  llm?.stop();
  server = site = llm = undefined;
});

test("three SIGTERM restarts while an extract job waits for the model: it is resumed each time and completes, with one attempt spent", async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => new Response("<html><body><main><h1>Kettle</h1><p>The kettle costs 25 EUR.</p></main></body></html>", { headers: { "content-type": "text/html" } }),
  });
  llm = startFakeLlm();
  // The model never answers the first RESTARTS calls (each process is stopped while it waits), then answers.
  llm.respond = (_req, i) => (i < RESTARTS ? { delayMs: 600_000 } : { content: JSON.stringify({ price: 25 }) });
  server = restartableServer({ OLLAMA_BASE_URL: llm.url, MODEL_NAME: "test-model" });
  await server.start();
  const created = await server.call("POST", "/v2/extract", { urls: [`http://127.0.0.1:${site.port}/`], prompt: "The kettle's price", schema: SCHEMA });
  expect(created.success).toBe(true);

  for (let restart = 1; restart <= RESTARTS; restart++) {
    for (let i = 0; i < 600 && llm.chats().length < restart; i++) await Bun.sleep(50);
    expect(llm.chats().length).toBe(restart); // the job is running: the stop interrupts it
    expect(await server.stop()).toBe(0);
    await server.start();
  }

  let status: any;
  for (let i = 0; i < 600; i++) {
    status = await server.call("GET", `/v2/extract/${created.id}`);
    if (status.status !== "processing") break;
    await Bun.sleep(50);
  }
  expect({ status: status.status, error: status.error, data: status.data }).toEqual({ status: "completed", error: undefined, data: { price: 25 } });
  expect(await server.stop()).toBe(0);
  const db = new Database(join(server.dataDir, "crawlbox.sqlite"), { readonly: true });
  const row = db.query("SELECT attempts, owner IS NOT NULL AS owned FROM extract_jobs WHERE id = ?").get(created.id);
  db.close();
  expect(row).toEqual({ attempts: 1, owned: 1 });
}, 120_000);
