/**
 * The shared set-up of the `POST /v2/scrape` API tests (scrape-formats, scrape-transport): the fixture site and an
 * in-process crawlbox, and `scrape`, a `POST /v2/scrape` with the harness's key unless another is given.
 */
import { afterAll, beforeAll } from "bun:test";
import { startFixtureSite, type FixtureSite } from "../fixtures/site.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

/** What a test file gets: filled in by the file's first `beforeAll`. */
export interface ScrapeSite {
  h: Harness;
  site: FixtureSite;
  scrape(body: Record<string, unknown>, auth?: string): Promise<{ status: number; body: any }>;
}

/** Registers the file's set-up and tear-down; the returned object is filled in before the first test. */
export function useScrapeSite(): ScrapeSite {
  const ctx = {} as ScrapeSite;
  beforeAll(async () => {
    ctx.site = startFixtureSite();
    ctx.h = await createHarness();
  });
  afterAll(async () => {
    await ctx.h.close();
    ctx.site.stop();
  });
  ctx.scrape = async (body, auth) => {
    const res = await ctx.h.request("/v2/scrape", { method: "POST", json: body, auth });
    return { status: res.status, body: (await res.json()) as any };
  };
  return ctx;
}
