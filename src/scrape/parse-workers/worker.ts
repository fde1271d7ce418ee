/**
 * @module scrape/parse-workers/worker
 * A parse worker: computes the parsed views of HTML pages (metadata, links, images, cleaned HTML, markdown) on
 * its own thread, with the same render context the main thread uses (scrape/render-context.ts), and reads a map's
 * large pages with the map's own reader (crawl/map-page.ts), so the answers are the same. Compiled as an extra entry
 * point of the binary (scripts/build.ts). Speaks {@link WorkerRequest}/{@link ParseResponse}.
 */
import { readMapPage } from "../../crawl/map-page.ts";
import type { Page } from "../../engines/types.ts";
import { computeViews, createRenderContext } from "../render-context.ts";
import type { ScrapeSpec } from "../spec.ts";
import { packMapPage, type ParseResponse, type WorkerRequest } from "./protocol.ts";

declare const self: Worker;

const describe = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err));

self.addEventListener("message", (event: MessageEvent<WorkerRequest>) => {
  const req = event.data;
  try {
    if (req.kind === "mapPage") {
      self.postMessage({ id: req.id, ok: true, mapPage: packMapPage(readMapPage(req.html, req.pageUrl)) } satisfies ParseResponse);
      return;
    }
    const page = { finalUrl: req.pageUrl, requestedUrl: req.pageUrl, text: req.html, contentType: req.contentType } as Page;
    // Only the view options are read while computing views (storeFile and run are never called here).
    const ctx = createRenderContext(req.options as ScrapeSpec, page);
    self.postMessage({ id: req.id, ok: true, views: computeViews(ctx, req.views) } satisfies ParseResponse);
  } catch (err) {
    // Sending is inside the try too: views that cannot be cloned fail this page, not the worker.
    self.postMessage({ id: req.id, ok: false, error: describe(err) } satisfies ParseResponse);
  }
});
