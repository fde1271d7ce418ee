/**
 * @module server/routes/files
 * `GET /v2/files/{id}`: screenshots, action PDFs and audio produced by scrapes. The unguessable id is the
 * capability (like upstream's storage URLs), so no key is needed; files expire after 24 hours.
 */
import { Elysia } from "elysia";
import { NotFoundError } from "../../errors.ts";
import type { Services } from "../services.ts";

/** The files route. */
export function fileRoutes(services: Services) {
  return new Elysia({ name: "crawlbox-files" }).get(
    "/v2/files/:id",
    ({ params }) => {
      const file = services.files.get(params.id);
      if (!file) throw new NotFoundError("File not found or expired.");
      return new Response(Bun.file(file.path), {
        headers: {
          "content-type": file.contentType,
          "content-length": String(file.size),
          "cache-control": "private, max-age=3600",
          expires: new Date(file.expiresAt).toUTCString(),
        },
      });
    },
    { detail: { tags: ["files"], summary: "A stored screenshot, PDF or audio file", security: [] } },
  );
}
