/**
 * @module clean-content/stage
 * Where `onlyCleanContent` enters a scrape (scrape/service.ts): after redaction (the model reads the redacted
 * text), the render context's markdown view is replaced by the cleaned one, so `markdown` and every format built
 * from it (json, summary, changeTracking, `product`'s model, …: redact/markdown-readers.ts) read the cleaned page.
 * Formats of the page as served (html, rawHtml, links, images) are untouched; a request whose formats read no
 * markdown costs no model call and no credit.
 */
import type { FormatRenderer, RenderContext, RenderRun } from "../scrape/renderer.ts";
import { readsMarkdown } from "../redact/markdown-readers.ts";
import type { ContentCleaner } from "./cleaner.ts";

/** What the stage did: whether the model read the page (charged), and a warning for the document. */
export interface CleaningOutcome {
  ran: boolean;
  warning?: string;
}

/** Cleans `ctx`'s markdown view when the request asks for it and one of its formats reads the markdown. */
export async function cleanMarkdownView(
  ctx: RenderContext,
  renderers: readonly (readonly [FormatRenderer, unknown])[],
  cleaner: ContentCleaner | undefined,
  run: RenderRun,
): Promise<CleaningOutcome> {
  if (!ctx.spec.onlyCleanContent || !renderers.some(([r]) => readsMarkdown(r))) return { ran: false };
  if (!cleaner) throw new TypeError("onlyCleanContent needs the LLM: the capability check should have refused the request");
  const result = await cleaner.clean(ctx.markdown(), run);
  if (result.removedBlocks > 0) ctx.markdown = () => result.markdown;
  return result.warning ? { ran: result.ran, warning: result.warning } : { ran: result.ran };
}
