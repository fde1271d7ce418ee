/**
 * @module pipeline/markdown/escape
 * Escaping of text that markdown would otherwise read as HTML, and of the pieces of links and images.
 *
 * node-html-markdown escapes markdown syntax (`*`, `_`, `[`…) but not HTML: `<p>&amp;copy;</p>` came out as
 * `&copy;`, which renders ©, and `<p>&lt;script&gt;x&lt;/script&gt;</p>` as a live `<script>` element that a
 * renderer hides (or runs). We escape:
 * - an `&` that starts an entity or character reference (`&name;`, `&#123;`, `&#x1F;`, CommonMark 2.5);
 * - a `<` that starts a comment, processing instruction, declaration or CDATA section, or a start or end tag of an
 *   element whose content a browser hides or does not read as markup (`script`, `style`, `template`, `title`,
 *   `iframe`, `noscript`, `noembed`, `noframes`, `textarea`, `xmp`, `plaintext`) or that opens a CommonMark HTML
 *   block running to its end tag whatever blank lines come first (`pre`, spec 4.6 condition 1).
 * Other tag-like text (`a <world> b`, `<p>Desc</p>` from an RSS description) is written as is: turndown and
 * Firecrawl escape no `<`, and crawlbox documents that markup in XML text survives as written
 * (test/scrape/xml-cdata.test.ts). An ordinary `a < b & c` is never touched.
 */

/** Tag names whose `<name` or `</name` is escaped in text (see the module comment). */
const HIDING_TAGS = "script|style|template|title|iframe|noscript|noembed|noframes|textarea|xmp|plaintext|pre";
/**
 * A `<` that starts a comment, PI, declaration, CDATA or a {@link HIDING_TAGS} tag, and an `&` that starts an
 * entity or numeric character reference.
 */
const HTML_LIKE_RE = new RegExp(
  `<(?=!--|![A-Za-z[]|\\?|\\/?(?:${HIDING_TAGS})(?![A-Za-z0-9-]))|&(?=[A-Za-z][A-Za-z0-9]{1,31};|#[0-9]{1,7};|#[xX][0-9A-Fa-f]{1,6};)`,
  "gi",
);

/** node-html-markdown `textReplace` rule that backslash-escapes {@link HTML_LIKE_RE} matches in every text node. */
export const HTML_TEXT_REPLACE: [RegExp, string] = [HTML_LIKE_RE, "\\$&"];

/**
 * node-html-markdown `lineStartEscape` rule: a backslash before what would start a block at the start of a line
 * (`+ `, `-`, `=`, `>`, `# `…`###### `, and an ordered list marker `1.` or `1)`). The library's own rule left
 * `2) text` alone, which renders as a list item, and escaped `N. ` anywhere in a line (its number branch had no
 * `^`): "It was 2023. Then" came out as "It was 2023\. Then". A marker is at most 9 digits and is followed by a
 * space or the line's end (CommonMark 5.2).
 */
export const LINE_START_ESCAPE: [RegExp, string] = [/^(\s*?)(?:(\+\s|[=>-]|#{1,6}\s)|(\d{1,9})([.)])(?=\s|$))/gm, "$1$3\\$2$4"];

/** The longest run of backticks in `text` (a loop: spreading the runs into Math.max overflows on huge inputs). */
function longestBacktickRun(text: string, min = 1): number {
  let longest = 0;
  for (const run of text.match(min > 1 ? /`{3,}/g : /`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

/**
 * `code` as a code span: delimited by one backtick more than the longest run inside it, padded with a space when it
 * starts or ends with a backtick (CommonMark 6.1), so that its text is never read as markdown.
 */
export function codeSpan(code: string): string {
  const delimiter = "`".repeat(longestBacktickRun(code) + 1);
  const padding = code.startsWith("`") || code.endsWith("`") ? " " : "";
  return `${delimiter}${padding}${code}${padding}${delimiter}`;
}

/** The fence of a fenced block holding `code`: one backtick longer than its longest run of three, at least three. */
export function codeFence(code: string): string {
  return "`".repeat(Math.max(2, longestBacktickRun(code, 3)) + 1);
}

/** A trailing run of `#` that CommonMark would take for a heading's closing sequence: alone, or after a space or tab. */
const CLOSING_SEQUENCE_RE = /(^|[ \t])(#+)$/;

/**
 * A heading's one-line text with its trailing `#` run escaped: CommonMark reads it as the optional closing sequence
 * (spec 4.2, example 76), so `Issue #` lost its `#`.
 */
export function escapeClosingHashes(text: string): string {
  return text.replace(CLOSING_SEQUENCE_RE, "$1\\$2");
}

/** Backslash-escape what would be read as HTML in text the converter does not escape itself (alt text). */
export function escapeHtmlLike(text: string): string {
  return text.replace(HTML_LIKE_RE, "\\$&");
}

/**
 * Characters that end or break an inline link destination (CommonMark 6.3): spaces and controls end it, an
 * unbalanced `)` closes it early (`![x](https://e.com/a)b.png)`), a leading `<` makes it a `<…>` destination and a
 * `\` escapes the next character. `encodeURIComponent` leaves `(` and `)` alone, so they are encoded by hand.
 */
const DESTINATION_UNSAFE_RE = /[\s\x00-\x1f\x7f()<>\\]/g;

/**
 * A URL made safe as an inline link or image destination by percent-encoding {@link DESTINATION_UNSAFE_RE}
 * characters: the URL means the same to a browser (RFC 3986 2.1) and parses the same in every markdown renderer,
 * unlike a `<…>` destination, which older renderers do not know.
 *
 * @example
 * linkDestination("https://e.com/Foo_(bar) 2.png"); // "https://e.com/Foo_%28bar%29%202.png"
 */
export function linkDestination(url: string): string {
  return url.replace(DESTINATION_UNSAFE_RE, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x80 ? `%${code.toString(16).toUpperCase().padStart(2, "0")}` : encodeURIComponent(c);
  });
}

/**
 * The ` "title"` part of a link or image, or `""` when there is no title: `"` and `\` are backslash-escaped (a bare
 * `"` ended the title early and broke the whole link) and whitespace runs are collapsed (a blank line would end
 * the paragraph).
 */
export function linkTitle(title: string | null | undefined): string {
  const text = (title ?? "").replace(/\s+/g, " ").trim();
  return text ? ` "${text.replace(/[\\"]/g, "\\$&")}"` : "";
}

/** An image's alt text as link text: brackets and backslashes escaped so they cannot end it, HTML as above. */
export function escapeAltText(alt: string): string {
  return escapeHtmlLike(alt.replace(/\s+/g, " ").trim().replace(/[\\[\]]/g, "\\$&"));
}
