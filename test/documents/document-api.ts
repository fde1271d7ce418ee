/**
 * The shared set-up of the document API tests (pdf-api, ocr-api, media-api): the document fixture site and an
 * in-process crawlbox with two OCR workers, and `scrape`, a `POST /v2/scrape` of a path on that site.
 */
import { afterAll, beforeAll } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startDocumentSite, type DocumentSite } from "../fixtures/documents/server.ts";

/** What a test file gets: filled in by the file's first `beforeAll`. */
export interface DocumentApi {
  h: Harness;
  site: DocumentSite;
  /** `POST /v2/scrape` of `body.url`, a path on the document site, with a 60 s timeout unless given. */
  scrape(body: Record<string, unknown>): Promise<{ status: number; body: any }>;
}

/** Registers the file's set-up and tear-down; the returned object is filled in before the first test. */
export function useDocumentApi(): DocumentApi {
  const api = {} as DocumentApi;
  beforeAll(async () => {
    api.site = await startDocumentSite();
    api.h = await createHarness({ ocrWorkers: 2 });
  }, 30_000);
  afterAll(async () => {
    await api.h?.close();
    api.site?.stop();
  });
  api.scrape = async (body) => {
    const res = await api.h.request("/v2/scrape", { method: "POST", json: { timeout: 60_000, ...body, url: `${api.site.url}${body.url}` } });
    return { status: res.status, body: (await res.json()) as any };
  };
  return api;
}
