/**
 * @module extract/owner-guard
 * Stops an extract job or agent run whose key was revoked (`crawlbox keys revoke`) or removed from
 * `CRAWLBOX_API_KEYS`: before each page is scraped, before each charge and before each model step, the key is asked
 * about (jobs/owner-active.ts, one primary-key lookup); once it may no longer act the run's pages and model calls are
 * aborted and {@link KeyRevokedError} is thrown, which the service records as the run's failure. Without it a leaked
 * key's runs went on reading and charging it after the operator revoked it.
 */
import type { KeyStore } from "../auth/keys.ts";
import { KeyRevokedError } from "../errors.ts";
import { ownerActive } from "../jobs/owner-active.ts";

/** The key check of one run. */
export class OwnerGuard {
  private readonly stop = new AbortController();
  /** The run's signal: aborted by the run's own (a cancel, a shutdown) or once the key is found revoked. */
  readonly signal: AbortSignal;
  /** The error the run ended with once its key was found revoked; undefined until then. */
  revoked: KeyRevokedError | undefined;

  constructor(
    private readonly keys: Pick<KeyStore, "isActive">,
    private readonly authEnabled: boolean,
    private readonly keyId: string,
    outer: AbortSignal,
  ) {
    this.signal = AbortSignal.any([outer, this.stop.signal]);
  }

  /** Throws {@link KeyRevokedError} (and aborts the run's work in flight) once the run's key may no longer act. */
  check(): void {
    if (this.revoked) throw this.revoked;
    if (ownerActive(this.keys, this.authEnabled, this.keyId)) return;
    this.revoked = new KeyRevokedError();
    this.stop.abort(this.revoked);
    throw this.revoked;
  }

  /** `charge` that checks the key first: a page read when the key was revoked is not charged. */
  charging(charge: (credits: number) => void): (credits: number) => void {
    return (credits) => {
      this.check();
      charge(credits);
    };
  }
}
