/**
 * @module documents/types
 * The document parser plugin interface. A page that is not HTML or plain text (PDF, image, office file) is
 * handed to the first registered parser that accepts it (by content type *and* magic bytes, so mislabelled
 * files are still recognised); the parser turns it into markdown and HTML that the format renderers use like
 * any page. Parsers are registered once, in `plugins/parsers/index.ts`.
 */
import type { Page } from "../engines/types.ts";
import type { ScrapeSpec } from "../scrape/spec.ts";

/**
 * Most characters of text one document gives, whatever its kind (a 5,000-page book holds about 10 million): a
 * converter's output is not bounded by its file's size (a string or a content stream stored once and used many
 * times), so a DOC's body (office/doc-text.ts), every office document's text (office/text-budget.ts) and a PDF's
 * (pdf/text-budget.ts) are cut there.
 */
export const MAX_DOCUMENT_TEXT_CHARS = 10_000_000;

/** A document converted for rendering. */
export interface ConvertedDocument {
  /** Markdown of the document (the `markdown` format). */
  markdown: string;
  /** HTML of the document (the `html` and `rawHtml` formats, and what `links`/`images`/`attributes` read). */
  html: string;
  /** Metadata fields to merge into the document's metadata (e.g. `numPages`, `totalPages`, `title`). */
  metadata: Record<string, unknown>;
  /** Credits this page costs (e.g. one per parsed PDF page); replaces the base page credit. */
  credits: number;
  /** Fields the document gets as they are (`pages` of a PDF parsed with `pages: true`, a `warning`). */
  fields?: { pages?: { pageNumber: number; markdown: string }[]; warning?: string };
}

/** What the scrape service tells a parser besides the page. */
export interface ParseOptions {
  /**
   * Called by a parser whose cost depends on the document (a PDF: one credit per page) as soon as it knows the
   * credits, before the costly part; throws (`402 INSUFFICIENT_CREDITS`) when the key cannot pay them, so a
   * 2,000-page PDF is refused after its page count is read, not after every page was parsed.
   */
  affordCredits?(credits: number): void;
}

/** A document parser plugin. */
export interface DocumentParser {
  /** Name used in logs and metadata (e.g. `pdf`, `docx`, `image`). */
  readonly name: string;
  /** Whether this parser handles `page` under the request's `parsers` option. Must be cheap. */
  accepts(page: Page, spec: ScrapeSpec): boolean;
  /** Converts the page. Throws a typed {@link CrawlboxError} for corrupt, encrypted or oversized documents. */
  parse(page: Page, spec: ScrapeSpec, signal?: AbortSignal, options?: ParseOptions): Promise<ConvertedDocument>;
  /** Releases what the parser holds (worker pools). @default no-op */
  close?(): Promise<void>;
}

/** Thrown at boot when two parsers share a name. */
export class DuplicateParserError extends Error {}

/** The one registry of document parsers, consulted in registration order. */
export class ParserRegistry {
  private readonly parsers: DocumentParser[] = [];

  /** Adds a parser; a second parser with the same name is a programming error. */
  register(parser: DocumentParser): this {
    if (this.parsers.some((p) => p.name === parser.name)) throw new DuplicateParserError(`parser "${parser.name}" is registered twice`);
    this.parsers.push(parser);
    return this;
  }

  /** The first parser that accepts `page`, if any. */
  find(page: Page, spec: ScrapeSpec): DocumentParser | undefined {
    return this.parsers.find((p) => p.accepts(page, spec));
  }

  /** Registered parser names. */
  names(): string[] {
    return this.parsers.map((p) => p.name);
  }

  /** Releases every parser's resources (the server calls this on shutdown). */
  async close(): Promise<void> {
    await Promise.all(this.parsers.map((p) => p.close?.()));
  }
}
