/**
 * @module pipeline/markdown/emphasis
 * `<strong>`, `<em>` and `<del>` written so that CommonMark's flanking rules (spec 6.2) let them render.
 *
 * node-html-markdown wraps the text in delimiters and stops there, which fails in three common cases:
 * - `<strong>Warning:</strong>do` → `**Warning:**do`: a closing run after punctuation and before a letter is not
 *   right-flanking, so the asterisks print. We add a space on that side (and mirror it for the opening run).
 * - `foo<em>bar</em>baz` → `foo_bar_baz`: `_` never opens or closes inside a word. Intraword emphasis uses `*`.
 * - `<strong>a</strong><strong>b</strong>` → `**a** **b**`: the library inserts a space between the runs, which
 *   changes the text. Adjacent elements of one kind are merged into one run instead (`**ab**`).
 * An element nested in one of its own kind is written without delimiters (`**a **b** c**` does not parse); the
 * library stripped every unescaped delimiter character from the content instead, including those in URLs.
 */
import { PostProcessResult, type TranslatorConfig } from "node-html-markdown";
import { BLOCK_TAGS, ELEMENT_NODE, charAfter, siblingOf, type MarkdownNode } from "./dom.ts";

/** One kind of emphasis: the tags that produce it and its delimiter. */
interface EmphasisKind {
  readonly tags: ReadonlySet<string>;
  readonly delimiter: "**" | "_" | "~~";
}

const STRONG: EmphasisKind = { tags: new Set(["STRONG", "B"]), delimiter: "**" };
const EMPHASIS: EmphasisKind = { tags: new Set(["EM", "I"]), delimiter: "_" };
const STRIKE: EmphasisKind = { tags: new Set(["DEL", "S", "STRIKE"]), delimiter: "~~" };

/** Neither whitespace nor punctuation: the characters next to which a delimiter run is intraword. */
const WORD_CHAR_RE = /[\p{L}\p{N}\p{M}]/u;
/** CommonMark's punctuation: ASCII punctuation and Unicode P and S categories. */
const PUNCTUATION_RE = /[\p{P}\p{S}]/u;
/** An unescaped `*` in rendered content: `*` cannot then delimit the emphasis around it. */
const UNESCAPED_STAR_RE = /(?:^|[^\\])(?:\\\\)*\*/;

function isSameKind(node: MarkdownNode | null, kind: EmphasisKind): boolean {
  return !!node && node.nodeType === ELEMENT_NODE && kind.tags.has(node.tagName ?? "") && /\S/.test(node.textContent);
}

/** Inside another element of the same kind, up to the enclosing block. */
function isNested(node: MarkdownNode, kind: EmphasisKind): boolean {
  for (let up = node.parentNode; up && !BLOCK_TAGS.has(up.tagName ?? ""); up = up.parentNode) {
    if (kind.tags.has(up.tagName ?? "")) return true;
  }
  return false;
}

/**
 * The character written just before the element's `content`, which ends `written` ("" at the start).
 *
 * `written` is the whole output so far, built by `+=`: a rope in JavaScriptCore. `charAt` (and `[i]`, `at`) on a
 * rope copies the whole output into one flat string first, so reading it once per element made a page's conversion
 * quadratic (40,000 `<b>`: 2 s; a 4 MB page: 6 s). A one-character `slice` lies within one piece of the rope and
 * is read from that piece without the copy, as node-html-markdown's own `slice(-1)` is.
 */
function charBeforeContent(written: string, content: string): string {
  const at = written.length - content.length - 1;
  return at < 0 ? "" : written.slice(at, at + 1);
}

/**
 * Wrap each non-blank line of `content` in delimiters, keeping leading and trailing whitespace outside them (as
 * node-html-markdown does); `open`/`close` are left off the first/last line when merging with a neighbour.
 */
function wrapLines(content: string, delimiter: string, open: boolean, close: boolean): string {
  const lines = content.split("\n");
  const filled = lines.flatMap((line, i) => (/\S/.test(line) ? [i] : []));
  const first = filled[0];
  const last = filled[filled.length - 1];
  return lines
    .map((line, i) => {
      if (!/\S/.test(line)) return line;
      const start = line.search(/\S/);
      const end = line.trimEnd().length;
      const before = i === first && !open ? "" : delimiter;
      const after = i === last && !close ? "" : delimiter;
      return `${line.slice(0, start)}${before}${line.slice(start, end)}${after}${line.slice(end)}`;
    })
    .join("\n");
}

/**
 * A plain config, not a factory: node-html-markdown keeps an empty element (an icon font's `<i class="fa-x"></i>`)
 * when its translator is a factory, and a link around it would then be written as `[](url)`.
 */
function emphasisTranslator(kind: EmphasisKind): TranslatorConfig {
  return {
    spaceIfRepeatingChar: true,
    postprocess: ({ node, content, visitor }) => {
      if (!/\S/.test(content)) return PostProcessResult.RemoveNode;
      const self = node as unknown as MarkdownNode;
      if (isNested(self, kind)) return content;
      const joinsPrevious = isSameKind(siblingOf(self, -1), kind);
      const joinsNext = isSameKind(siblingOf(self, 1), kind);
      const before = charBeforeContent(visitor.result.text, content);
      const after = joinsNext ? "" : charAfter(self);
      const text = content.trim();
      let delimiter: string = kind.delimiter;
      // A merged run's halves must agree on the delimiter without seeing each other: `*` suits every position.
      const intraword = WORD_CHAR_RE.test(before) || WORD_CHAR_RE.test(after) || joinsPrevious || joinsNext;
      if (kind === EMPHASIS && intraword && !UNESCAPED_STAR_RE.test(content)) delimiter = "*";
      let out = wrapLines(content, delimiter, !joinsPrevious, !joinsNext);
      if (!joinsPrevious && WORD_CHAR_RE.test(before) && PUNCTUATION_RE.test(text.charAt(0)) && !/^\s/.test(content)) out = ` ${out}`;
      if (!joinsNext && WORD_CHAR_RE.test(after) && PUNCTUATION_RE.test(text.charAt(text.length - 1)) && !/\s$/.test(content)) out = `${out} `;
      return out;
    },
  };
}

/** Translators for `strong,b`, `em,i` and `del,s,strike`, for the main text, link text and table cells alike. */
export const EMPHASIS_TRANSLATORS = {
  "strong,b": emphasisTranslator(STRONG),
  "em,i": emphasisTranslator(EMPHASIS),
  "del,s,strike": emphasisTranslator(STRIKE),
} as const;
