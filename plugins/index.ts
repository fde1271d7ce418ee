/**
 * @module plugins
 * The one place where plugins are registered. Adding a format is a new file in `plugins/formats/` and one line
 * here; nothing else changes.
 */
import { RendererRegistry } from "../src/scrape/renderer.ts";
import { attributesFormat } from "./formats/attributes.ts";
import { audioFormat } from "./formats/audio.ts";
import { htmlFormat } from "./formats/html.ts";
import { imagesFormat } from "./formats/images.ts";
import { linksFormat } from "./formats/links.ts";
import { markdownFormat } from "./formats/markdown.ts";
import { rawHtmlFormat } from "./formats/raw-html.ts";

export { createParserRegistry } from "./parsers/index.ts";

/** A registry holding every built-in format renderer. */
export function createRendererRegistry(): RendererRegistry {
  return new RendererRegistry()
    .register(markdownFormat)
    .register(htmlFormat)
    .register(rawHtmlFormat)
    .register(linksFormat)
    .register(imagesFormat)
    .register(attributesFormat)
    .register(audioFormat);
}
