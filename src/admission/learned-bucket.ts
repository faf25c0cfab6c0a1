/**
 * The bucket of an `'auto'` role: a continuous-refill token bucket whose rate is learned
 * (`learned-rate.ts`). It counts its own demand — tokens taken, calls it had to refuse —
 * so the everyday path pays two increments and one comparison; the decision runs once per
 * demand window, on the take that ends it.
 */
import {
  acceptedRpsOf,
  afterDemandWindow,
  afterRateLimit,
  DEMAND_WINDOW_MS,
  initialLearnedRate,
  type LearnedRateReason,
  type LearnedRateSettings,
  type LearnedRateState,
  type RateLimitHint,
} from './learned-rate.js';
import type { AdmissionBucket } from './token-bucket.js';

const EPSILON = 1e-9;

/** Told each time the learned rate moves (the autopilot part turns it into an event, a log line, a gauge). */
export type LearnedRateListener = (fromRps: number, toRps: number, reason: LearnedRateReason, nowMs: number) => void;

/** A bucket whose rate is learned from the provider's rate limits: this process's own, or a fleet's shared one (`fleet/learned-lease.ts`). */
export interface LearningBucket extends AdmissionBucket {
  /** The learned rate now, in requests per second. */
  readonly rateRps: number;
  /** A rate limit reported for the role at `nowMs` (with what the provider said). */
  onRateLimited(nowMs: number, hint: RateLimitHint): void;
  listener: LearnedRateListener | undefined;
}

export function isLearning(bucket: AdmissionBucket | undefined): bucket is LearningBucket {
  return typeof (bucket as Partial<LearningBucket> | undefined)?.onRateLimited === 'function';
}

export class LearnedBucket implements LearningBucket {
  readonly settings: LearnedRateSettings;
  /** Seconds of the rate the bucket holds (its burst). */
  private readonly burstSeconds: number;
  private state: LearnedRateState;
  private tokens: number;
  private updatedAtMs: number;
  private windowStartMs: number;
  private admitted = 0;
  private refused = 0;
  private rateLimited = 0;
  /** The last whole window's counts and length in ms: with the current one, the accepted rate a decrease is held to. */
  private lastAdmitted = 0;
  private lastRateLimited = 0;
  private lastWindowMs = 0;
  /** Set by the autopilot part; none while nobody listens. */
  listener: LearnedRateListener | undefined;

  /** @param burstSeconds the burst as seconds of the learned rate (a burst of at least one token) */
  constructor(settings: LearnedRateSettings, burstSeconds: number, nowMs: number) {
    this.settings = settings;
    this.burstSeconds = burstSeconds;
    this.state = initialLearnedRate(settings);
    this.tokens = this.capacity;
    this.updatedAtMs = nowMs;
    this.windowStartMs = nowMs;
  }

  /** The learned rate now, in requests per second. */
  get rateRps(): number {
    return this.state.rateRps;
  }

  get capacity(): number {
    return Math.max(1, this.state.rateRps * this.burstSeconds);
  }

  private refill(nowMs: number): void {
    if (nowMs > this.updatedAtMs) {
      this.tokens = Math.min(this.capacity, this.tokens + ((nowMs - this.updatedAtMs) * this.state.rateRps) / 1000);
      this.updatedAtMs = nowMs;
    }
    if (nowMs - this.windowStartMs >= DEMAND_WINDOW_MS) this.endWindow(nowMs);
  }

  private endWindow(nowMs: number): void {
    const window = { windowMs: nowMs - this.windowStartMs, admitted: this.admitted, refused: this.refused, rateLimited: this.rateLimited };
    this.windowStartMs = nowMs;
    this.lastAdmitted = this.admitted;
    this.lastRateLimited = this.rateLimited;
    this.lastWindowMs = window.windowMs;
    this.admitted = 0;
    this.refused = 0;
    this.rateLimited = 0;
    this.move(afterDemandWindow(this.state, window, this.settings), 'demand', nowMs);
  }

  private move(next: LearnedRateState, reason: LearnedRateReason, nowMs: number): void {
    const from = this.state.rateRps;
    this.state = next;
    if (next.rateRps === from) return;
    this.tokens = Math.min(this.tokens, this.capacity);
    this.listener?.(from, next.rateRps, reason, nowMs);
  }

  /** A rate limit reported for this role at `nowMs` (with what the provider said). */
  onRateLimited(nowMs: number, hint: RateLimitHint): void {
    this.refill(nowMs);
    this.rateLimited++;
    const reason: LearnedRateReason = hint.allowedRps !== undefined ? 'provider-hint' : 'rate-limited';
    this.move(afterRateLimit(this.state, nowMs, hint, this.acceptedRps(nowMs), this.settings), reason, nowMs);
  }

  /** The accepted rate over the last and the current window (`acceptedRpsOf`): counted here, so successes cost the everyday path nothing. */
  private acceptedRps(nowMs: number): number | undefined {
    const last = { admitted: this.lastAdmitted, rateLimited: this.lastRateLimited, windowMs: this.lastWindowMs };
    return acceptedRpsOf(last, { admitted: this.admitted, rateLimited: this.rateLimited }, nowMs - this.windowStartMs, this.state.rateRps);
  }

  available(nowMs: number): number {
    this.refill(nowMs);
    return this.tokens;
  }

  waitMs(nowMs: number): number {
    this.refill(nowMs);
    if (this.tokens >= 1 - EPSILON) return 0;
    this.refused++;
    return ((1 - this.tokens) * 1000) / this.state.rateRps;
  }

  tryTake(nowMs: number): boolean {
    this.refill(nowMs);
    if (this.tokens < 1 - EPSILON) {
      this.refused++;
      return false;
    }
    this.tokens = Math.max(0, this.tokens - 1);
    this.admitted++;
    return true;
  }

  charge(count: number, nowMs: number): void {
    if (!(count > 0)) return;
    this.refill(nowMs);
    this.tokens -= count;
    this.admitted += count;
  }
}
