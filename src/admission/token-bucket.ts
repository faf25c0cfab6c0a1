/**
 * A continuous-refill token bucket. Pure arithmetic over a caller-supplied `nowMs`, so it
 * never blocks and never reads a clock: a failed take reports how long until the next
 * whole token instead.
 */
// Tolerance for float drift: a waiter woken at the computed refill instant must get its token.
const EPSILON = 1e-9;

/**
 * What admission asks of a role's bucket. {@link TokenBucket} is the in-process one; a fleet
 * supplies one that leases tokens from a shared bucket. `waitMs` may be `Infinity` when the
 * next token has no known instant (a lease is on its way): the bucket then wakes admission
 * itself when it arrives.
 */
export interface AdmissionBucket {
  /** Tokens available now (snapshot). */
  available(nowMs: number): number;
  /** Milliseconds until one token is available (0: one is there; `Infinity`: no known instant). */
  waitMs(nowMs: number): number;
  /** Takes one token if available; returns true on success. */
  tryTake(nowMs: number): boolean;
  /** Takes `count` more tokens for work already admitted (a batch's other items), into debt when fewer are there. */
  charge(count: number, nowMs: number): void;
}

export class TokenBucket implements AdmissionBucket {
  readonly capacity: number;
  readonly tokensPerMs: number;
  private tokens: number;
  private updatedAtMs: number;

  /**
   * @param requestsPerSecond refill rate (> 0)
   * @param capacity burst capacity (≥ 1)
   * @param nowMs creation instant (monotonic ms)
   * @param initialTokens tokens at creation (clamped to [0, capacity]) @default capacity (full)
   */
  constructor(requestsPerSecond: number, capacity: number, nowMs: number, initialTokens = capacity) {
    this.capacity = capacity;
    this.tokensPerMs = requestsPerSecond / 1000;
    this.tokens = Math.min(capacity, Math.max(0, initialTokens));
    this.updatedAtMs = nowMs;
  }

  private refill(nowMs: number): void {
    if (nowMs > this.updatedAtMs) {
      this.tokens = Math.min(this.capacity, this.tokens + (nowMs - this.updatedAtMs) * this.tokensPerMs);
      this.updatedAtMs = nowMs;
    }
  }

  /** Whole or fractional tokens available at `nowMs`. */
  available(nowMs: number): number {
    this.refill(nowMs);
    return this.tokens;
  }

  /** Milliseconds until `need` tokens (one by default) are available at `nowMs` (0 when they are there now). */
  waitMs(nowMs: number, need = 1): number {
    this.refill(nowMs);
    return this.tokens >= need - EPSILON ? 0 : (need - this.tokens) / this.tokensPerMs;
  }

  /**
   * Takes `count` more tokens for work already admitted (a batch's other items), going into
   * debt when the bucket holds fewer: the next take waits until the debt is paid back, so
   * the rate over time counts every item, as providers do.
   */
  charge(count: number, nowMs: number): void {
    if (!(count > 0)) return;
    this.refill(nowMs);
    this.tokens -= count;
  }

  /** Takes one token if available; returns true on success. */
  tryTake(nowMs: number): boolean {
    this.refill(nowMs);
    if (this.tokens < 1 - EPSILON) return false;
    this.tokens = Math.max(0, this.tokens - 1);
    return true;
  }
}
