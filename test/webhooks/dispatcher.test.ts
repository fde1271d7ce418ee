import type { Database } from "bun:sqlite";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { immediate } from "../../src/storage/database.ts";
import {
  createWebhookDispatcher,
  enqueueWebhookEvent,
  type WebhookDispatcher,
  type WebhookDispatcherOptions,
  type WebhookEventInput,
} from "../../src/webhooks/index.ts";
import { type Clock, eventInput, manualClock, MINUTE, type Receiver, startReceiver, tempDb, type TempDb } from "./helpers.ts";

let gate: EgressGate;
let denyGate: EgressGate;
beforeAll(async () => {
  gate = await createEgressGate({ allowPrivateNetwork: true });
  denyGate = await createEgressGate({ allowPrivateNetwork: false });
});
afterAll(async () => {
  await gate.close();
  await denyGate.close();
});

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Env {
  t: TempDb;
  clock: Clock;
  rx: Receiver;
  d: WebhookDispatcher;
  enqueue(over?: Partial<WebhookEventInput>, path?: string): string;
  dispatcher(options?: Partial<WebhookDispatcherOptions>): WebhookDispatcher;
}

function env(options: Partial<WebhookDispatcherOptions> = {}): Env {
  const t = tempDb();
  const rx = startReceiver();
  const clock = manualClock();
  cleanups.push(() => t.cleanup(), () => rx.stop());
  const make = (o: Partial<WebhookDispatcherOptions> = {}) => {
    const d = createWebhookDispatcher({ db: t.db, secret: "", gate, now: clock.now, random: () => 0.5, ...options, ...o });
    cleanups.push(() => d.stop());
    return d;
  };
  const e: Env = {
    t,
    clock,
    rx,
    d: make(),
    dispatcher: make,
    enqueue(over = {}, path = "/hook") {
      const input = eventInput(rx.url + path, over);
      input.webhook = { ...input.webhook, url: rx.url + path };
      return immediate(t.db, () => enqueueWebhookEvent(t.db, input, { now: clock.t }))!;
    },
  };
  return e;
}

function eventRow(db: Database, id: string) {
  return db.query("SELECT * FROM webhook_events WHERE id = ?").get(id) as {
    state: string; failures: number; next_attempt_at: number | null; body: string | null; last_error: string | null;
  };
}

describe("delivery", () => {
  test("POSTs the stored body with content type, custom headers, metadata and a stable webhook-id", async () => {
    const e = env();
    const id = e.enqueue({
      event: "page",
      data: [{ markdown: "hello" }],
      webhook: { url: "", headers: { Authorization: "Bearer abc", "X-Custom": "1", "webhook-id": "forged", "Content-Type": "text/plain", "Content-Length": "3", Host: "evil.example" }, metadata: { run: "7" }, events: [] },
    });
    const stored = eventRow(e.t.db, id).body!;
    await e.d.drain();
    expect(e.rx.received).toHaveLength(1);
    const r = e.rx.received[0]!;
    expect(r.method).toBe("POST");
    expect(r.body).toBe(stored);
    expect(JSON.parse(r.body)).toEqual({ success: true, type: "crawl.page", id: "job-1", webhookId: id, data: [{ markdown: "hello" }], metadata: { run: "7" } });
    expect(r.headers.get("content-type")).toBe("application/json");
    expect(r.headers.get("host")).not.toBe("evil.example");
    expect(r.headers.get("authorization")).toBe("Bearer abc");
    expect(r.headers.get("x-custom")).toBe("1");
    expect(r.headers.get("webhook-id")).toBe(id); // managed headers win over caller headers
    expect(r.headers.get("webhook-timestamp")).toBe(String(Math.floor(e.clock.t / 1000)));
    expect(r.headers.get("user-agent")).toStartWith("crawlbox-webhooks/");
    // No secret configured: no signatures.
    expect(r.headers.has("x-firecrawl-signature")).toBe(false);
    expect(r.headers.has("webhook-signature")).toBe(false);
    const row = eventRow(e.t.db, id);
    expect(row.state).toBe("delivered");
    expect(row.body).toBeNull();
  });

  test("a job's started arrives first and its end last; its pages go out in order, several at once", async () => {
    const e = env();
    e.rx.fallback = { status: 200, delayMs: 100 };
    const events = ["started", ...Array<"page">(12).fill("page"), "completed"] as const;
    const ids = events.map((event, i) => e.enqueue({ event, data: event === "page" ? [{ n: i }] : [] }));
    e.d.start();
    const t0 = performance.now();
    await e.d.drain();
    const took = performance.now() - t0;
    const got = e.rx.received.map((r) => JSON.parse(r.body).webhookId);
    expect(got[0]).toBe(ids[0]);
    expect(got.at(-1)).toBe(ids.at(-1));
    expect([...got].sort()).toEqual([...ids].sort());
    // A receiver taking 100 ms an event: 14 one at a time took 1.4 s; started, the pages 4 at a time, then the end.
    expect(took).toBeLessThan(1_000);
  });

  test("one job's many due retries do not starve another job's events", async () => {
    const e = env();
    // Every first attempt of job-1's 60 pages fails; their retries are all due a minute later, and slow.
    e.rx.script = Array.from({ length: 60 }, () => ({ status: 500 }));
    for (let i = 0; i < 60; i++) e.enqueue({ event: "page", data: [{ n: i }] });
    await e.d.drain();
    e.clock.advance(MINUTE);
    // Slow, and one receiver: 4 at a time (WEBHOOK_MAX_PER_DESTINATION), so sixty take ~1.5 s.
    e.rx.fallback = { status: 200, delayMs: 100 };
    const other = e.enqueue({ jobId: "job-2", event: "completed" }, "/other");
    const draining = e.d.drain();
    for (let i = 0; i < 40 && e.rx.to("/other").length === 0; i++) await Bun.sleep(25);
    // It went in the first round of deliveries, beside job-1's first retries, not after all sixty.
    expect(e.rx.to("/other").map((r) => JSON.parse(r.body).webhookId)).toEqual([other]);
    expect(e.rx.to("/hook").length).toBeLessThanOrEqual(60 + 4);
    await draining;
  });

  test("an event the receiver keeps refusing does not hold back the job's later pages; its end waits for the retry", async () => {
    const e = env();
    // By content, not arrival order: the two pages are in flight together.
    const refuseBigOnce = (() => {
      let refused = false;
      return (url: string, init: BunFetchRequestInit) =>
        !refused && JSON.parse(String(init.body)).data[0]?.n === 1 ? ((refused = true), Promise.resolve(new Response("", { status: 413 }))) : fetch(url, init);
    })();
    const d = e.dispatcher({ fetch: refuseBigOnce });
    const started = e.enqueue({ event: "started" });
    const big = e.enqueue({ event: "page", data: [{ n: 1 }] });
    const small = e.enqueue({ event: "page", data: [{ n: 2 }] });
    const end = e.enqueue({ event: "completed" });
    await d.drain();
    const got = e.rx.received.map((r) => JSON.parse(r.body).webhookId);
    expect(got).toEqual([started, small]);
    expect([eventRow(e.t.db, big).state, eventRow(e.t.db, small).state, eventRow(e.t.db, end).state]).toEqual(["pending", "delivered", "pending"]);
    // Its retry comes a minute later; the end only after it (webhooks/next-deliveries "Order").
    e.clock.advance(MINUTE);
    await d.drain();
    expect(e.rx.received.map((r) => JSON.parse(r.body).webhookId).slice(2)).toEqual([big, end]);
    expect([eventRow(e.t.db, big).state, eventRow(e.t.db, end).state]).toEqual(["delivered", "delivered"]);
  });

  test("signatures: X-Firecrawl-Signature over the raw body, Standard Webhooks over id.timestamp.body", async () => {
    for (const secret of ["plain-secret-✓", `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`]) {
      const e = env({ secret });
      e.enqueue({ event: "completed" });
      await e.d.drain();
      const r = e.rx.received[0]!;
      const hex = createHmac("sha256", secret).update(r.body).digest("hex");
      expect(r.headers.get("x-firecrawl-signature")).toBe(`sha256=${hex}`);
      const key = secret.startsWith("whsec_") ? Buffer.from(secret.slice(6), "base64") : Buffer.from(secret, "utf8");
      const id = r.headers.get("webhook-id")!;
      const ts = r.headers.get("webhook-timestamp")!;
      const b64 = createHmac("sha256", key).update(`${id}.${ts}.${r.body}`).digest("base64");
      expect(r.headers.get("webhook-signature")).toBe(`v1,${b64}`);
      expect(Math.abs(Number(ts) - Math.floor(e.clock.t / 1000))).toBe(0);
    }
  });

  test("a whsec_ secret that is not base64 is refused at construction", () => {
    const t = tempDb();
    cleanups.push(() => t.cleanup());
    expect(() => createWebhookDispatcher({ db: t.db, secret: "whsec_not base64!", gate })).toThrow(TypeError);
    expect(() => createWebhookDispatcher({ db: t.db, secret: "", allowPrivateWebhooks: false })).toThrow("egress gate");
  });

  test("nothing is sent twice after a success", async () => {
    const e = env();
    e.enqueue();
    e.d.start();
    await e.d.drain();
    await e.d.drain();
    e.clock.advance(60 * MINUTE);
    await e.d.drain();
    const again = e.dispatcher();
    again.start();
    await again.drain();
    expect(e.rx.received).toHaveLength(1);
  });
});

describe("retries", () => {
  test("retry delays vary by ±10 % (jitter), and a 429/503 with Retry-After waits at least that long, capped at an hour", async () => {
    for (const [r, expected] of [[0, 0.9 * MINUTE], [0.999999, 1.1 * MINUTE]] as const) {
      const e = env({ random: () => r });
      e.rx.fallback = { status: 500 };
      const id = e.enqueue({ event: "completed" });
      await e.d.drain();
      expect(eventRow(e.t.db, id).next_attempt_at! - e.clock.t).toBeCloseTo(expected, -1);
    }
    const e = env();
    e.rx.script.push({ status: 429, headers: { "retry-after": "600" } }, { status: 503, headers: { "retry-after": "86400" } }, { status: 429, headers: { "retry-after": "5" } });
    const id = e.enqueue({ event: "completed" });
    await e.d.drain();
    expect(eventRow(e.t.db, id).next_attempt_at! - e.clock.t).toBe(10 * MINUTE); // asked for 10 min, scheduled 1
    e.clock.advance(10 * MINUTE);
    await e.d.drain();
    expect(eventRow(e.t.db, id).next_attempt_at! - e.clock.t).toBe(60 * MINUTE); // asked for a day: capped
    e.clock.advance(60 * MINUTE);
    await e.d.drain();
    expect(eventRow(e.t.db, id).next_attempt_at! - e.clock.t).toBe(15 * MINUTE); // asked for 5 s: the schedule wins
  });

  test("1, 5 and 15 minutes after each failure, then failed; same webhook-id and bytes every time", async () => {
    const e = env({ secret: "s" });
    e.rx.fallback = { status: 500 };
    const id = e.enqueue({ event: "completed" });
    const sent = () => e.rx.received.length;
    await e.d.drain();
    expect(sent()).toBe(1);
    expect(eventRow(e.t.db, id)).toMatchObject({ state: "pending", failures: 1, next_attempt_at: e.clock.t + MINUTE, last_error: "HTTP 500" });

    for (const [i, delay] of [MINUTE, 5 * MINUTE, 15 * MINUTE].entries()) {
      e.clock.advance(delay - 1);
      await e.d.drain();
      expect(sent()).toBe(i + 1); // not yet
      e.clock.advance(1);
      await e.d.drain();
      expect(sent()).toBe(i + 2);
    }
    const row = eventRow(e.t.db, id);
    expect(row).toMatchObject({ state: "failed", failures: 4, next_attempt_at: null, last_error: "HTTP 500" });
    e.clock.advance(24 * 60 * MINUTE);
    await e.d.drain();
    expect(sent()).toBe(4);

    const bodies = new Set(e.rx.received.map((r) => r.body));
    const ids = new Set(e.rx.received.map((r) => r.headers.get("webhook-id")));
    expect(bodies.size).toBe(1);
    expect([...ids]).toEqual([id]);
    // The timestamp (and so the Standard Webhooks signature) is fresh on every attempt.
    expect(new Set(e.rx.received.map((r) => r.headers.get("webhook-timestamp"))).size).toBe(4);

    const [delivery] = e.d.deliveries("job-1", "key-1").deliveries;
    expect(delivery!.status).toBe("failed");
    expect(delivery!.attempts.map((a) => [a.attempt, a.statusCode, a.error])).toEqual([
      [1, 500, "HTTP 500"], [2, 500, "HTTP 500"], [3, 500, "HTTP 500"], [4, 500, "HTTP 500"],
    ]);
  });

  test("an event marked failed drops its body (a page's documents), as a delivered one does; its record and attempts stay", async () => {
    // Retries used up (one retry here) and an egress refusal (failed at once) both end in 'failed'.
    const e = env({ retryDelaysMs: [MINUTE] });
    e.rx.fallback = { status: 500 };
    const id = e.enqueue({ event: "page", data: [{ markdown: "private page text" }] });
    await e.d.drain();
    expect(eventRow(e.t.db, id)).toMatchObject({ state: "pending", failures: 1 });
    expect(eventRow(e.t.db, id).body).toContain("private page text"); // still needed for the retry
    e.clock.advance(MINUTE);
    await e.d.drain();
    expect(e.rx.received).toHaveLength(2);
    expect(eventRow(e.t.db, id)).toMatchObject({ state: "failed", failures: 2, body: null, last_error: "HTTP 500" });
    const [delivery] = e.d.deliveries("job-1", "key-1").deliveries;
    expect(delivery).toMatchObject({ webhookId: id, status: "failed", lastError: "HTTP 500" });
    expect(delivery!.attempts).toHaveLength(2);

    const refused = env({ gate: denyGate });
    const refusedId = refused.enqueue({ event: "page", data: [{ markdown: "private page text" }] });
    await refused.d.drain();
    expect(eventRow(refused.t.db, refusedId)).toMatchObject({ state: "failed", body: null });
  });

  test("a started event waits for nothing but goes first; once it failed, the job's later events go on, and its retry delivers", async () => {
    const e = env();
    e.rx.script = [{ status: 503 }];
    const first = e.enqueue({ event: "started" });
    const second = e.enqueue({ event: "page", data: [{ n: 1 }] });
    const other = e.enqueue({ jobId: "job-2", event: "started" }, "/other");
    await e.d.drain();
    // job-1's page went after its started had been answered (with a failure); job-2 is not affected.
    expect(e.rx.to("/hook").map((r) => JSON.parse(r.body).webhookId)).toEqual([first, second]);
    expect(e.rx.to("/other").map((r) => JSON.parse(r.body).webhookId)).toEqual([other]);
    expect([eventRow(e.t.db, first).state, eventRow(e.t.db, second).state]).toEqual(["pending", "delivered"]);
    e.clock.advance(MINUTE);
    await e.d.drain();
    expect(e.rx.to("/hook").map((r) => JSON.parse(r.body).webhookId)).toEqual([first, second, first]);
    expect(eventRow(e.t.db, first).state).toBe("delivered");
  });

  test("redirects are not followed: a 3xx is a failure", async () => {
    const e = env();
    e.rx.script = [{ status: 302, headers: { location: "/elsewhere" } }];
    const id = e.enqueue();
    await e.d.drain();
    expect(e.rx.received.map((r) => r.path)).toEqual(["/hook"]);
    expect(eventRow(e.t.db, id)).toMatchObject({ state: "pending", failures: 1, last_error: "redirect not followed (HTTP 302 to /elsewhere)" });
    const attempt = e.d.deliveries("job-1", "key-1").deliveries[0]!.attempts[0]!;
    expect(attempt.statusCode).toBe(302);
  });

  test("no answer within the timeout is a failure (10 s by default; shortened here)", async () => {
    const e = env({ timeoutMs: 200 });
    e.rx.script = [{ status: 200, delayMs: 1500 }];
    const id = e.enqueue();
    const t0 = performance.now();
    await e.d.drain();
    expect(performance.now() - t0).toBeLessThan(1200);
    expect(eventRow(e.t.db, id)).toMatchObject({ state: "pending", failures: 1, last_error: "timed out after 200 ms", next_attempt_at: e.clock.t + MINUTE });
    e.clock.advance(MINUTE);
    await e.d.drain();
    expect(eventRow(e.t.db, id).state).toBe("delivered");
  });

  test("a network error (nobody listening) is retried", async () => {
    const e = env();
    const dead = startReceiver();
    const url = dead.url + "/gone";
    dead.stop();
    const id = immediate(e.t.db, () => enqueueWebhookEvent(e.t.db, eventInput(url), { now: e.clock.t }))!;
    await e.d.drain();
    const row = eventRow(e.t.db, id);
    expect(row).toMatchObject({ state: "pending", failures: 1, next_attempt_at: e.clock.t + MINUTE });
    expect(row.last_error).toBeString();
  });
});

describe("restart", () => {
  test("a new dispatcher on the same file continues the persisted schedule", async () => {
    const e = env();
    e.rx.fallback = { status: 500 };
    const id = e.enqueue({ event: "completed" });
    await e.d.drain();
    e.clock.advance(MINUTE);
    await e.d.drain();
    expect(e.rx.received).toHaveLength(2); // next attempt due 5 minutes after the second failure
    await e.d.stop();

    // "Restart": a fresh connection and dispatcher, some time later.
    const db = e.t.reopen();
    e.clock.advance(4 * MINUTE);
    const d2 = createWebhookDispatcher({ db, secret: "", gate, now: e.clock.now, random: () => 0.5 });
    cleanups.push(() => d2.stop());
    d2.start();
    await d2.drain();
    expect(e.rx.received).toHaveLength(2); // neither lost nor repeated
    e.clock.advance(MINUTE);
    await d2.drain();
    expect(e.rx.received).toHaveLength(3);
    expect(eventRow(db, id)).toMatchObject({ failures: 3, next_attempt_at: e.clock.t + 15 * MINUTE });
    e.rx.fallback = { status: 204 };
    e.clock.advance(15 * MINUTE);
    await d2.drain();
    expect(eventRow(db, id).state).toBe("delivered");
    expect(new Set(e.rx.received.map((r) => r.headers.get("webhook-id")))).toEqual(new Set([id]));
  });

  test("a delivery in flight when the process died is re-sent after restart with the same webhook-id", async () => {
    const e = env();
    // The first process never hears back (it "dies" mid-request): its fetch never settles.
    const hung = e.dispatcher({ fetch: () => new Promise<Response>(() => {}) });
    const id = e.enqueue();
    hung.kick();
    await Bun.sleep(20);
    const unfinished = e.t.db.query("SELECT COUNT(*) AS n FROM webhook_attempts WHERE finished_at IS NULL").get() as { n: number };
    expect(unfinished.n).toBe(1);

    const db = e.t.reopen();
    const d2 = createWebhookDispatcher({ db, secret: "", gate, now: e.clock.now, random: () => 0.5 });
    cleanups.push(() => d2.stop());
    d2.start();
    await d2.drain();
    expect(e.rx.received.map((r) => r.headers.get("webhook-id"))).toEqual([id]);
    expect(JSON.parse(e.rx.received[0]!.body).webhookId).toBe(id);
    const attempts = d2.deliveries("job-1", "key-1").deliveries[0]!.attempts;
    expect(attempts.map((a) => [a.attempt, a.statusCode, a.error?.startsWith("interrupted") ?? null])).toEqual([
      [1, null, true],
      [2, 200, null],
    ]);
  });

  test("stop() aborts in-flight requests without counting a failure", async () => {
    const e = env();
    e.rx.script = [{ status: 200, delayMs: 2000 }];
    const id = e.enqueue();
    e.d.kick();
    await Bun.sleep(100);
    await e.d.stop();
    expect(eventRow(e.t.db, id)).toMatchObject({ state: "pending", failures: 0 });
  });
});

describe("egress", () => {
  /**
   * Delivers one event that the gate refuses; asserts it failed at once with a hint naming the webhook setting,
   * not the one that opens private networks to every scrape. Returns its row.
   */
  async function refusedOnce(e: ReturnType<typeof env>) {
    const id = e.enqueue();
    await e.d.drain();
    expect(e.rx.received).toHaveLength(0);
    const row = eventRow(e.t.db, id);
    expect(row.state).toBe("failed");
    expect(row.last_error).toStartWith("egress refused:");
    expect(row.last_error).toContain("CRAWLBOX_ALLOW_PRIVATE_WEBHOOKS=true");
    expect(row.last_error).not.toContain("CRAWLBOX_ALLOW_PRIVATE_NETWORK");
    return row;
  }

  test("a loopback target is refused by the gate when private webhooks are not allowed, and failed at once", async () => {
    const row = await refusedOnce(env({ gate: denyGate }));
    expect(row.next_attempt_at).toBeNull();
    expect(row.last_error).toContain("loopback");
  });

  test("a refusal by the gate's proxy (message from its marker header) names the webhook setting too", async () => {
    await refusedOnce(env({ gate: { check: async () => {}, proxyUrl: denyGate.proxyUrl } }));
  });

  test("a refusal for another reason (a blocked port) keeps the gate's message, without the hint", async () => {
    const e = env({ gate: denyGate });
    const id = immediate(e.t.db, () => enqueueWebhookEvent(e.t.db, eventInput("http://127.0.0.1:25/hook"), { now: e.clock.t }))!;
    await e.d.drain();
    const row = eventRow(e.t.db, id);
    expect(row.state).toBe("failed");
    expect(row.last_error).toContain("port 25 is not allowed");
    expect(row.last_error).not.toContain("CRAWLBOX_ALLOW_PRIVATE");
  });

  test("CRAWLBOX_ALLOW_PRIVATE_WEBHOOKS sends directly, without the gate", async () => {
    const e = env({ gate: undefined, allowPrivateWebhooks: true });
    e.enqueue();
    await e.d.drain();
    expect(e.rx.received).toHaveLength(1);
  });

  test("the gate's proxy is used for the request", async () => {
    const seen: unknown[] = [];
    const e = env({
      fetch: (url, init) => {
        seen.push(init.proxy);
        return fetch(url, init);
      },
    });
    e.enqueue();
    await e.d.drain();
    expect(seen).toEqual([gate.proxyUrl]);
    expect(e.rx.received).toHaveLength(1);
  });
});
