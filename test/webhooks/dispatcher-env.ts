/**
 * A dispatcher on a temporary database with a manual clock, delivering directly (private webhooks allowed) to local
 * receivers, and recording every request it starts in order (`calls`), which is the dispatcher's own order: arrival
 * order at several receivers is not. Used by the fairness and terminal-order tests.
 */
import { immediate } from "../../src/storage/database.ts";
import {
  createWebhookDispatcher,
  enqueueWebhookEvent,
  type WebhookDispatcher,
  type WebhookDispatcherOptions,
  type WebhookEventInput,
} from "../../src/webhooks/index.ts";
import { type Clock, eventInput, manualClock, type Receiver, startReceiver, tempDb, type TempDb } from "./helpers.ts";

/** One request the dispatcher started: its URL and payload. */
export interface Call {
  url: string;
  type: string;
  jobId: string;
  webhookId: string;
  data: unknown[];
}

export interface DispatcherEnv {
  t: TempDb;
  clock: Clock;
  d: WebhookDispatcher;
  calls: Call[];
  /** A new local receiver, stopped after the test. */
  receiver(answer?: Parameters<typeof startReceiver>[0]): Receiver;
  /** Records an event for `url` (committed, due now); returns its webhookId. */
  enqueue(url: string, over?: Partial<WebhookEventInput>): string;
  /** The event's outbox state and number of attempts. */
  state(webhookId: string): { state: string; attempts: number };
}

const cleanups: (() => void | Promise<void>)[] = [];
/**
 * Stops the dispatchers and removes the databases of the environments made since the last call. Each test file calls
 * it from its own `afterEach`: a hook registered here bound only to the first file that loaded this module (bun test
 * shares modules between files), and the other files left their database folders in the temporary folder.
 */
export async function cleanupDispatcherEnvs(): Promise<void> {
  for (const c of cleanups.splice(0).reverse()) await c();
}

export function dispatcherEnv(options: Partial<WebhookDispatcherOptions> = {}): DispatcherEnv {
  const t = tempDb();
  const clock = manualClock();
  cleanups.push(() => t.cleanup());
  const calls: Call[] = [];
  const inner = options.fetch ?? ((url: string, init: BunFetchRequestInit) => fetch(url, init));
  const d = createWebhookDispatcher({
    db: t.db,
    secret: "",
    allowPrivateWebhooks: true,
    now: clock.now,
    random: () => 0.5,
    ...options,
    fetch: (url, init) => {
      const body = JSON.parse(String(init.body));
      calls.push({ url, type: body.type, jobId: body.id, webhookId: body.webhookId, data: body.data });
      return inner(url, init);
    },
  });
  cleanups.push(() => d.stop());
  return {
    t,
    clock,
    d,
    calls,
    receiver(answer) {
      const rx = startReceiver(answer);
      cleanups.push(() => rx.stop());
      return rx;
    },
    enqueue(url, over = {}) {
      const input = eventInput(url, over);
      input.webhook = { ...input.webhook, url };
      return immediate(t.db, () => enqueueWebhookEvent(t.db, input, { now: clock.t }))!;
    },
    state(webhookId) {
      return t.db
        .query("SELECT state, (SELECT COUNT(*) FROM webhook_attempts a WHERE a.event_seq = e.seq) AS attempts FROM webhook_events e WHERE id = ?")
        .get(webhookId) as { state: string; attempts: number };
    },
  };
}

/** Waits until `done()` or `ms` passed; returns whether it became true. */
export async function waitFor(done: () => boolean, ms: number): Promise<boolean> {
  const until = performance.now() + ms;
  while (!done()) {
    if (performance.now() > until) return false;
    await Bun.sleep(10);
  }
  return true;
}
