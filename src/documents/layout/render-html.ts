/**
 * @module documents/layout/render-html
 * Blocks → HTML, from the same blocks as the markdown (render.ts), so the `markdown` and `html` formats of a document
 * agree: marks as `<strong>`/`<em>`/`<s>`/`<code>`, consecutive inlines with one target as one link, lists as
 * `<ol>`/`<ul>` by their items' kinds with `start` and `value` where the numbers do not count on by one and `type`
 * where they are letters or roman numerals.
 */
import { listDepths, listNumbers } from "./list-numbers.ts";
import type { Block, Inline } from "./model.ts";

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** HTML of one inline's text with its marks. */
function markedHtml(c: Inline): string {
  let html = esc(c.text);
  if (c.code) html = `<code>${html}</code>`;
  if (c.strike) html = `<s>${html}</s>`;
  if (c.italic) html = `<em>${html}</em>`;
  if (c.bold) html = `<strong>${html}</strong>`;
  return html;
}

/** `seen`: the notes already referred to in the document (only a note's first reference carries the `fnref-` id). */
function inlineHtml(content: Inline[], seen: Set<string>): string {
  let html = "";
  content.forEach((c, i) => {
    if (c.note !== undefined) {
      const id = seen.has(c.note) ? "" : ` id="fnref-${esc(c.note)}"`;
      seen.add(c.note);
      html += `<sup><a href="#fn-${esc(c.note)}"${id}>${esc(c.note)}</a></sup>`;
      return;
    }
    if (c.lineBreak) {
      html += "<br>";
      return;
    }
    // Consecutive inlines with one target are one link, as in the markdown.
    const before = content[i - 1];
    const after = content[i + 1];
    const joinsBefore = c.href !== undefined && before?.href === c.href && before.note === undefined && !before.lineBreak;
    const joinsAfter = c.href !== undefined && after?.href === c.href && after.note === undefined && !after.lineBreak;
    if (c.href !== undefined && !joinsBefore) html += `<a href="${esc(c.href)}">`;
    html += markedHtml(c);
    if (c.href !== undefined && !joinsAfter) html += "</a>";
  });
  return html;
}

/**
 * HTML of a list: `<ol>` or `<ul>` at each level by the items' kinds, `start` and `value` where the numbers do not
 * count on by one, `type` where they are letters or roman numerals (`<ol type="a">`; a change of type at a level
 * starts a list of the new type there). The tags stay balanced however the depths go (see {@link listDepths}).
 */
function listHtml(block: Extract<Block, { kind: "list" }>, inline: (content: Inline[]) => string): string {
  const depths = listDepths(block.items);
  const kinds = listNumbers(block.items, depths, block.ordered);
  /** The open list at each level: its tag, its `type` and the number its next item would get by counting. */
  const open: { tag: string; type: string; next: number }[] = [];
  let html = "";
  block.items.forEach((it, i) => {
    const depth = depths[i]!;
    const { ordered, number, format } = kinds[i]!;
    const tag = ordered ? "ol" : "ul";
    const type = format ?? "";
    while (open.length > depth + 1) html += `</li></${open.pop()!.tag}>`;
    let list: { tag: string; type: string; next: number } | undefined = open[depth];
    if (list && (list.tag !== tag || list.type !== type)) {
      html += `</li></${list.tag}>`;
      open.pop();
      list = undefined;
    } else if (list) html += "</li>";
    if (!list) {
      const start = ordered && number !== 1 ? ` start="${number}"` : "";
      html += `<${tag}${start}${type ? ` type="${type}"` : ""}>`;
      open.push((list = { tag, type, next: number }));
    }
    html += ordered && number !== list.next ? `<li value="${number}">` : "<li>";
    list.next = number + 1;
    html += inline(it.content);
  });
  while (open.length > 0) html += `</li></${open.pop()!.tag}>`;
  return html;
}

/** HTML of `blocks` (a fragment wrapped in `<html><body>`, with `<title>` when given). */
export function blocksToHtml(blocks: Block[], title?: string): string {
  const head = title ? `<head><title>${esc(title)}</title></head>` : "";
  return `<html>${head}<body>${blocksHtml(blocks)}${BODY_END}`;
}

/** How the document HTML ends: where {@link appendBlocks} (render.ts) inserts what is said after the conversion. */
export const BODY_END = "</body></html>";

/** The `<body>` content of `blocks`. */
export function blocksHtml(blocks: Block[]): string {
  const out: string[] = [];
  const seen = new Set<string>();
  const inline = (content: Inline[]) => inlineHtml(content, seen);
  for (const block of blocks) {
    switch (block.kind) {
      case "heading":
        out.push(`<h${block.level}>${inline(block.content)}</h${block.level}>`);
        break;
      case "paragraph":
        out.push(`<p>${inline(block.content)}</p>`);
        break;
      case "list":
        out.push(listHtml(block, inline));
        break;
      case "quote":
        out.push(`<blockquote><p>${inline(block.content)}</p></blockquote>`);
        break;
      case "table": {
        const [head, ...rest] = block.rows;
        out.push(
          `<table><thead><tr>${head!.map((c) => `<th>${inline(c)}</th>`).join("")}</tr></thead><tbody>${rest
            .map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join("")}</tr>`)
            .join("")}</tbody></table>`,
        );
        break;
      }
      case "code":
        out.push(`<pre><code>${esc(block.text)}</code></pre>`);
        break;
      case "pageMarker":
        out.push(`<hr><!-- page ${block.page} -->`);
        break;
      case "notes":
        out.push(`<section class="footnotes"><ol>${block.notes.map((n) => `<li id="fn-${esc(n.label)}">${inline(n.content)}</li>`).join("")}</ol></section>`);
        break;
    }
  }
  return out.join("\n");
}
