/**
 * @module pipeline/markdown/math
 * Formulas, superscripts and subscripts written so that they keep their meaning.
 *
 * node-html-markdown writes `<sup>` and `<sub>` as their bare text and MathML as the text of its every node: `10<sup>6</sup>
 * km<sup>2</sup>` became "106 km2", `<msup><mi>y</mi><mn>2</mn></msup>` "y2", and a formula that carries its TeX
 * (KaTeX, MathJax, MediaWiki: an `<annotation encoding="application/x-tex">`, or `alttext`) came out two or three
 * times over: the MathML's text, then the TeX, then KaTeX's visual copy or MediaWiki's fallback image
 * (`E=mc2{\displaystyle E=mc^{2}}![…](….svg)`). Here:
 * - `<sup>`/`<sub>` stay HTML (GFM renders them; a reader or a model sees `10<sup>6</sup>`), unless they hold a
 *   link: a footnote mark (`<sup><a href="#cite_note-1">[1]</a></sup>`) stays the link it was;
 * - a `<math>` with TeX is `` $`tex`$ `` (a ```math block for `display="block"`), KaTeX's visual copy (`.katex-html`) is
 *   dropped, and MediaWiki's formula is written once, from its fallback image's TeX (the MathML beside it is hidden
 *   and so dropped by main content, while the image is not).
 */
import { PostProcessResult, type TranslatorConfig, type TranslatorConfigFactory } from "node-html-markdown";
import type { MarkdownNode } from "./dom.ts";
import { codeFence, codeSpan } from "./escape.ts";

/** A parsed element as these translators read it (node-html-parser's, typed structurally). */
type QueryNode = MarkdownNode & { querySelector(selector: string): QueryNode | null; querySelectorAll(selector: string): QueryNode[] };

const TEX_ENCODING_RE = /^application\/(?:x-)?tex$/i;
/** MediaWiki wraps its TeX in a style command: `{\displaystyle E=mc^{2}}`. */
const STYLE_WRAPPER_RE = /^\{\\(?:displaystyle|textstyle|scriptstyle)\s*([\s\S]*)\}$/;
/** MediaWiki's formula image, whose alt text is the formula's TeX. */
const MEDIAWIKI_MATH_IMAGE_RE = /(?:^|\s)mwe-math-fallback-image-(?:inline|display)(?:\s|$)/;
/** MediaWiki's accessible MathML copy of a formula, written beside its image. */
const MEDIAWIKI_MATHML_RE = /(?:^|\s)mwe-math-mathml-(?:inline|display)(?:\s|$)/;

/** TeX without MediaWiki's style wrapper, on one line when inline. */
function cleanTex(tex: string, block: boolean): string {
  const bare = tex.trim().replace(STYLE_WRAPPER_RE, "$1").trim();
  return block ? bare : bare.replace(/\s+/g, " ");
}

/**
 * Text written as is (a MathML script's part): `&` and `<` as entities, markdown's punctuation backslash-escaped,
 * so that a page's `<mi>[a](x)</mi>` stays text.
 */
const escapeText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/[\\`*_[\]~]/g, "\\$&");

/**
 * A formula in GitHub's math syntax, whose TeX is code, so never read as markdown: `` $`tex`$ `` inline, a ```math
 * block for a displayed one; "" without TeX. Bare `$tex$` let a page's TeX write markdown (`[click](…)` was a live
 * link, blank lines in a displayed formula split it into paragraphs and `#` lines into headings) and broke on a
 * `$` inside.
 */
function writeTex(tex: string, block: boolean): string {
  const body = cleanTex(tex, block);
  if (!body) return "";
  if (block) {
    const fence = codeFence(body);
    return `${fence}math\n${body}\n${fence}`;
  }
  return `$${codeSpan(body)}$`;
}

/** The TeX a `<math>` element carries: its TeX annotation, else its `alttext`. */
function texOf(math: QueryNode): string | undefined {
  for (const annotation of math.querySelectorAll("annotation")) {
    if (TEX_ENCODING_RE.test(annotation.getAttribute?.("encoding") ?? "")) return annotation.textContent;
  }
  return math.getAttribute?.("alttext") ?? undefined;
}

/** `<math>`: its TeX between dollar signs, else its text as before. */
const mathTranslator: TranslatorConfigFactory = ({ node }) => {
  const math = node as unknown as QueryNode;
  if (MEDIAWIKI_MATHML_RE.test(math.parentNode?.getAttribute?.("class") ?? "")) return { ignore: true };
  const tex = texOf(math);
  if (!tex?.trim()) return {};
  const block = math.getAttribute?.("display") === "block";
  return { content: writeTex(tex, block), recurse: false, noEscape: true, ...(block ? { surroundingNewlines: 2 } : {}) };
};

/** The text of an element's element children, in order (MathML's scripts name their parts by position). */
function partsOf(node: MarkdownNode): string[] {
  return node.childNodes.filter((c) => c.nodeType === 1).map((c) => escapeText(c.textContent.replace(/\s+/g, " ").trim()));
}

/**
 * MathML scripts without TeX (`<msup>`, `<msub>`, `<msubsup>`): the base, then its scripts as `<sup>`/`<sub>`, as
 * the rest of the page writes them (`<msup><mi>y</mi><mn>2</mn></msup>` was "y2").
 */
const mathScriptTranslator: TranslatorConfigFactory = ({ node }) => {
  const [base = "", first = "", second = ""] = partsOf(node as unknown as MarkdownNode);
  const tag = node.tagName.toLowerCase();
  const content = tag === "msup" ? `${base}<sup>${first}</sup>` : tag === "msub" ? `${base}<sub>${first}</sub>` : `${base}<sub>${first}</sub><sup>${second}</sup>`;
  return { content, recurse: false, noEscape: true };
};

/** `<span>`: KaTeX's visual copy of a formula is dropped (its `<math>` beside it carries the TeX). */
const spanTranslator: TranslatorConfigFactory = ({ node }) =>
  /(?:^|\s)katex-html(?:\s|$)/.test(node.getAttribute("class") ?? "") ? { ignore: true } : {};

/** MediaWiki's formula image as `$tex$` (undefined for any other image). */
export function mediaWikiFormula(className: string | undefined, alt: string | undefined): string | undefined {
  if (!className || !MEDIAWIKI_MATH_IMAGE_RE.test(className) || !alt?.trim()) return undefined;
  return writeTex(alt, /mwe-math-fallback-image-display/.test(className));
}

/** Whether `node` is inside code, where HTML is shown as written (`` `x<sup>2</sup>` ``). */
function inCode(node: MarkdownNode): boolean {
  for (let up = node.parentNode; up; up = up.parentNode) if (up.tagName === "CODE" || up.tagName === "PRE") return true;
  return false;
}

/**
 * `<sup>`, `<sub>`: kept as HTML, unless they hold a link (a footnote mark), which is written as before, or sit in
 * code, where the tags would print.
 */
const supSubTranslator: TranslatorConfigFactory = ({ node }): TranslatorConfig => {
  if ((node as unknown as QueryNode).querySelector("a") || inCode(node as unknown as MarkdownNode)) return {};
  const tag = node.tagName.toLowerCase();
  return {
    prefix: `<${tag}>`,
    postfix: `</${tag}>`,
    postprocess: ({ content }) => (content.trim() ? content.trim() : PostProcessResult.RemoveNode),
  };
};

/** Translators for formulas, scripts and KaTeX's spans, for the main text, link text and table cells alike. */
export const MATH_TRANSLATORS = {
  math: mathTranslator,
  span: spanTranslator,
  "sup,sub": supSubTranslator,
  "msup,msub,msubsup": mathScriptTranslator,
} as const;
