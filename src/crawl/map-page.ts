/**
 * @module crawl/map-page
 * What a map reads from one fetched page (crawl/map-discovery.ts): its title, its description, and its links.
 *
 * The title is the document's own: the first `<title>` outside `<svg>` (and `<script>`, `<style>`, `<template>`),
 * as a browser's `document.title` takes only an HTML title element (pipeline/document-scan.ts). A page without a
 * head title was listed as "Close icon", an inline SVG icon's title. The description is the first
 * `<meta name="description">` with some text (an empty one, a template's placeholder, hid a real one after it).
 * Both have their whitespace collapsed (a description kept its newlines and indentation) and are cut at a word
 * before {@link MAP_MAX_TITLE_CHARS} and {@link MAP_MAX_DESCRIPTION_CHARS}: a 20,000-character title came back
 * whole, in a listing meant to be skimmed.
 */
import { extractLinks } from "../pipeline/links.ts";
import { scanDocument } from "../pipeline/document-scan.ts";
import { parseHtml } from "../pipeline/parse.ts";
import { documentBaseUrl } from "../pipeline/url.ts";

/** Longest title a map lists (a search result's title is far shorter; this keeps any real one whole). */
export const MAP_MAX_TITLE_CHARS = 300;
/** Longest description a map lists. */
export const MAP_MAX_DESCRIPTION_CHARS = 1000;
/** A cut at a word boundary may give back at most this share of the cap; past it the text is cut mid-word. */
const WORD_CUT_MIN_SHARE = 0.5;

/** What a page gives the map. */
export interface MapPage {
  title?: string;
  description?: string;
  /** Absolute link targets, in document order, unique. */
  links: string[];
}

/**
 * `text` collapsed to single spaces and trimmed, then cut to at most `maxChars`: at the last space within them (the
 * word that crosses the cap goes whole), or, when that would drop more than half, at `maxChars` (never inside a
 * surrogate pair). Undefined for nothing left.
 */
export function clipText(text: string | null | undefined, maxChars: number): string | undefined {
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  if (flat === "") return undefined;
  if (flat.length <= maxChars) return flat;
  const space = flat.lastIndexOf(" ", maxChars);
  if (space >= maxChars * WORD_CUT_MIN_SHARE) return flat.slice(0, space);
  const end = /[\uD800-\uDBFF]/.test(flat[maxChars - 1]!) ? maxChars - 1 : maxChars;
  return flat.slice(0, end);
}

/** The title, description and links of an HTML page served from `pageUrl` (its final URL). */
export function readMapPage(html: string, pageUrl: string): MapPage {
  const doc = parseHtml(html);
  return { ...pageInfo(doc), links: extractLinks(doc, documentBaseUrl(doc, pageUrl)) };
}

/** The title and description of an HTML page, without its links. */
export function readMapPageInfo(html: string): Omit<MapPage, "links"> {
  return pageInfo(parseHtml(html));
}

function pageInfo(doc: Document): Omit<MapPage, "links"> {
  const scan = scanDocument(doc);
  const title = clipText(scan.title?.textContent, MAP_MAX_TITLE_CHARS);
  let description: string | undefined;
  for (const m of scan.metas) {
    if (m.getAttribute("name")?.toLowerCase() !== "description") continue;
    description = clipText(m.getAttribute("content"), MAP_MAX_DESCRIPTION_CHARS);
    if (description) break;
  }
  return { ...(title ? { title } : {}), ...(description ? { description } : {}) };
}
