import type { RoleState } from './role-state.js';
import type { ClassifiedFailure } from '../http/outcome.js';
import type { FailureCause, RequestKind } from '../retry/causes.js';

/** What the pool does when a permit reports an outcome; implemented by the pool. */
export interface PermitHost {
  onSuccess(role: RoleState, latencyMs: number): void;
  onFailure(role: RoleState, cause: FailureCause, failure: ClassifiedFailure | undefined, elapsedMs?: number): void;
  /** `allowedRps`: the rate the provider said it allows (Infura's `allowed_rps`), in requests per second. */
  onRateLimited(role: RoleState, providerDelayMs: number | undefined, allowedRps?: number): void;
  /** `reported`: an outcome was recorded (the endpoint answered or failed); false for a cancelled hedge loser or an unused permit. */
  onRelease(role: RoleState, reported: boolean): void;
}

/**
 * The right to send one request to one endpoint role, under the call's deadline. Report
 * what happened (`recordSuccess`, `recordFailure`, `recordRateLimited`), then release it —
 * explicitly, with `using`, or both: `release()` is idempotent and wakes waiting calls.
 *
 * ```ts
 * using permit = await pool.acquireForMethod('getBalance', { timeoutMs: 500 });
 * ```
 */
let roleOf: (permit: HttpRequestPermit) => RoleState;

/** @internal The role behind a permit (kept off the public object so logging a permit shows no URL). */
export function permitRole(permit: HttpRequestPermit): RoleState {
  return roleOf(permit);
}

export class HttpRequestPermit implements Disposable {
  static {
    roleOf = (permit) => permit.#role;
  }

  readonly endpointId: string;
  readonly kind: RequestKind;
  readonly tier: number;
  /** The call's deadline on the pool's monotonic clock, in ms. */
  readonly deadlineMs: number;
  readonly #role: RoleState;
  readonly #host: PermitHost;
  #released = false;
  #reported = false;

  /** @internal The pool hands permits out (`acquire`, `acquireForMethod`); nothing else makes one. */
  constructor(role: RoleState, host: PermitHost, deadlineMs: number) {
    this.endpointId = role.endpointId;
    this.kind = role.settings.kind;
    this.tier = role.settings.tier;
    this.deadlineMs = deadlineMs;
    this.#role = role;
    this.#host = host;
  }

  /** True once `release()` (or dispose) ran. */
  get released(): boolean {
    return this.#released;
  }

  /** Records a success with its latency in ms. Only the first report of a permit counts. */
  recordSuccess(latencyMs: number): void {
    if (this.#claimReport()) this.#host.onSuccess(this.#role, latencyMs);
  }

  /** Records a failed attempt (and, optionally, how long it ran, in ms). Only the first report of a permit counts. */
  recordFailure(cause: FailureCause, failure?: ClassifiedFailure, elapsedMs?: number): void {
    if (this.#claimReport()) this.#host.onFailure(this.#role, cause, failure, elapsedMs);
  }

  /**
   * Records a rate limit: the role cools down for `max(pause, min(providerDelayMs, 60 s))`;
   * `allowedRps`, the rate the provider said it allows, sets a learned rate.
   */
  recordRateLimited(providerDelayMs?: number, allowedRps?: number): void {
    if (this.#claimReport()) this.#host.onRateLimited(this.#role, providerDelayMs, allowedRps);
  }

  /** Returns the concurrency permit and wakes waiting calls. Safe to call more than once. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#host.onRelease(this.#role, this.#reported);
  }

  [Symbol.dispose](): void {
    this.release();
  }

  #claimReport(): boolean {
    if (this.#reported) return false;
    this.#reported = true;
    return true;
  }
}
