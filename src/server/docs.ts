/**
 * @module server/docs
 * OpenAPI 3.1 at `/openapi.json` and a Swagger UI at `/docs`, generated from the same TypeBox schemas that
 * validate requests. The UI's JavaScript and CSS are embedded in the binary and served from `/docs-assets/`,
 * because the appliance is often air-gapped and the plugin's default CDN would leave the page blank.
 *
 * The generated document is kept valid OpenAPI 3.1 (test/server/openapi.test.ts runs a validator on it): the
 * WebSocket routes are left out (3.1 has no `ws` operation) and noted on their GETs instead, and the Exchange's
 * every-method routes are replaced by explicit entries (routes/exchange.ts).
 */
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
// Embedded as files so `bun build --compile` carries them (stack-notes.md, "the single binary").
import swaggerBundlePath from "../../node_modules/swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import swaggerCssPath from "../../node_modules/swagger-ui-dist/swagger-ui.css" with { type: "file" };
import { JOB_SOCKET_NOTE, JOB_SOCKET_OPENAPI_PATHS } from "./routes/crawl-ws.ts";
import { EXCHANGE_OPENAPI_PATHS } from "./routes/exchange.ts";

/** Where the UI is. */
const DOCS_PATH = "/docs";
/** Where the document is. */
const SPEC_PATH = "/openapi.json";

/** An OpenAPI document as far as this module reads it. */
type OpenApiDoc = { paths?: Record<string, Record<string, { description?: string } | undefined>> };

/**
 * `doc` with {@link JOB_SOCKET_NOTE} added to the description of each GET that also takes a WebSocket upgrade. A
 * copy: the plugin caches and serves the same object again.
 */
function withSocketNotes(doc: OpenApiDoc): OpenApiDoc {
  const paths = { ...doc.paths };
  for (const path of JOB_SOCKET_OPENAPI_PATHS) {
    const get = paths[path]?.get;
    if (!get) continue;
    const description = get.description ? `${get.description}\n\n${JOB_SOCKET_NOTE}` : JOB_SOCKET_NOTE;
    paths[path] = { ...paths[path], get: { ...get, description } };
  }
  return { ...doc, paths };
}

/** The docs plugin: spec, UI and the UI's assets. */
export function docsPlugin(version: string) {
  return new Elysia({ name: "crawlbox-docs" })
    .get("/docs-assets/swagger-ui-bundle.js", () => new Response(Bun.file(swaggerBundlePath), {
      headers: { "content-type": "application/javascript; charset=utf-8", "cache-control": "public, max-age=86400" },
    }), { detail: { hide: true } })
    .get("/docs-assets/swagger-ui.css", () => new Response(Bun.file(swaggerCssPath), {
      headers: { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=86400" },
    }), { detail: { hide: true } })
    // The page names the document relatively (`openapi.json`), which keeps it working behind a proxy that mounts
    // crawlbox under a path prefix, with or without CRAWLBOX_PUBLIC_URL; but from `/docs/` that resolves to
    // `/docs/openapi.json` (a 404, and a blank page). Elysia serves `/docs/` as `/docs`, so the trailing slash is
    // caught here and sent back to `../docs`, relative for the same reason (RFC 9110 §10.2.2 allows it).
    .onBeforeHandle(({ request }) => {
      const url = new URL(request.url);
      if (url.pathname !== `${DOCS_PATH}/`) return;
      return new Response(null, { status: 308, headers: { location: `../${DOCS_PATH.slice(1)}${url.search}` } });
    })
    .onAfterHandle(({ request, response }) => {
      if (new URL(request.url).pathname !== SPEC_PATH || !response || typeof response !== "object" || response instanceof Response) return;
      return withSocketNotes(response as OpenApiDoc);
    })
    .use(
      openapi({
        path: DOCS_PATH,
        specPath: SPEC_PATH,
        provider: "swagger-ui",
        swagger: { cdn: "/docs-assets/swagger-ui-bundle.js", theme: "/docs-assets/swagger-ui.css" },
        // `ws`: OpenAPI has no WebSocket operation (see withSocketNotes); `options`: CORS preflights.
        exclude: { paths: [/^\/docs-assets\//], methods: ["options", "ws"] },
        documentation: {
          openapi: "3.1.0",
          info: {
            title: "crawlbox",
            version,
            description:
              "Self-hosted scraping service speaking the Firecrawl /v2 API. Authenticate with `Authorization: Bearer <key>`.",
            license: { name: "AGPL-3.0-or-later" },
          },
          paths: EXCHANGE_OPENAPI_PATHS,
          components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
          security: [{ bearer: [] }],
        },
      }),
    );
}
