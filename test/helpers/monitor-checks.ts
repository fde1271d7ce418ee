/**
 * Waiting for a monitor check in tests: the check runs in the background after `POST /v2/monitor/{id}/run`, and
 * every monitor test reads it again until it has ended. One loop for all of them (it was copied into five files).
 */
import { afterAll, beforeAll } from "bun:test";
import { createHarness, type Harness } from "./harness.ts";

/** Reads the check with `read` until it is neither queued nor running (every 25 ms, 10 s at most), and answers it. */
export async function untilCheckEnds<T extends { status: string }>(read: () => Promise<T>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const c = await read();
    if (c.status !== "queued" && c.status !== "running") return c;
    await Bun.sleep(25);
  }
  throw new Error("check did not finish");
}

/** A local site and a crawlbox for one monitor test file (see {@link monitorTestbed}). */
export interface MonitorTestbed {
  /** The crawlbox, in-process. */
  readonly h: Harness;
  /** The site's base URL (`http://127.0.0.1:<port>`). */
  readonly base: string;
  /** A request's `data`. */
  json(path: string, init?: Parameters<Harness["request"]>[1]): Promise<any>;
}

/**
 * A local site answering every path with the HTML `page(pathname)` gives, and a crawlbox beside it, started before the
 * file's tests and stopped after them (the hooks are registered here: call it at the top of the file).
 */
export function monitorTestbed(page: (pathname: string) => string): MonitorTestbed {
  let site: ReturnType<typeof Bun.serve> | undefined;
  let harness: Harness | undefined;
  beforeAll(async () => {
    site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => new Response(page(new URL(req.url).pathname), { headers: { "content-type": "text/html" } }) });
    harness = await createHarness();
  });
  afterAll(async () => {
    await harness?.close();
    site?.stop(true);
  });
  const bed: MonitorTestbed = {
    get h() {
      return harness!;
    },
    get base() {
      return `http://127.0.0.1:${site!.port}`;
    },
    json: async (path, init) => ((await (await bed.h.request(path, init)).json()) as any).data,
  };
  return bed;
}
