/**
 * @module bench/lib/crawl-peer
 * What the crawl benchmark's child processes share: their arguments and the lines they print, which the parent
 * reads to sample the child's memory at the right moments.
 *
 *   START                       setup done, the crawl begins now
 *   PROGRESS <pages>            at 25, 50, 75 and 100 % of the limit
 *   DONE <pages> <ms> <chars>   pages crawled, crawl time, total markdown characters
 *
 * After `DONE` a peer stays alive until its stdin closes, so that the parent can read its peak RSS.
 */

/** Arguments of a peer process. */
export interface PeerArgs {
  url: string;
  concurrency: number;
  limit: number;
}

/** Reads `--url`, `--concurrency`, `--limit` from argv. */
export function peerArgs(): PeerArgs {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    if (i < 0) throw new Error(`--${name} is required`);
    return process.argv[i + 1]!;
  };
  return { url: arg("url"), concurrency: Number(arg("concurrency")), limit: Number(arg("limit")) };
}

/** Counts pages and prints `PROGRESS` at each quarter of `limit`. */
export function progressReporter(limit: number): () => number {
  const marks = [0.25, 0.5, 0.75, 1].map((q) => Math.round(q * limit));
  let n = 0;
  return () => {
    n++;
    if (marks.includes(n)) console.log(`PROGRESS ${n}`);
    return n;
  };
}

/** Prints `DONE`, waits for the parent to close stdin (it reads our memory meanwhile), then exits. */
export async function finish(pages: number, ms: number, chars: number): Promise<never> {
  console.log(`DONE ${pages} ${Math.round(ms)} ${chars}`);
  await Bun.stdin.text();
  process.exit(0);
}
