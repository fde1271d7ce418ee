/**
 * @module documents/layout/render
 * Blocks → markdown (GFM tables) and → HTML. Both are produced from the same blocks so the `markdown` and
 * `html` formats of a document agree.
 */
import type { Block, Inline } from "./model.ts";

function escapeMarkdown(text: string): string {
  return text.replace(/([\\`*_[\]])/g, "\\$1").replace(/^(#{1,6}\s|>|\d+\.\s|[-+]\s)/, "\\$1");
}

function inlineMarkdown(content: Inline[], inTable = false): string {
  const s = content.map((c) => (c.href ? `[${escapeMarkdown(c.text)}](${c.href.replace(/[()\s]/g, encodeURIComponent)})` : escapeMarkdown(c.text))).join("");
  return inTable ? s.replace(/\|/g, "\\|") : s;
}

/** Markdown of `blocks`. */
export function blocksToMarkdown(blocks: Block[]): string {
  const out: string[] = [];
  for (const block of blocks) {
    switch (block.kind) {
      case "heading":
        out.push(`${"#".repeat(block.level)} ${inlineMarkdown(block.content)}`);
        break;
      case "paragraph":
        out.push(inlineMarkdown(block.content));
        break;
      case "list": {
        let n = 0;
        out.push(block.items.map((it) => `${"  ".repeat(it.depth)}${block.ordered && it.depth === 0 ? `${++n}.` : "-"} ${inlineMarkdown(it.content)}`).join("\n"));
        break;
      }
      case "table": {
        // A loop, not Math.max(...rows): a spread of 1.2M rows passes the engine's argument limit (RangeError).
        let width = 0;
        for (const r of block.rows) if (r.length > width) width = r.length;
        const line = (cells: string[]) => `| ${Array.from({ length: width }, (_, i) => cells[i] ?? "").join(" | ")} |`;
        const rows = block.rows.map((r) => r.map((c) => inlineMarkdown(c, true)));
        out.push([line(rows[0]!), line(Array.from({ length: width }, () => "---")), ...rows.slice(1).map(line)].join("\n"));
        break;
      }
      case "code":
        out.push("```\n" + block.text + "\n```");
        break;
      case "pageMarker":
        out.push(`---\n\n<!-- page ${block.page} -->`);
        break;
    }
  }
  return out.join("\n\n") + (out.length ? "\n" : "");
}

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function inlineHtml(content: Inline[]): string {
  return content.map((c) => (c.href ? `<a href="${esc(c.href)}">${esc(c.text)}</a>` : esc(c.text))).join("");
}

/** HTML of `blocks` (a fragment wrapped in `<html><body>`, with `<title>` when given). */
export function blocksToHtml(blocks: Block[], title?: string): string {
  const out: string[] = [];
  for (const block of blocks) {
    switch (block.kind) {
      case "heading":
        out.push(`<h${block.level}>${inlineHtml(block.content)}</h${block.level}>`);
        break;
      case "paragraph":
        out.push(`<p>${inlineHtml(block.content)}</p>`);
        break;
      case "list": {
        const tag = block.ordered ? "ol" : "ul";
        let html = `<${tag}>`;
        let depth = 0;
        block.items.forEach((it, i) => {
          if (i > 0) {
            if (it.depth > depth) html += "<ul>".repeat(it.depth - depth);
            else {
              html += "</li>";
              if (it.depth < depth) html += "</ul></li>".repeat(depth - it.depth);
            }
          }
          depth = it.depth;
          html += `<li>${inlineHtml(it.content)}`;
        });
        html += "</li>" + "</ul></li>".repeat(depth) + `</${tag}>`;
        out.push(html);
        break;
      }
      case "table": {
        const [head, ...rest] = block.rows;
        out.push(
          `<table><thead><tr>${head!.map((c) => `<th>${inlineHtml(c)}</th>`).join("")}</tr></thead><tbody>${rest
            .map((r) => `<tr>${r.map((c) => `<td>${inlineHtml(c)}</td>`).join("")}</tr>`)
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
    }
  }
  const head = title ? `<head><title>${esc(title)}</title></head>` : "";
  return `<html>${head}<body>${out.join("\n")}</body></html>`;
}
