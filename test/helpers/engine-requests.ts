/**
 * @module test/helpers/engine-requests
 * The request builder and the typed-failure catcher shared by the HTTP engine's test files, so each file states
 * only what it tests.
 */
import { expect } from "bun:test";
import type { FetchRequest } from "../../src/engines/types.ts";
import { CrawlboxError } from "../../src/errors.ts";

/** A fetch request for `path` on the fixture site at `baseUrl` (or an absolute URL), 5 s and 1 MiB by default. */
export function engineRequest(baseUrl: string, path: string, extra: Partial<FetchRequest> = {}): FetchRequest {
  return {
    url: path.startsWith("http") ? path : `${baseUrl}${path}`,
    timeoutMs: 5000,
    maxBodyBytes: 1024 * 1024,
    ...extra,
  };
}

/** The typed error `p` rejects with; fails the test if it resolves or rejects with anything else. */
export async function failure(p: Promise<unknown>): Promise<CrawlboxError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CrawlboxError);
  return err as CrawlboxError;
}
