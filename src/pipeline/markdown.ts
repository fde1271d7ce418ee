/**
 * @module pipeline/markdown
 * Cleaned HTML → GitHub-flavoured markdown with node-html-markdown.
 *
 * On top of node-html-markdown's defaults we add: fenced code blocks for every `<pre>` (not only
 * `<pre><code class="language-x">`) with the language read from `language-x`, `lang-x`, `highlight-x`,
 * `highlight-source-x` or `brush: x` on the `<pre>`, its `<code>` child or a wrapping element; a fence longer
 * than any backtick run inside the code; images whose `src` was removed render as their alt text; and the
 * output is normalised (trailing spaces, runs of blank lines, no leading or trailing blank lines).
 */
import { NodeHtmlMarkdown, type TranslatorConfigObject } from "node-html-markdown";

/** Class patterns that name a code block's language, most specific first. */
const LANGUAGE_CLASS_RES = [
  /(?:^|\s)(?:language|lang)-([\w#+.-]+)/i,
  /(?:^|\s)highlight-source-([\w#+.-]+)/i,
  /(?:^|\s)highlight-(?!source\b)([\w#+.-]+)/i,
  /(?:^|\s)brush:\s*([\w#+.-]+)/i,
];
/** How many ancestors of a `<pre>` are searched for a language class (GitHub, Sphinx and Hugo wrap it). */
const MAX_LANGUAGE_ANCESTORS = 2;
/** Values of `class="highlight-…"` that are not languages. */
const NOT_LANGUAGES = new Set(["default", "none", "text", "plain", "plaintext", "notranslate"]);

interface MinimalNode {
  getAttribute?(name: string): string | undefined | null;
  parentNode?: MinimalNode | null;
  childNodes?: MinimalNode[];
  tagName?: string;
}

function languageOf(node: MinimalNode | null | undefined): string {
  const cls = node?.getAttribute?.("class") ?? "";
  const dataLang = node?.getAttribute?.("data-lang") ?? node?.getAttribute?.("data-language") ?? "";
  if (dataLang && /^[\w#+.-]+$/.test(dataLang)) return dataLang.toLowerCase();
  if (!cls) return "";
  for (const re of LANGUAGE_CLASS_RES) {
    const m = re.exec(cls);
    if (m && !NOT_LANGUAGES.has(m[1]!.toLowerCase())) return m[1]!.toLowerCase();
  }
  return "";
}

/** Finds the language of a `<pre>` block from its `<code>` child, itself, or a close ancestor. */
function codeBlockLanguage(pre: MinimalNode): string {
  for (const child of pre.childNodes ?? []) {
    if (child.tagName === "CODE") {
      const lang = languageOf(child);
      if (lang) return lang;
    }
  }
  let node: MinimalNode | null | undefined = pre;
  for (let depth = 0; node && depth <= MAX_LANGUAGE_ANCESTORS; depth++, node = node.parentNode) {
    const lang = languageOf(node);
    if (lang) return lang;
  }
  return "";
}

/**
 * Tables used for page layout (a nested table, or headings, lists and code inside cells) are rendered as plain
 * blocks: as a GFM table the whole page would become one padded row, unreadable and slow to build.
 */
const LAYOUT_TABLE_CONTENT = "table, h1, h2, h3, h4, h5, h6, ul, ol, pre, blockquote, form";
/** node-html-markdown's own GFM table translator, used for data tables. */
const GFM_TABLE = new NodeHtmlMarkdown().translators.get("table");
/** node-html-markdown's own list item translator: it numbers an `<ol>`'s items from 1 whatever its `start`. */
const LIST_ITEM = new NodeHtmlMarkdown().translators.get("li");

const TRANSLATORS: TranslatorConfigObject = {
  table: (ctx) => {
    if ((ctx.node as unknown as { querySelector(s: string): unknown }).querySelector(LAYOUT_TABLE_CONTENT)) {
      return { surroundingNewlines: 2 };
    }
    return typeof GFM_TABLE === "function" ? GFM_TABLE(ctx) : (GFM_TABLE ?? {});
  },
  // An `<ol start="3">` numbers its items from 3 (steps continued after an interruption), as a browser shows them.
  li: (ctx) => {
    const item = typeof LIST_ITEM === "function" ? LIST_ITEM(ctx) : (LIST_ITEM ?? {});
    const list = (ctx.node as unknown as { parentNode?: { getAttribute?(name: string): string | null } }).parentNode;
    const start = Number.parseInt(list?.getAttribute?.("start") ?? "", 10);
    if (ctx.listKind !== "OL" || ctx.listItemNumber === undefined || !Number.isSafeInteger(start) || start === 1 || typeof item.prefix !== "string") return item;
    return { ...item, prefix: item.prefix.replace(/\d+\. $/, `${ctx.listItemNumber + start - 1}. `) };
  },
  // Only reached inside layout tables: GFM tables switch to their own row and cell translators.
  tr: { surroundingNewlines: 1 },
  "td,th": { surroundingNewlines: 1 },
  pre: ({ node, visitor }) => {
    const language = codeBlockLanguage(node as unknown as MinimalNode);
    return {
      noEscape: true,
      preserveWhitespace: true,
      surroundingNewlines: 2,
      childTranslators: visitor.instance.codeBlockTranslators,
      postprocess: ({ content }) => {
        const code = content.replace(/^\n+|\s+$/g, "");
        if (!code) return "";
        const longestRun = Math.max(2, ...(code.match(/`{3,}/g) ?? []).map((run) => run.length));
        const fence = "`".repeat(longestRun + 1);
        return `${fence}${language}\n${code}\n${fence}`;
      },
    };
  },
  img: ({ node }) => {
    const src = node.getAttribute("src") ?? "";
    const alt = (node.getAttribute("alt") ?? "").replace(/\s+/g, " ").trim();
    if (!src) return alt ? { content: alt, recurse: false } : { ignore: true };
    const title = node.getAttribute("title") ?? "";
    const safeSrc = src.replace(/[()\s]/g, (c) => encodeURIComponent(c));
    return { content: `![${alt.replace(/[[\]]/g, "\\$&")}](${safeSrc}${title ? ` "${title.replace(/"/g, "'")}"` : ""})`, recurse: false };
  },
};

/** Block-level extras node-html-markdown does not know about; without them their text runs together. */
const EXTRA_BLOCK_ELEMENTS = ["DETAILS", "SUMMARY", "DIALOG", "NAV", "FIGURE", "FIGCAPTION", "DL", "DT", "DD"];

const converter = new NodeHtmlMarkdown(
  {
    codeBlockStyle: "fenced",
    bulletMarker: "-",
    keepDataImages: true,
    // Blank-line runs are collapsed by tidy(), which leaves code blocks alone; the built-in pass does not.
    maxConsecutiveNewlines: 1000,
    blockElements: EXTRA_BLOCK_ELEMENTS,
    ignore: ["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "SVG", "BUTTON", "SELECT", "TEXTAREA", "IFRAME"],
  },
  TRANSLATORS,
);

/**
 * Convert HTML (normally the output of `cleanHtml`) to markdown.
 *
 * @param html - an HTML document or fragment
 * @returns GFM markdown: `#` headings, `-` bullets, `**strong**`, `_em_`, `[text](url)` links, GFM tables and
 *   fenced code blocks with a language tag when one is declared; never more than one blank line in a row
 *   outside code blocks.
 * @example
 * htmlToMarkdown('<pre><code class="language-ts">let a = 1;</code></pre>'); // "```ts\nlet a = 1;\n```"
 */
export function htmlToMarkdown(html: string): string {
  if (!html.trim()) return "";
  return tidy(converter.translate(slimHtml(html)));
}

/** A start tag with its attributes (quoted values may contain `>`). */
const START_TAG_RE = /<([a-zA-Z][\w:-]*)((?:\s+[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*\/?>/g;
const ATTRIBUTE_RE = /([^\s=>/]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?/g;
/** The only attributes the converter reads. */
const MARKDOWN_ATTRIBUTES = new Set(["href", "src", "alt", "title", "class", "data-lang", "data-language", "colspan", "start"]);
const SVG_RE = /<svg\b[\s\S]*?<\/svg\s*>/gi;

/**
 * Drop what the converter ignores (inline SVG, style, data-* and other attributes) before node-html-markdown
 * parses the string: on whole pages attributes are most of the bytes and parsing them was most of the time.
 */
function slimHtml(html: string): string {
  return html.replace(SVG_RE, "").replace(START_TAG_RE, (tag, name: string, attrs: string) => {
    if (!attrs) return tag;
    let kept = "";
    for (const m of attrs.matchAll(ATTRIBUTE_RE)) {
      if (MARKDOWN_ATTRIBUTES.has(m[1]!.toLowerCase()) && m[2] !== undefined) kept += ` ${m[1]}=${m[2]}`;
    }
    return `<${name}${kept}>`;
  });
}

/**
 * Normalise whitespace outside fenced code blocks: strip trailing spaces (keeping two-space hard breaks), collapse
 * runs of blank lines to one, and put a blank line around every fence. Code inside fences is left untouched.
 */
function tidy(markdown: string): string {
  const lines = markdown.split("\n");
  const out: string[] = [];
  let fence = "";
  for (const raw of lines) {
    if (fence) {
      out.push(raw);
      if (raw.trimEnd() === fence) {
        fence = "";
        out.push("");
      }
      continue;
    }
    const opening = /^(`{3,})[^`]*$/.exec(raw);
    if (opening) {
      if (out.length && out[out.length - 1] !== "") out.push("");
      fence = opening[1]!;
      out.push(raw);
      continue;
    }
    const line = /^\s*$/.test(raw) ? "" : raw.replace(/[ \t]+$/, (spaces) => (spaces.length >= 2 ? "  " : ""));
    if (line === "" && (out.length === 0 || out[out.length - 1] === "")) continue;
    out.push(line);
  }
  while (out.length && out[out.length - 1] === "") out.pop();
  return out.join("\n");
}
