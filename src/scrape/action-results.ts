/**
 * @module scrape/action-results
 * Turns the browser's action results (engines/types.ts `PageArtifacts.actions`) into the document's
 * `actions` field (api-v2.md §6.6): screenshots and PDFs are stored through the render context and become URLs
 * (`/v2/files/…`, or `data:` URLs under zero data retention); scrapes and script returns are copied as they are.
 *
 * A `screenshot` action that took no picture (a page Chromium never rendered: engines/browser/actions.ts gives it
 * no bytes, and the document a warning naming the action) keeps its place as an empty string. Upstream's shape is
 * `screenshots: string[]`, one per screenshot action in order, and clients read `actions.screenshots[i]` for their
 * i-th one: leaving the entry out would hand them the next action's picture, and `null` is not a string to a typed
 * client (the JS SDK's `screenshots: string[]`).
 */
import type { PageArtifacts } from "../engines/types.ts";
import type { ScrapeDocument } from "./document.ts";
import type { RenderContext } from "./renderer.ts";

/** The `actions` field of a document. */
export interface ActionsField {
  screenshots: string[];
  scrapes: { url: string; html: string }[];
  javascriptReturns: { type: string; value: unknown }[];
  pdfs: string[];
}

const EXTENSIONS: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg", "application/pdf": "pdf" };

/** `{actions}` for a document, or nothing when the page ran no actions. */
export async function renderActionResults(artifacts: PageArtifacts | undefined, ctx: Pick<RenderContext, "storeFile">): Promise<Partial<ScrapeDocument>> {
  const a = artifacts?.actions;
  if (!a) return {};
  const store = (f: { bytes: Uint8Array; contentType: string }) => ctx.storeFile(f.bytes, f.contentType, EXTENSIONS[f.contentType] ?? "bin");
  const actions: ActionsField = {
    screenshots: await Promise.all(a.screenshots.map((f) => (f.bytes.byteLength === 0 ? "" : store(f)))),
    scrapes: a.scrapes,
    javascriptReturns: a.javascriptReturns,
    pdfs: await Promise.all(a.pdfs.map(store)),
  };
  return { actions };
}
