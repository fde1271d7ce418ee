/**
 * @module scrape/parse-workers/protocol
 * Messages between the parse pool (main thread) and a parse worker. A worker answers its requests in order.
 */
import type { PrefilledViews } from "../render-context.ts";
import type { PageView } from "../renderer.ts";
import type { ScrapeSpec } from "../spec.ts";

/**
 * The spec fields that change the parsed views (cleaning and main content; `formats`: only the `attributes` ones,
 * whose selectors the `attributes` view matches); the rest stays on the main thread.
 */
export type ViewOptions = Pick<ScrapeSpec, "onlyMainContent" | "includeTags" | "excludeTags" | "removeBase64Images"> &
  Partial<Pick<ScrapeSpec, "formats">> & {
    /** Whether the request makes markdown: empty main content then falls back in `html` too (render-context.ts). */
    makesMarkdown?: boolean;
  };

/** Main → worker: compute `views` of one HTML page. */
export interface ParseRequest {
  id: number;
  /** The page's decoded markup. */
  html: string;
  /** The URL it was served from (after redirects): the base for relative links unless `<base href>` says otherwise. */
  pageUrl: string;
  contentType: string;
  options: ViewOptions;
  views: PageView[];
}

/** Worker → main. */
export type ParseResponse = { id: number; ok: true; views: PrefilledViews } | { id: number; ok: false; error: string };
