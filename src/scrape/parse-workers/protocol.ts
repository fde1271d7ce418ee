/**
 * @module scrape/parse-workers/protocol
 * Messages between the parse pool (main thread) and a parse worker. A worker answers its requests in order.
 */
import type { MapPage } from "../../crawl/map-page.ts";
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
  /** A scrape's views (the default). */
  kind?: "views";
  /** The page's decoded markup. */
  html: string;
  /** The URL it was served from (after redirects): the base for relative links unless `<base href>` says otherwise. */
  pageUrl: string;
  contentType: string;
  options: ViewOptions;
  views: PageView[];
}

/**
 * Main → worker: read one page as a map does (crawl/map-page.ts `readMapPage`: title, description, links). Not the
 * scrape's views: a map parses every page as HTML and reads its title and description its own way.
 */
export interface MapPageRequest {
  id: number;
  kind: "mapPage";
  /** The page's decoded markup. */
  html: string;
  /** The URL it was served from (after redirects). */
  pageUrl: string;
}

/** Main → worker. */
export type WorkerRequest = ParseRequest | MapPageRequest;

/**
 * A map page on its way back: its links joined by line feeds into one string, which no link holds (a URL's parser
 * drops them, a `mailto:` link has its control characters removed: pipeline/links.ts); `links` if one did all the same.
 * Posting 300,000 links as an array cost ~250 ms (each string cloned on its own, the main thread taking ~25 ms of
 * it); as one string, ~15 ms, and ~15–30 ms for the main thread to split it.
 */
export type PackedMapPage = Omit<MapPage, "links"> & ({ joinedLinks: string } | { links: string[] });

/** `page` packed for the trip back (see {@link PackedMapPage}). */
export function packMapPage({ links, ...info }: MapPage): PackedMapPage {
  // An empty link would be lost too ([""] joins to "", read back as no link); none is made either.
  return links.some((l) => l === "" || l.includes("\n")) ? { ...info, links } : { ...info, joinedLinks: links.join("\n") };
}

/** The map page a worker packed. */
export function unpackMapPage(packed: PackedMapPage): MapPage {
  if ("links" in packed) return packed;
  const { joinedLinks, ...info } = packed;
  return { ...info, links: joinedLinks === "" ? [] : joinedLinks.split("\n") };
}

/** Worker → main: `views` answers a {@link ParseRequest}, `mapPage` a {@link MapPageRequest}. */
export type ParseResponse =
  | { id: number; ok: true; views: PrefilledViews }
  | { id: number; ok: true; mapPage: PackedMapPage }
  | { id: number; ok: false; error: string };

/** A worker's answer to a page it read. */
export type ParseAnswer = Extract<ParseResponse, { ok: true }>;
