/**
 * @module server/public-url
 * The absolute base URL clients should use for links crawlbox hands out (`next`, file URLs):
 * `CRAWLBOX_PUBLIC_URL` when set (behind a reverse proxy), otherwise the origin the request came to.
 */
import { fileUrl } from "../storage/files.ts";
import type { FileSink } from "../scrape/render-context.ts";
import type { Services } from "./services.ts";

/** Base URL for absolute links in answers to `request`. */
export function publicBaseUrl(configuredUrl: string, request: Request): string {
  return configuredUrl || new URL(request.url).origin;
}

/** A file sink storing into the file store for `keyId`, returning URLs under `baseUrl`. */
export function fileSinkFor(services: Pick<Services, "files">, keyId: string, baseUrl: string): FileSink {
  return async (bytes, contentType, extension) => fileUrl(baseUrl, await services.files.put(bytes, contentType, keyId, extension));
}
