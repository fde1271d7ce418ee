/**
 * @module server/docs
 * OpenAPI 3.1 at `/openapi.json` and a Swagger UI at `/docs`, generated from the same TypeBox schemas that
 * validate requests. The UI's JavaScript and CSS are embedded in the binary and served from `/docs-assets/`,
 * because the appliance is often air-gapped and the plugin's default CDN would leave the page blank.
 */
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
// Embedded as files so `bun build --compile` carries them (stack-notes.md, "the single binary").
import swaggerBundlePath from "../../node_modules/swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import swaggerCssPath from "../../node_modules/swagger-ui-dist/swagger-ui.css" with { type: "file" };

/** The docs plugin: spec, UI and the UI's assets. */
export function docsPlugin(version: string) {
  return new Elysia({ name: "crawlbox-docs" })
    .get("/docs-assets/swagger-ui-bundle.js", () => new Response(Bun.file(swaggerBundlePath), {
      headers: { "content-type": "application/javascript; charset=utf-8", "cache-control": "public, max-age=86400" },
    }), { detail: { hide: true } })
    .get("/docs-assets/swagger-ui.css", () => new Response(Bun.file(swaggerCssPath), {
      headers: { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=86400" },
    }), { detail: { hide: true } })
    .use(
      openapi({
        path: "/docs",
        specPath: "/openapi.json",
        provider: "swagger-ui",
        swagger: { cdn: "/docs-assets/swagger-ui-bundle.js", theme: "/docs-assets/swagger-ui.css" },
        exclude: { paths: [/^\/docs-assets\//] },
        documentation: {
          openapi: "3.1.0",
          info: {
            title: "crawlbox",
            version,
            description:
              "Self-hosted scraping service speaking the Firecrawl /v2 API. Authenticate with `Authorization: Bearer <key>`.",
            license: { name: "AGPL-3.0-or-later" },
          },
          components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
          security: [{ bearer: [] }],
        },
      }),
    );
}
