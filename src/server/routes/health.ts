/**
 * @module server/routes/health
 * `GET /health`: readiness. 200 once the database answers and the egress gate listens; 503 otherwise, so a
 * process supervisor or load balancer can wait for it. No authentication.
 */
import { Elysia } from "elysia";
import type { Services } from "../services.ts";

/** The health route. */
export function healthRoutes(services: Services) {
  return new Elysia({ name: "crawlbox-health" }).get("/health", ({ set }) => {
    try {
      services.db.query("SELECT 1").get();
    } catch (err) {
      set.status = 503;
      return { status: "unavailable", reason: `database: ${(err as Error).message}` };
    }
    // Worker counters: a deployment can see that pages do reach the parse workers (and that none fail), and how
    // many documents were stopped at their deadline or crashed their worker.
    return { status: "ok", version: services.version, parseWorkers: services.parseWorkers.stats(), documentWorkers: services.documentWorkers.stats() };
  }, { detail: { tags: ["health"], summary: "Readiness probe", security: [] } });
}
