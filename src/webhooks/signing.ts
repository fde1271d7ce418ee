/**
 * @module webhooks/signing
 * The two signatures a delivery carries when `CRAWLBOX_WEBHOOK_SECRET` is set (reliability.md B2):
 *
 * - Firecrawl's `X-Firecrawl-Signature: sha256=<hex HMAC-SHA256(key, rawBody)>`, where the key is the UTF-8
 *   bytes of the configured secret exactly as written (upstream: `createHmac("sha256", secret)`). No timestamp,
 *   so no replay protection; kept for wire compatibility.
 * - Standard Webhooks (standardwebhooks.com, spec v1): `webhook-signature: v1,<base64 HMAC-SHA256(key,
 *   "<webhook-id>.<webhook-timestamp>.<rawBody>")>`. The key follows the reference libraries: a secret written
 *   as `whsec_<base64>` is base64-decoded after the prefix (what `new Webhook("whsec_…")` does); any other secret
 *   is used as its UTF-8 bytes (what `new Webhook(secret, { format: "raw" })` does for ASCII secrets).
 */
import { createHmac } from "node:crypto";

/** Prefix of Standard Webhooks secrets whose remainder is base64. */
export const STANDARD_SECRET_PREFIX = "whsec_";

/** Thrown by {@link standardWebhooksKey} for a `whsec_` secret that is not valid base64. */
export class WebhookSecretError extends Error {}

/** `sha256=<hex>` for `X-Firecrawl-Signature`. */
export function firecrawlSignature(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", Buffer.from(secret, "utf8")).update(body, "utf8").digest("hex")}`;
}

/** The HMAC key Standard Webhooks signatures use for `secret` (see the module comment). */
export function standardWebhooksKey(secret: string): Uint8Array {
  if (!secret.startsWith(STANDARD_SECRET_PREFIX)) return Buffer.from(secret, "utf8");
  const b64 = secret.slice(STANDARD_SECRET_PREFIX.length);
  if (b64.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) {
    throw new WebhookSecretError(`A webhook secret starting with "${STANDARD_SECRET_PREFIX}" must be followed by base64`);
  }
  return Buffer.from(b64, "base64");
}

/** `v1,<base64>` for `webhook-signature`. `timestampSec` is the value sent in `webhook-timestamp`. */
export function standardWebhooksSignature(key: Uint8Array, webhookId: string, timestampSec: number, body: string): string {
  return `v1,${createHmac("sha256", key).update(`${webhookId}.${timestampSec}.${body}`, "utf8").digest("base64")}`;
}
