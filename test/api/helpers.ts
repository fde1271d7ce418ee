/** Test helpers for the /v2 models: run a parser and capture the BadRequestError. */
import { BadRequestError } from "../../src/errors.ts";
import type { Issue } from "../../src/api/index.ts";

/** Runs `fn(body)` expecting a 400; returns the error (message + zod-shaped issues). */
export function reject(fn: (b: unknown) => unknown, body: unknown): { message: string; issues: Issue[] } {
  try {
    fn(body);
  } catch (e) {
    if (e instanceof BadRequestError) return { message: e.message, issues: e.details as Issue[] };
    throw e;
  }
  throw new Error(`expected a BadRequestError for ${JSON.stringify(body)}`);
}

/** Paths of the issues, as "a.b.0" strings, for compact assertions. */
export const paths = (issues: Issue[]) => issues.map((i) => i.path.join("."));
