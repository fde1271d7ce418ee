/**
 * @module pipeline
 * The HTML content pipeline: `parseHtml` → `cleanHtml` (the `html` format) → `htmlToMarkdown` (the `markdown`
 * format). Pure functions with no I/O; `main-content/` holds the scorer behind `onlyMainContent`.
 */
export { isXmlContentType, parseHtml, type ParseOptions } from "./parse.ts";
export { cleanHtml, type CleanOptions } from "./clean.ts";
export { htmlToMarkdown } from "./markdown.ts";
export { selectMainContent, type MainContent } from "./main-content/index.ts";
