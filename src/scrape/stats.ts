/**
 * @module scrape/stats
 * When each API key last had a synchronous scrape succeed (`POST /v2/scrape`, `/v2/parse`), for
 * `/v2/team/queue-status`'s `mostRecentSuccess` together with its jobs' pages (which the job store keeps). Held by
 * this process only: it is a hint about recent activity, not data, and a restart forgets it.
 */

/** Last successful synchronous scrape per key. */
export class ScrapeStats {
  private readonly last = new Map<string, number>();

  /** Notes a success of `keyId` at epoch ms `at`. */
  record(keyId: string, at: number): void {
    this.last.set(keyId, Math.max(at, this.last.get(keyId) ?? 0));
  }

  /** The key's last success in epoch ms, if this process saw one. */
  lastSuccessAt(keyId: string): number | undefined {
    return this.last.get(keyId);
  }
}
