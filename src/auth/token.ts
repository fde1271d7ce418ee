/**
 * @module auth/token
 * Unguessable tokens for the capabilities crawlbox hands out in URLs (live views, email links, a Python page's file
 * grant) and for one-use nonces: random bytes from the platform's CSPRNG, base64url-encoded (URL- and path-safe).
 */

/** A random token of `bytes` bytes (32: 256 bits, 43 characters), base64url. */
export function randomToken(bytes = 32): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");
}
