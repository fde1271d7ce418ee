/**
 * @module redact/stage
 * Where `redactPII` enters a scrape (scrape/service.ts): the render context's markdown view is redacted in place,
 * before any format reads it (redact/markdown-readers.ts), so `markdown`, the LLM formats, `product`'s model and
 * changeTracking (whose diff and stored history would otherwise carry the raw text; it also redacts the previous
 * snapshot it compares with) all see the redacted copy; the formats that read more than the markdown redact the
 * rest with the run's {@link RenderRun.redact} (what `deterministicJson` sends its model from the page besides the
 * markdown, and its answer; `product`'s values read from structured data); a parsed PDF's per-page markdown is
 * redacted too; and a warning names the requested formats that keep the page's own text.
 */
import type { FormatRenderer, RenderContext, RenderRun } from "../scrape/renderer.ts";
import type { ScrapeSpec } from "../scrape/spec.ts";
import { readsMarkdown } from "./markdown-readers.ts";
import type { PiiOptions, RedactionRun, Redactor } from "./redactor.ts";

/** Formats that carry the page's own text, which `redactPII` leaves as it is (as upstream: markdown only). */
const UNREDACTED_FORMATS = new Set(["html", "rawHtml", "rawBase64", "links", "images", "attributes"]);

/**
 * Gives `run` the means to redact text as the page's markdown is ({@link RenderRun.redact}) when the request asks
 * for redaction: set before any format renders, so that a format may redact what it reads besides the markdown.
 */
export function armRedaction(spec: ScrapeSpec, redactor: Redactor, run: RenderRun): void {
  const options = spec.redactPII;
  if (!options) return;
  run.redact = (text, budget) => redactor.redact(text, options, run, budget);
}

/**
 * Redacts `ctx`'s markdown view when the request asks for it ({@link armRedaction} armed `run`) and one of its
 * formats reads the markdown. Called after the formats that read the original page (links, images, attributes), so
 * building the markdown does not make them parse it again.
 */
export async function redactMarkdownView(ctx: RenderContext, renderers: readonly (readonly [FormatRenderer, unknown])[], run: RenderRun): Promise<void> {
  if (!run.redact || !renderers.some(([r]) => readsMarkdown(r))) return;
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
