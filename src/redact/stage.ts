/**
 * @module redact/stage
 * Where `redactPII` enters a scrape (scrape/service.ts): the render context's markdown view is redacted in place,
 * before any format reads it, so `markdown`, the LLM formats and changeTracking (whose diff and stored history
 * would otherwise carry the raw text; it also redacts the previous snapshot it compares with) all see the
 * redacted copy; a parsed PDF's per-page markdown is redacted too; and a warning names the requested formats that
 * keep the page's own text.
 */
import type { FormatRenderer, RenderContext, RenderRun } from "../scrape/renderer.ts";
import type { ScrapeSpec } from "../scrape/spec.ts";
import type { PiiOptions, RedactionRun, Redactor } from "./redactor.ts";

/** Formats that carry the page's own text, which `redactPII` leaves as it is (as upstream: markdown only). */
const UNREDACTED_FORMATS = new Set(["html", "rawHtml", "rawBase64", "links", "images", "attributes"]);

/**
 * Redacts `ctx`'s markdown view when the request asks for it and one of its formats reads the markdown, and gives
 * `run` the means to redact other text the same way ({@link RenderRun.redact}). Called after the formats that read
 * the original page (links, images, attributes), so building the markdown does not make them parse it again.
 */
export async function redactMarkdownView(
  ctx: RenderContext,
  renderers: readonly (readonly [FormatRenderer, unknown])[],
  redactor: Redactor,
  run: RenderRun,
): Promise<void> {
  const options = ctx.spec.redactPII;
  if (!options || !renderers.some(([r]) => r.views?.includes("markdown"))) return;
  run.redact = (text) => redactor.redact(text, options, run);
  const redacted = await run.redact(ctx.markdown());
  ctx.markdown = () => redacted;
}

/** A parsed PDF's per-page markdown (`pages: true`), redacted like the document's. */
export async function redactPages(
  pages: { pageNumber: number; markdown: string }[] | undefined,
  options: PiiOptions | undefined,
  redactor: Redactor,
  run: RedactionRun,
): Promise<{ pageNumber: number; markdown: string }[] | undefined> {
  if (!pages || !options) return pages;
  const out: { pageNumber: number; markdown: string }[] = [];
  for (const p of pages) out.push({ pageNumber: p.pageNumber, markdown: await redactor.redact(p.markdown, options, run) });
  return out;
}

/** The document's warning about requested formats `redactPII` leaves unredacted; undefined when there are none. */
export function unredactedWarning(spec: ScrapeSpec): string | undefined {
  if (!spec.redactPII) return undefined;
  const kept = spec.formats.filter((f) => UNREDACTED_FORMATS.has(f.type)).map((f) => f.type);
  if (kept.length === 0) return undefined;
  return `redactPII redacts the markdown (and what is built from it) only; ${kept.join(", ")} still ${kept.length === 1 ? "holds" : "hold"} the page as served.`;
}
