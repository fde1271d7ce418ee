/**
 * @module jobs/owner-active
 * Whether the key a job runs under may still act, asked before each page of a crawl or batch and before each page
 * and model step of an extract job or agent run: a key revoked (`crawlbox keys revoke`) or removed from
 * `CRAWLBOX_API_KEYS` (at a restart) must not keep a job going and charging it. Monitors ask the same at each tick
 * (monitor/service.ts). One primary-key lookup of `api_keys` (or a set lookup for an environment key).
 */
import { ANONYMOUS_KEY_ID, type KeyStore } from "../auth/keys.ts";

/**
 * True while `keyId` can act: a stored key not revoked, a key configured in `CRAWLBOX_API_KEYS`, or `anonymous`
 * while authentication is off (with it on, nobody can present that identity any more, as for monitors).
 */
export function ownerActive(keys: Pick<KeyStore, "isActive">, authEnabled: boolean, keyId: string): boolean {
  if (keyId === ANONYMOUS_KEY_ID) return !authEnabled;
  return keys.isActive(keyId);
}
