/**
 * @module extract/owner-guard
 * Stops an extract job or agent run whose key was revoked (`crawlbox keys revoke`) or removed from
 * `CRAWLBOX_API_KEYS`: before each page is scraped, before each charge and before each model step, the key is asked
 * about (jobs/owner-active.ts, one primary-key lookup); once it may no longer act the run's pages and model calls are
 * aborted and {@link KeyRevokedError} is thrown, which the service records as the run's failure. Without it a leaked
 * key's runs went on reading and charging it after the operator revoked it.
 *
 * Both services wire a run the same way through this one class: the run's work listens to {@link OwnerGuard.signal},
 * charges through {@link OwnerGuard.charge}, calls {@link OwnerGuard.check} before each step, and records
 * {@link OwnerGuard.failure} as why it failed (the revocation, not the abort it caused in the work under way).
 */
import type { KeyStore } from "../auth/keys.ts";
import { KeyRevokedError } from "../errors.ts";
import { ownerActive } from "../jobs/owner-active.ts";

/** What a guard asks of its service: the keys, and whether authentication is on (`anonymous` acts only without). */
export interface OwnerGuardDeps {
  keys: Pick<KeyStore, "isActive">;
  config: { authEnabled: boolean };
}

/** The key check of one run. */
export class OwnerGuard {
  private readonly stop = new AbortController();
  /** The run's signal: aborted by the run's own (a cancel, a shutdown) or once the key is found revoked. */
  readonly signal: AbortSignal;
  /** The run's charge, which checks the key first: a page read when the key was revoked is not charged. */
  readonly charge: (credits: number) => void;
  /** The error the run ended with once its key was found revoked; undefined until then. */
  revoked: KeyRevokedError | undefined;

  /**
   * The guard of a run of `keyId`'s: `outer` is the run's own signal, `credits` what the run charges through (its
   * JobCredits, so a resumed run pays once).
   */
  constructor(
    private readonly deps: OwnerGuardDeps,
    private readonly keyId: string,
    outer: AbortSignal,
    credits: { charge(credits: number): void },
  ) {
    this.signal = AbortSignal.any([outer, this.stop.signal]);
    this.charge = (n) => {
      this.check();
      credits.charge(n);
    };
  }

  /**
   * Throws {@link KeyRevokedError} (and aborts the run's work in flight) once the run's key may no longer act. A
   * bound function: passed as is where a step is about to start (readPages' `beforePage`).
   */
  readonly check = (): void => {
    if (this.revoked) throw this.revoked;
    if (ownerActive(this.deps.keys, this.deps.config.authEnabled, this.keyId)) return;
    this.revoked = new KeyRevokedError();
    this.stop.abort(this.revoked);
    throw this.revoked;
  };

  /** Why the run failed, given what it threw: the revocation once found (the work it aborted threw something else). */
  failure(err: unknown): unknown {
    return this.revoked ?? err;
  }

  /** {@link failure}'s message: the run's recorded `error`. */
  failureMessage(err: unknown): string {
    const cause = this.failure(err);
    return cause instanceof Error ? cause.message : String(cause);
  }
}
