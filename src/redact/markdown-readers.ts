/**
 * @module redact/markdown-readers
 * Which renderers read a page's markdown view, which `redactPII` redacts and `onlyCleanContent` cleans before any of
 * them reads it (scrape/service.ts), and how a reader of the original DOM reads that view prepared like the others.
 *
 * A renderer declaring `views: ["markdown"]` runs after the service's redact-and-clean step. `product` cannot: it
 * reads the original DOM (JSON-LD sits in `<script>`, which cleaning removes), so it runs before that step, and
 * `views` would say that it reads nothing else of the DOM (scrape/parse-workers/offload.ts). Yet it sends the
 * markdown to the model for a page without structured product data. It said nothing of that, so its model read the
 * raw markdown, PII and boilerplate included, and `formats: ["product"]` alone redacted nothing while charging the
 * redaction. Such a renderer now says so ({@link alsoReadsMarkdown}) and reads the view through
 * {@link preparedMarkdown}, which runs the step first (once per scrape) when it needs the markdown, and only then.
 */
import type { FormatRenderer, RenderContext } from "../scrape/renderer.ts";

/** Readers of the original DOM that read the markdown view too. */
const domReadersOfMarkdown = new WeakSet<FormatRenderer>();

/** Redact-and-clean steps of the scrapes running, by their render context. */
const preparations = new WeakMap<RenderContext, () => Promise<unknown>>();

/** Marks `renderer`, a reader of the original DOM, as reading the markdown view too; returns it. */
export function alsoReadsMarkdown<T extends FormatRenderer>(renderer: T): T {
  domReadersOfMarkdown.add(renderer);
  return renderer;
}

/** Whether `renderer` reads the markdown view (declared in `views`, or {@link alsoReadsMarkdown}). */
export function readsMarkdown(renderer: FormatRenderer): boolean {
  return renderer.views?.includes("markdown") === true || domReadersOfMarkdown.has(renderer);
}

/** Registers the scrape's redact-and-clean step for `ctx` (run at most once: the service memoises it). */
export function setMarkdownPreparation(ctx: RenderContext, prepare: () => Promise<unknown>): void {
  preparations.set(ctx, prepare);
}

/**
 * The markdown view once redacted and cleaned as the request asks: what a reader of the original DOM that also reads
 * the markdown ({@link alsoReadsMarkdown}) must read instead of `ctx.markdown()`. Throws what the step throws (a
 * model's `LLM_*` error fails the scrape, as it does for the other formats).
 */
export async function preparedMarkdown(ctx: RenderContext): Promise<string> {
  await preparations.get(ctx)?.();
  return ctx.markdown();
}
