/**
 * @module agent/trace
 * An agent run's trace (`GET /v2/agent/{id}/trace`, the SDK's `AgentTraceEvent`s, schemaVersion 1): what the run did,
 * in order: `run.started`, `progress.reported` per phase, a `tool_call.started` / `tool_call.finished` pair per search
 * and per page read, a `reasoning.summary` per choice the model made, `artifact.updated` for the answer (its content
 * is a snapshot: `GET /v2/agent/{id}/snapshots/{snapshotId}`), then `run.finished`. Events are stored as they happen,
 * so a run's trace can be read while it runs; a resumed run continues the sequence.
 */
import type { Database } from "bun:sqlite";

/** The one agent of a crawlbox run. */
const ORCHESTRATOR = { id: "orchestrator", role: "orchestrator", name: "crawlbox agent" } as const;

/** Characters of a tool result or reasoning kept in an event (the full answer is a snapshot). */
const MAX_EVENT_TEXT = 2_000;

/** Why a run did not succeed, as the trace's error shape. */
export interface TraceError {
  code: "cancelled" | "credit_limit_reached" | "parent_finished" | "refused" | "internal";
  source: "agent" | "tool" | "billing" | "system";
  retryable: boolean;
  message: string;
}

/** Writes the events of one run. */
export class TraceRecorder {
  constructor(
    private readonly db: Database,
    private readonly runId: string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Appends an event after the run's last one, whichever recorder wrote that (the run's own, a cancel's, a resumed
   * attempt's: the number is read from the table, synchronously before the insert). Nothing is added after
   * `run.finished`: a cancelled run's reads still under way do not trail its end.
   */
  private add(event: Record<string, unknown>): void {
    const last = this.db.query<{ seq: number; event: string }, [string]>("SELECT seq, event FROM agent_events WHERE run_id = ? ORDER BY seq DESC LIMIT 1").get(this.runId);
    if (last && (JSON.parse(last.event) as { type: string }).type === "run.finished") return;
    const seq = (last?.seq ?? 0) + 1;
    const full = { schemaVersion: 1, eventId: crypto.randomUUID(), runId: this.runId, occurredAt: new Date(this.now()).toISOString(), producerSequence: seq, agent: ORCHESTRATOR, ...event };
    this.db.query("INSERT INTO agent_events (run_id, seq, event) VALUES (?, ?, ?)").run(this.runId, seq, JSON.stringify(full));
  }

  runStarted(): void {
    this.add({ type: "run.started" });
  }

  progress(phase: "planning" | "working" | "finalizing", message: string): void {
    this.add({ type: "progress.reported", phase, message });
  }

  /** A tool call begins; returns its id for {@link toolFinished}. */
  toolStarted(toolName: string, parameters: unknown): string {
    // Unique across attempts: a resumed run's calls never reuse an earlier attempt's ids.
    const toolCallId = crypto.randomUUID();
    this.add({ type: "tool_call.started", toolCallId, toolName, parameters });
    return toolCallId;
  }

  toolFinished(toolCallId: string, toolName: string, result: unknown): void {
    this.add({ type: "tool_call.finished", toolCallId, toolName, result });
  }

  reasoning(text: string): void {
    this.add({ type: "reasoning.summary", text: text.slice(0, MAX_EVENT_TEXT) });
  }

  /** The run's answer as an artifact; its content is stored as a snapshot. */
  artifact(kind: "json" | "markdown", content: string): void {
    const snapshotId = crypto.randomUUID();
    this.db.query("INSERT INTO agent_snapshots (id, run_id, content, created_at) VALUES (?, ?, ?, ?)").run(snapshotId, this.runId, content, this.now());
    this.add({ type: "artifact.updated", artifact: { kind, artifactId: "answer", snapshotId, change: "init" } });
  }

  cancelRequested(): void {
    this.add({ type: "run.cancel_requested", reason: "user" });
  }

  runFinished(outcome: "succeeded" | "failed" | "cancelled" | "credit_limit_reached", error: TraceError | null = null): void {
    if (error) this.add({ type: "error.occurred", error });
    this.add({ type: "run.finished", outcome, error });
  }
}

/** A run's events in order. */
export function traceEvents(db: Database, runId: string): unknown[] {
  return db.query<{ event: string }, [string]>("SELECT event FROM agent_events WHERE run_id = ? ORDER BY seq").all(runId).map((r) => JSON.parse(r.event));
}

/** A snapshot of a run, if it exists. */
export function traceSnapshot(db: Database, runId: string, snapshotId: string): string | undefined {
  return db.query<{ content: string }, [string, string]>("SELECT content FROM agent_snapshots WHERE id = ? AND run_id = ?").get(snapshotId, runId)?.content;
}

/** Deletes the traces of runs that no longer exist (after the runs' prune). */
export function pruneTraces(db: Database): void {
  db.query("DELETE FROM agent_events WHERE run_id NOT IN (SELECT id FROM agent_jobs)").run();
  db.query("DELETE FROM agent_snapshots WHERE run_id NOT IN (SELECT id FROM agent_jobs)").run();
}
