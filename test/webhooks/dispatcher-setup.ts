/**
 * The shared set-up of the webhook dispatcher tests (dispatcher-delivery, dispatcher-retries, dispatcher-restart):
 * two egress gates (one open to private networks, one not), and `env()`, a dispatcher over a temporary database
 * with a manual clock and a local receiver, cleaned up after each test.
 */
import type { Database } from "bun:sqlite";
import { afterAll, afterEach, beforeAll } from "bun:test";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { immediate } from "../../src/storage/database.ts";
import {
  createWebhookDispatcher,
  enqueueWebhookEvent,
  type WebhookDispatcher,
  type WebhookDispatcherOptions,
  type WebhookEventInput,
} from "../../src/webhooks/index.ts";
import { type Clock, eventInput, manualClock, type Receiver, startReceiver, tempDb, type TempDb } from "./helpers.ts";

/** One test's dispatcher and what surrounds it. */
export interface Env {
  t: TempDb;
  clock: Clock;
  rx: Receiver;
  d: WebhookDispatcher;
  enqueue(over?: Partial<WebhookEventInput>, path?: string): string;
  dispatcher(options?: Partial<WebhookDispatcherOptions>): WebhookDispatcher;
}

/** What a test file gets; the gates are set before the first test. */
export interface DispatcherTests {
  /** A gate that lets private addresses through (the receiver is on loopback). */
  gate: EgressGate;
  /** A gate that refuses them. */
  denyGate: EgressGate;
  /** Run, last first, after each test. */
  cleanups: (() => void | Promise<void>)[];
  env(options?: Partial<WebhookDispatcherOptions>): Env;
}

/** Registers the file's gates and the clean-up after each test. */
export function useDispatcherTests(): DispatcherTests {
  const ctx = { cleanups: [] as DispatcherTests["cleanups"] } as DispatcherTests;
  const { cleanups } = ctx;
  beforeAll(async () => {
    ctx.gate = await createEgressGate({ allowPrivateNetwork: true });
    ctx.denyGate = await createEgressGate({ allowPrivateNetwork: false });
  });
  afterAll(async () => {
    await ctx.gate.close();
    await ctx.denyGate.close();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  ctx.env = (options = {}) => {
    const t = tempDb();
    const rx = startReceiver();
    const clock = manualClock();
    cleanups.push(() => t.cleanup(), () => rx.stop());
    const make = (o: Partial<WebhookDispatcherOptions> = {}) => {
      const d = createWebhookDispatcher({ db: t.db, secret: "", gate: ctx.gate, now: clock.now, random: () => 0.5, ...options, ...o });
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
  };
  return ctx;
}

/** The stored row of webhook event `id`. */
export function eventRow(db: Database, id: string) {
  return db.query("SELECT * FROM webhook_events WHERE id = ?").get(id) as {
    state: string; failures: number; next_attempt_at: number | null; body: string | null; last_error: string | null;
  };
}
