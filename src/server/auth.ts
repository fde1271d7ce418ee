/**
 * @module server/auth
 * Bearer-key authentication for /v2 routes. A missing, malformed or unknown key is a 401 with the exact body
 * upstream sends (`{success:false, error:"Unauthorized"}`) plus `WWW-Authenticate` (RFC 6750). With
 * `CRAWLBOX_AUTH=off` every request runs as the `anonymous` identity; the server logs that loudly at start.
 * The WebSocket form (key as `Sec-WebSocket-Protocol`) is accepted too, for the SDK's watcher.
 */
import { Elysia } from "elysia";
import { ANONYMOUS_KEY_ID, type KeyIdentity, type KeyStore } from "../auth/keys.ts";
import { UnauthorizedError } from "../errors.ts";

/** The identity used for every request when authentication is off. */
export const ANONYMOUS: KeyIdentity = { keyId: ANONYMOUS_KEY_ID, creditQuota: null };

/** Extracts the presented key from `Authorization: Bearer …` or a WebSocket sub-protocol. */
export function presentedKey(headers: Headers | Record<string, string | undefined>): string | undefined {
  const get = (n: string) => (headers instanceof Headers ? headers.get(n) : headers[n]) ?? undefined;
  const auth = get("authorization");
  if (auth) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    return m ? m[1] : undefined;
  }
  const proto = get("sec-websocket-protocol");
  if (proto) return proto.split(",")[0]?.trim() || undefined;
  return undefined;
}

/** Resolves the caller's identity or throws {@link UnauthorizedError}. */
export function authenticate(
  headers: Headers | Record<string, string | undefined>,
  keys: KeyStore,
  authEnabled: boolean,
): KeyIdentity {
  if (!authEnabled) return ANONYMOUS;
  const key = presentedKey(headers);
  if (!key) throw new UnauthorizedError();
  const who = keys.verify(key);
  if (!who) throw new UnauthorizedError();
  return who;
}

/**
 * The auth plugin: adds `who` to every route of the instance that uses it. It runs at the transform stage,
 * before body validation, so an unauthenticated client learns nothing about the body schema (401 first).
 */
export function authPlugin(keys: KeyStore, authEnabled: boolean) {
  return new Elysia({ name: "crawlbox-auth" }).derive({ as: "scoped" }, ({ request }) => ({
    who: authenticate(request.headers, keys, authEnabled),
  }));
}
