/**
 * @module documents/office/inline-runs
 * Collects the text runs of one paragraph of an office document into inline spans: consecutive runs with the
 * same link merge into one span, and the paragraph's outer whitespace is trimmed. DOCX and ODT walk their own
 * XML; both hand their text here, so the two converters build paragraphs the same way.
 */
import type { Inline } from "../layout/model.ts";

/** Accumulates inline spans; `push` text as it is found, then take `spans()`. */
export class InlineRuns {
  private readonly out: Inline[] = [];

  /** Adds `text` (linked to `href`, if any) after what came before. */
  push(text: string, href?: string): void {
    if (!text) return;
    const last = this.out[this.out.length - 1];
    if (last && last.href === href && last.note === undefined) last.text += text;
    else this.out.push(href ? { text, href } : { text });
  }

  /** Adds a reference to the note labelled `label` (a span of its own: text after it does not join it). */
  note(label: string): void {
    this.out.push({ text: label, note: label });
  }

  /** The spans, outer whitespace trimmed, empty spans dropped. */
  spans(): Inline[] {
    const out = this.out;
    if (out.length > 0) {
      out[0]!.text = out[0]!.text.trimStart();
      out[out.length - 1]!.text = out[out.length - 1]!.text.trimEnd();
    }
    return out.filter((i) => i.text.length > 0);
  }
}
