/**
 * @module plugins/parsers
 * The one place where document parsers are registered (PDF, images, office files). Order matters: the first
 * parser that accepts a page handles it.
 */
import { ParserRegistry } from "../../src/documents/types.ts";

/** A registry holding every built-in document parser. */
export function createParserRegistry(): ParserRegistry {
  return new ParserRegistry();
}
