/**
 * @module pipeline/markdown/code-block
 * `<pre>` as a fenced code block, for every `<pre>` (not only `<pre><code class="language-x">`), with the language
 * read from `language-x`, `lang-x`, `highlight-x`, `highlight-source-x` or `brush: x` on the `<pre>`, its `<code>`
 * child or a wrapping element, and a fence longer than any backtick run inside the code.
 */
import type { TranslatorConfigFactory } from "node-html-markdown";
import type { MarkdownNode } from "./dom.ts";
import { codeFence } from "./escape.ts";
import { leadingNewlines } from "./whitespace.ts";

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

function languageOf(node: MarkdownNode | null | undefined): string {
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
export function codeBlockLanguage(pre: MarkdownNode): string {
  for (const child of pre.childNodes ?? []) {
    if (child.tagName === "CODE") {
      const lang = languageOf(child);
      if (lang) return lang;
    }
  }
  let node: MarkdownNode | null | undefined = pre;
  for (let depth = 0; node && depth <= MAX_LANGUAGE_ANCESTORS; depth++, node = node.parentNode) {
    const lang = languageOf(node);
    if (lang) return lang;
  }
  return "";
}

/**
 * Translator for `pre`: the code verbatim (its leading blank lines and trailing whitespace trimmed) between fences
 * one backtick longer than its longest backtick run, at least three.
 */
export const codeBlockTranslator: TranslatorConfigFactory = ({ node, visitor }) => {
  const language = codeBlockLanguage(node as unknown as MarkdownNode);
  return {
    noEscape: true,
    preserveWhitespace: true,
    surroundingNewlines: 2,
    childTranslators: visitor.instance.codeBlockTranslators,
    postprocess: ({ content }) => {
      const code = content.slice(leadingNewlines(content)).trimEnd();
      if (!code) return "";
      const fence = codeFence(code);
      return `${fence}${language}\n${code}\n${fence}`;
    },
  };
};
