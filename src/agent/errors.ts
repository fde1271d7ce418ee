/**
 * @module agent/errors
 * The agent's own refusals, in the /v2 envelope. Upstream answers a run started on a thread that is still busy with
 * 409 `thread_busy` carrying the busy run's id; so does crawlbox (code `AGENT_THREAD_BUSY`, `runId` at the top of the
 * body as upstream, and in `details`).
 */
import { CrawlboxError } from "../errors.ts";

/** 409: the thread has a run processing; a thread answers one turn at a time. */
export class AgentThreadBusyError extends CrawlboxError {
  constructor(readonly runId: string) {
    super("AGENT_THREAD_BUSY", 409, "thread_busy: the thread has a run processing; wait for it to finish or cancel it (DELETE /v2/agent/{runId}).", {
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
