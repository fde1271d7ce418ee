/**
 * @module cli/serve
 * `crawlbox serve`: builds the services, listens, makes sure a key exists, and shuts down cleanly on
 * SIGTERM/SIGINT: stop listening (new connections are refused, idle keep-alive ones closed: Bun's `stop(false)`),
 * close browser sessions, claim no new crawl or batch page and start no new webhook delivery, let the requests, pages
 * and deliveries in flight finish for the grace (`CRAWLBOX_SHUTDOWN_GRACE_MS`), answer the requests still running
 * `503 SERVER_STOPPING` (server/request-drain.ts), then close the workers (aborting the pages still running, handed
 * back to the queue), the webhook dispatcher (aborting the deliveries still in flight, sent again at the next start),
 * the database and the gate.
 */
import type { Config } from "../config.ts";
import { createApp } from "../server/app.ts";
import { createServices, type Services } from "../server/services.ts";
import { join } from "node:path";
import { DATABASE_FILE } from "../storage/database.ts";
import { DataDirInUseError, lockDataDir } from "./data-dir-lock.ts";
import { dataDirExposure, usingDataDir } from "./data-dir.ts";
import { hostPort, listenFailure } from "./listen-address.ts";

/**
 * How long the requests stopped at the grace's end (`CRAWLBOX_SHUTDOWN_GRACE_MS`) get to send their 503 before their
 * connections are closed: a 503 is ready within milliseconds; what is still open after it is a WebSocket (closed
 * 1001), a live view's stream, or a request whose work answers to no signal (reading its body).
 */
const SHUTDOWN_ANSWER_MS = 2_000;
/** How often the answers' progress is looked at within {@link SHUTDOWN_ANSWER_MS} (Bun gives no event for it). */
const SHUTDOWN_ANSWER_POLL_MS = 20;
/**
 * How long closing the services (workers, browsers, parsers, the database) may take after that. Past it the process
 * exits anyway, as after a crash (every store write is a transaction; leases are recovered at the next start): a
 * part that ignores its abort (a parser deep in a document) must not keep a stopping server alive until it is killed.
 */
const CLOSE_LIMIT_MS = 30_000;

/**
 * What a starting server does before it listens: hand back what a previous process left claimed, and warn when it
 * is unprotected.
 */
function prepare(services: Services, config: Config): void {
  const { log } = services;
  // Only here, not in createServices: a one-off `crawlbox scrape` on the same folder must leave a server's claims be.
  const abandoned = services.idempotency.releaseAbandoned(Date.now());
  if (abandoned > 0) log.info(`released ${abandoned} Idempotency-Key claim(s) left in flight by a previous process`);
  const resumed = services.extract.resumeAbandoned();
  if (resumed > 0) log.info(`running again ${resumed} extract job(s) a previous process did not finish`);
  const resumedRuns = services.agent.resumeAbandoned();
  if (resumedRuns > 0) log.info(`running again ${resumedRuns} agent run(s) a previous process did not finish`);
  const monitors = services.monitors.start();
  if (monitors.scheduled > 0 || monitors.failed > 0) log.info(`scheduled ${monitors.scheduled} monitor(s); ${monitors.failed} check(s) a previous process left running were failed`);
  if (!config.authEnabled) log.warn("!!! AUTHENTICATION IS OFF (CRAWLBOX_AUTH=off): anyone who can reach this port can use it !!!");
  const exposure = dataDirExposure(config.dataDir);
  if (exposure) log.warn(exposure);
  if (config.allowPrivateNetwork) log.warn("CRAWLBOX_ALLOW_PRIVATE_NETWORK=true: scrapes may reach private and loopback addresses");
}

/**
 * With auth on and no key at all, creates one and prints it once. Only once the server listens: a server that
 * cannot start (port in use, bad HOST) must not leave behind a key that was shown for a server that never ran.
 */
function createFirstKey(services: Services, config: Config): void {
  if (!config.authEnabled || services.keys.count() > 0) return;
  const { key, record } = services.keys.create("first key");
  process.stdout.write(
    `\nNo API key existed, so crawlbox created one (${record.id}):\n\n    ${key}\n\n` +
      `It is shown only this once. crawlbox keeps only its SHA-256 hash, in ${join(config.dataDir, DATABASE_FILE)}.\n` +
      `Manage keys with: crawlbox keys create | list | quota | revoke (or bun run src/main.ts keys ...).\n\n`,
  );
}

/** Starts the server; resolves when it has stopped. */
export async function runServe(config: Config): Promise<number> {
  // Before the services: they start the job workers, which take over pages left running (data-dir-lock.ts).
  let unlock: () => void;
  try {
    unlock = await usingDataDir(config.dataDir, () => lockDataDir(config.dataDir));
  } catch (err) {
    if (!(err instanceof DataDirInUseError)) throw err; // a DataDirError is said by main
    process.stderr.write(`crawlbox: ${err.message}\n`);
    return 1;
  }
  let services: Services;
  try {
    services = await usingDataDir(config.dataDir, () => createServices(config));
    prepare(services, config);
  } catch (err) {
    unlock();
    throw err;
  }
  const { log } = services;

  let app;
  try {
    app = createApp(services).listen({
      port: config.port,
      hostname: config.host,
      // A little above our own limit, so that our parser answers 413 in the /v2 shape; Bun's cut-off is the backstop.
      maxRequestBodySize: Math.max(config.maxRequestBodyBytes, config.maxUploadBytes) + 64 * 1024,
      idleTimeout: 255,
      // Elysia asks Bun for SO_REUSEPORT: a second server on the port would start without a word and take every
      // other connection (a status read would find its job or not, alternately).
      reusePort: false,
    });
  } catch (err) {
    process.stderr.write(`crawlbox: cannot listen on ${hostPort(config.host, config.port)}: ${await listenFailure(err, config.host)}\n`);
    await services.close().catch(() => {});
    unlock();
    return 1;
  }
  const server = app.server!;
  createFirstKey(services, config);
  log.info(`crawlbox ${services.version} listening on http://${hostPort(config.host, server.port ?? config.port)} (data: ${config.dataDir})`);

  return await new Promise<number>((resolve) => {
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) {
        // A second signal while stopping: the operator wants it over now (the next start recovers, as after a crash).
        log.warn(`${signal} received again while shutting down: exiting now`);
        // The pages still running go back to the queue first (a few store writes): left active, the next start would
        // count each as a stall and spend its attempt.
        services.workers.releaseRunning();
        unlock();
        resolve(1);
        return;
      }
      stopping = true;
      log.info(`${signal} received, shutting down`);
      let graceTimer: ReturnType<typeof setTimeout> | undefined;
      try {
        // Browser sessions first: code running in one (up to 5 minutes) is stopped, so its request answers (exit code
        // 124) and the HTTP drain below need not wait for it or cut its connection at the grace's end.
        const sessionsClosed = services.interact?.closeAll().catch((err: unknown) => log.warn("closing browser sessions failed", { error: String(err) }));
        // Pages and webhook deliveries in flight finish within the grace too, their outcomes recorded: aborted at once,
        // as before, each was fetched or sent again after the restart. Nothing new is claimed or sent from now on.
        const backgroundDone = Promise.all([services.workers.quiesce(), services.webhooks.quiesce()]);
        const drained = server.stop(false);
        const graceOver = new Promise<"grace over">((r) => (graceTimer = setTimeout(() => r("grace over"), config.shutdownGraceMs)));
        if ((await Promise.race([Promise.all([drained, backgroundDone]), graceOver])) === "grace over") {
          const pages = services.workers.active;
          const deliveries = services.webhooks.inFlight;
          if (pages > 0 || deliveries > 0) {
            log.warn(`shutdown grace of ${config.shutdownGraceMs} ms over: stopping ${pages} crawl or batch page(s) and ${deliveries} webhook delivery(ies) still running; they run again at the next start`);
          }
          await answerTheRest();
        }
        clearTimeout(graceTimer);
        await drained;
        await sessionsClosed;
        let limit: ReturnType<typeof setTimeout> | undefined;
        const closed = await Promise.race([
          services.close().then(() => true),
          new Promise<false>((r) => (limit = setTimeout(() => r(false), CLOSE_LIMIT_MS))),
        ]);
        clearTimeout(limit);
        if (!closed) {
          log.error(`shutdown did not finish within ${CLOSE_LIMIT_MS / 1000} s; exiting anyway`);
          unlock();
          resolve(1);
          return;
        }
        unlock();
        resolve(0);
      } catch (err) {
        // Stop anyway: a process that cannot shut down cleanly must not hang until it is killed.
        log.error("shutdown failed", { error: String(err) });
        unlock();
        resolve(1);
      }
    };
    /**
     * The grace is over: the requests still running are stopped and answered 503 (their routes run within the drain;
     * mapError makes any other failure from now on the same 503), given {@link SHUTDOWN_ANSWER_MS} to send it; then
     * whatever is still open is closed, as every open connection was at the grace's end before.
     */
    const answerTheRest = async () => {
      const before = server.pendingRequests;
      services.drain.end();
      const until = performance.now() + SHUTDOWN_ANSWER_MS;
      while (server.pendingRequests > 0 && performance.now() < until) await Bun.sleep(SHUTDOWN_ANSWER_POLL_MS);
      const unanswered = server.pendingRequests;
      if (before > 0) {
        log.warn(`shutdown grace of ${config.shutdownGraceMs} ms over: ${before - unanswered} request(s) still running were answered 503 SERVER_STOPPING` + (unanswered > 0 ? `; ${unanswered} that did not answer within ${SHUTDOWN_ANSWER_MS} ms are closed` : ""));
      }
      if (server.pendingWebSockets > 0) log.info(`shutdown grace over: closing ${server.pendingWebSockets} open WebSocket(s) (code 1001)`);
      void server.stop(true);
    };
    process.on("SIGTERM", () => void stop("SIGTERM"));
    process.on("SIGINT", () => void stop("SIGINT"));
  });
}
