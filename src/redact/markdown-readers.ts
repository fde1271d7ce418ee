/**
 * @module redact/markdown-readers
 * Which renderers read a page's markdown view, which `redactPII` redacts and `onlyCleanContent` cleans before any of
 * them reads it (scrape/service.ts): those declaring `views: ["markdown"]`, which run after that step, and readers of
 * the original DOM that read the markdown too (`readsMarkdownToo`: `product`), which run before it and read the view
 * through `ctx.preparedMarkdown()`, which runs the step first. Either makes the step run at all.
 */
import type { FormatRenderer } from "../scrape/renderer.ts";

/** Whether `renderer` reads the markdown view (declared in `views`, or `readsMarkdownToo`). */
export function readsMarkdown(renderer: FormatRenderer): boolean {
  return renderer.views?.includes("markdown") === true || renderer.readsMarkdownToo === true;
}
