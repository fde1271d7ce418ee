/**
 * @module agent/errors
 * The agent's own refusals, in the /v2 envelope. The thread errors carry upstream's lower-case codes (api-v2.md §3.4,
 * §2.9), which clients of the cloud agent branch on: a run started on a thread that is still busy is 409
 * `thread_busy` with the busy run's id (`runId` at the top of the body as upstream, and in `details`); a thread
 * that does not exist (or is another key's) is 404 `thread_not_found`.
 */
import { CrawlboxError } from "../errors.ts";

/** 409: the thread has a run processing; a thread answers one turn at a time. */
export class AgentThreadBusyError extends CrawlboxError {
  constructor(readonly runId: string) {
    super("thread_busy", 409, "The thread has a run processing; wait for it to finish or cancel it (DELETE /v2/agent/{runId}).", {
      details: { runId },
    });
  }

  override toBody() {
    return { ...super.toBody(), runId: this.runId };
  }
}

/** 422: not one page could be read for the run (every URL failed, or the search found nothing readable). */
export class AgentNoPagesError extends CrawlboxError {
  constructor() {
    super("AGENT_NO_PAGES", 422, "The agent could not read any page for this task.");
  }
}

/** 404: no thread by that id for this key (never existed, expired with its runs, or another key's). */
export class AgentThreadNotFoundError extends CrawlboxError {
  constructor() {
    super("thread_not_found", 404, "Thread not found.");
  }
}

/**
 * A run that was interrupted (the server stopped during it) `attempts` times and is not run again: failed instead,
 * so a run that brings the server down each time cannot do so forever.
 */
export class AgentAttemptsSpentError extends CrawlboxError {
  constructor(attempts: number) {
    super("AGENT_ATTEMPTS_SPENT", 500, `The run was started ${attempts} times and the server stopped each time before it finished.`);
  }
}
