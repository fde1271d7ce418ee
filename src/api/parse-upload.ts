/**
 * @module api/parse-upload
 * The body of `POST /v2/parse/upload-url` (the upload flow of `POST /v2/parse`, parse/upload-refs.ts), as the
 * Firecrawl MCP server sends it: `{filename, contentType?, declaredSizeBytes?}`. A file name is needed (it names the
 * document, `file:///<name>`, and types a file sent without a type); the declared size only lowers the upload's own
 * limit below `CRAWLBOX_MAX_UPLOAD_BYTES`.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { Int, OriginProps, strictObject } from "./common.ts";
import { validateBody } from "./validate.ts";

/** Characters of an upload's file name and content type. */
export const MAX_UPLOAD_NAME_CHARS = 255;

export const ParseUploadUrlSchema = strictObject(
  {
    filename: t.String({ minLength: 1, maxLength: MAX_UPLOAD_NAME_CHARS, description: "The file's name: names the document (file:///<name>) and types a file sent without a type" }),
    contentType: t.Optional(t.String({ maxLength: MAX_UPLOAD_NAME_CHARS, description: "The file's type; else the PUT's Content-Type, else the file name's extension" })),
    declaredSizeBytes: t.Optional(Int({ minimum: 1, description: "The file's size, if known: the upload may not be larger" })),
    ...OriginProps,
  },
  { description: "POST /v2/parse/upload-url body" },
);

/** A validated upload-url body. */
export type ParseUploadUrlBody = Static<typeof ParseUploadUrlSchema>;

/** Validates an upload-url body; 400 with zod-shaped details when it does not fit. */
export function parseUploadUrlBody(body: unknown): ParseUploadUrlBody {
  const v = validateBody(ParseUploadUrlSchema, body);
  return { ...v, filename: v.filename.trim() || "upload" };
}
