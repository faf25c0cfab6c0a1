import type { NormalizedEndpoint, NormalizedRole } from '../config/normalize.js';
import type { ExecutorTarget } from '../http/executor.js';
import type { FailureCause } from '../retry/causes.js';
import { MAX_PROVIDER_DELAY_MS } from '../retry/retry-after.js';
import { DEFAULT_DECAY_MS } from '../balance/balance-settings.js';
import { PeakEwma } from '../balance/peak-ewma.js';
import { TokenBucket, type AdmissionBucket } from './token-bucket.js';
import { LearnedBucket } from './learned-bucket.js';
import type { CreditMeter } from './credit-meter.js';
import type { GradientLimit } from './gradient-limit.js';

export type Availability = 'available' | 'degraded' | 'rate-limited';


/**
 * `max(pause, min(providerDelay, 60 000))`. The cap means a buggy
 * `Retry-After: 86400` cannot bench an endpoint for a day.
 */
export function rateLimitCooldownMs(pauseAfterRateLimitMs: number, providerDelayMs: number | undefined): number {
  const provider = providerDelayMs === undefined || !(providerDelayMs > 0) ? 0 : Math.min(providerDelayMs, MAX_PROVIDER_DELAY_MS);
  return Math.max(pauseAfterRateLimitMs, provider);
}

/**
 * The runtime state of one role: its bucket, permits, rate-limit cooldown, availability
 * and counters. Admission checks run in the order cooldown → permit → token, so a role
 * blocked on one never spends another.
 */
/** Band rank of a disabled role: past the reputation bands (0–3), so no trial ever reaches it. */
export const DISABLED_BAND = 4;

/**
 * One endpoint's load and speed, shared by all its roles: requests in flight against its
 * shared limit, its latency estimate (a node is as slow for sends as for reads), and since
 * when it has had requests in flight without answering any.
 */
export class EndpointLoad {
  inFlight = 0;
  /** Requests in flight admission allows (fixed, or the learned concurrency's current limit). */
  max: number | undefined;
  /** `maxConcurrentRequests: 'auto'`: the limit learned from latency; undefined otherwise. */
  readonly concurrency: GradientLimit | undefined;
  /** Peak-EWMA latency of the endpoint's answers (latency-aware choice). */
  readonly latency: PeakEwma;
  /** Last instant the endpoint finished a request, or became busy: with requests in flight, it has been silent since. */
  busySinceMs = 0;
  /** The endpoint's credit plan (`plan`), shared by its roles; undefined without one. */
  readonly credits: CreditMeter | undefined;

  constructor(max: number | undefined, latencyDecayMs = DEFAULT_DECAY_MS, credits?: CreditMeter, concurrency?: GradientLimit) {
    this.max = concurrency?.limit ?? max;
    this.concurrency = concurrency;
    this.latency = new PeakEwma(latencyDecayMs);
    this.credits = credits;
  }

  /** How long the endpoint has had requests in flight without finishing any: its latency is at least that. */
  silentForMs(nowMs: number): number {
    return this.inFlight === 0 ? 0 : nowMs - this.busySinceMs;
  }
}

export class RoleState {
  readonly endpoint: NormalizedEndpoint;
  /** The endpoint's shared concurrency (one object for all roles of the endpoint). */
  readonly load: EndpointLoad;
  readonly settings: NormalizedRole;
  /** The role's RPS/burst bucket (none without `requestsPerSecond`); a fleet replaces it with a leased one. */
  bucket: AdmissionBucket | undefined;
  /** Internal: where attempts go (contains the URL; never exposed). */
  readonly target: ExecutorTarget;
  inFlight = 0;
  cooldownUntilMs = 0;
  availability: Availability = 'available';
  successes = 0;
  failures = 0;
  rateLimits = 0;
  /** How the role's last failed attempt (or chain check) failed; explains a call that timed out waiting for it. */
  lastFailureCause: FailureCause | undefined = undefined;
  /** Reputation band rank (0 best … 3 worst) cached from the tracker; 0 when reputation is off. */
  band = 0;
  /** The member count per band of this role's tier (set when the pool builds its tiers). */
  tierBandCounts: number[] | undefined;
  /** Instant until which reputation or the host breaker bench this role (0 = not benched). */
  benchedUntilMs = 0;
  /** Next instant at which the cached band/bench may change by time alone (cooldown end, recovery). */
  healthRefreshAtMs = 0;
  /** True until the pool's chain guard has verified the endpoint: admission skips the role meanwhile. */
  chainPending = false;
  /** Out of the pool for good (its endpoint is on another chain): kept in band {@link DISABLED_BAND}, which admission never walks. */
  disabled = false;

  constructor(
    endpoint: NormalizedEndpoint,
    settings: NormalizedRole,
    nowMs: number,
    load = new EndpointLoad(endpoint.maxConcurrentRequests),
  ) {
    this.endpoint = endpoint;
    this.settings = settings;
    this.load = load;
    this.target = {
      endpointId: endpoint.id,
      url: endpoint.url,
      headers: endpoint.headers,
      maxConnections: endpoint.originConnections,
    };
    this.bucket =
      settings.learnedRate !== undefined
        ? new LearnedBucket(settings.learnedRate, 1, nowMs)
        : settings.requestsPerSecond === undefined || settings.burstCapacity === undefined
          ? undefined
          : new TokenBucket(settings.requestsPerSecond, settings.burstCapacity, nowMs);
  }

  /** Moves the role to another reputation band, keeping its tier's band counts exact. */
  setBand(rank: number): void {
    const band = this.disabled ? DISABLED_BAND : rank;
    if (band === this.band) return;
    if (this.tierBandCounts) {
      this.tierBandCounts[this.band]!--;
      this.tierBandCounts[band]!++;
    }
    this.band = band;
  }

  /** Takes the role out of admission for good (reputation can no longer bring it back). */
  disable(): void {
    this.disabled = true;
    this.setBand(DISABLED_BAND);
  }

  get endpointId(): string {
    return this.endpoint.id;
  }

  /** Ends a finished rate-limit cooldown (RateLimited → Degraded); returns true when it just ended. */
  settleCooldown(nowMs: number): boolean {
    if (this.availability === 'rate-limited' && nowMs >= this.cooldownUntilMs) {
      this.availability = 'degraded';
      return true;
    }
    return false;
  }

  /**
   * When the role could admit at `nowMs`: 0 when it can now, otherwise the instant at which
   * admission could next succeed (`Infinity` when only a permit release can unblock it).
   * Takes nothing: {@link admit} does. `method`: the call's, which an endpoint with a credit
   * plan prices (undefined: a permit for no one method).
   */
  blockedUntil(nowMs: number, method?: string): number {
    if (nowMs < this.cooldownUntilMs) return this.cooldownUntilMs;
    const max = this.settings.maxConcurrentRequests;
    if (max !== undefined && this.inFlight >= max) return Number.POSITIVE_INFINITY;
    const load = this.load;
    if (load.max !== undefined && load.inFlight >= load.max) return Number.POSITIVE_INFINITY;
    if (this.bucket !== undefined) {
      const waitMs = this.bucket.waitMs(nowMs);
      if (waitMs !== 0) return nowMs + waitMs;
    }
    return load.credits === undefined ? 0 : load.credits.blockedUntil(nowMs, method);
  }

  /** Takes a permit, a token and the call's credits; call only right after {@link blockedUntil} returned 0 at `nowMs`. */
  admit(nowMs: number, method?: string): void {
    this.bucket?.tryTake(nowMs);
    this.load.credits?.take(nowMs, method);
    this.inFlight++;
    if (this.load.inFlight++ === 0) this.load.busySinceMs = nowMs;
  }

  /** {@link blockedUntil}, then {@link admit} when it is 0. */
  tryAdmit(nowMs: number, method?: string): number {
    const blockedUntil = this.blockedUntil(nowMs, method);
    if (blockedUntil === 0) this.admit(nowMs, method);
    return blockedUntil;
  }

  /** Returns a permit; `answered`: the endpoint finished the request (not a cancelled attempt), so it was not silent. */
  release(nowMs: number, answered: boolean): void {
    this.inFlight--;
    this.load.inFlight--;
    if (answered) this.load.busySinceMs = nowMs;
  }

  recordSuccess(): void {
    this.successes++;
    if (this.availability === 'degraded') this.availability = 'available';
  }

  recordFailure(cause?: FailureCause): void {
    this.failures++;
    if (cause !== undefined) this.lastFailureCause = cause;
    if (this.availability === 'available') this.availability = 'degraded';
  }

  /** Counts a rate limit and starts (or lengthens) the cooldown; returns its length in ms. */
  recordRateLimited(nowMs: number, providerDelayMs: number | undefined): number {
    this.rateLimits++;
    this.lastFailureCause = 'rate-limited';
    return this.startCooldown(nowMs, providerDelayMs);
  }

  /**
   * Pauses the role (RateLimited) for `max(pause, min(providerDelayMs, 60 s))`; also used
   * when a server asks for a pause without a 429 (503 with `Retry-After`). Returns the length in ms.
   */
  startCooldown(nowMs: number, providerDelayMs: number | undefined): number {
    const cooldownMs = rateLimitCooldownMs(this.settings.pauseAfterRateLimitMs, providerDelayMs);
    this.cooldownUntilMs = Math.max(this.cooldownUntilMs, nowMs + cooldownMs);
    this.availability = 'rate-limited';
    return cooldownMs;
  }
}
