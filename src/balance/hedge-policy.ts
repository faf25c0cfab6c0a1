import { selectKth } from './select-kth.js';

/**
 * Hedging's pure parts (docs/concepts.md "Hedged reads"): when an idempotent read is late, the delay after
 * which a second attempt goes to another endpoint, and the budget that hedges and retries
 * share so that an outage cannot multiply the load on the providers that remain (gRPC's
 * retry throttling, Envoy's and Finagle's retry budgets).
 */

/** Settings of `hedge` (pool option); `false` turns hedging and the retry budget off. */
export interface HedgeSettings {
  /**
   * Wait before the hedge, in ms, or `'auto'`: the `quantile` of recent good answers of the
   * call's kind across the pool (not the slow endpoint's own), clamped to
   * [`minDelayMs`, `maxDelayMs`]. @default 'auto'
   */
  readonly delayMs?: number | 'auto';
  /** Hedges per call. Only 1 is supported. @default 1 */
  readonly maxHedges?: 1;
  /** Hedges plus retries, as a share of calls, in steady state. @default 0.1 */
  readonly budgetRatio?: number;
  /** Quantile of recent good answers used by `'auto'`. @default 0.95 */
  readonly quantile?: number;
  /** Lower clamp of the `'auto'` delay, in ms. @default 50 */
  readonly minDelayMs?: number;
  /** Upper clamp of the `'auto'` delay (and the delay before any answer was seen), in ms. @default 2000 */
  readonly maxDelayMs?: number;
}

export const HEDGE_DEFAULTS = { budgetRatio: 0.1, quantile: 0.95, minDelayMs: 50, maxDelayMs: 2_000 } as const;
/** Good answers kept per kind for the `'auto'` delay. */
const WINDOW = 512;
/** Answers needed before the quantile is computed (before: the slowest answer seen, see {@link LatencyQuantile.estimateMs}). */
const MIN_SAMPLES = 8;
/** Answers between two recomputations of the quantile, once {@link WINDOW} answers were seen (before: every answer). */
const RECOMPUTE_EVERY = 64;

/**
 * A high quantile of the last {@link WINDOW} good answers: recomputed on every answer while
 * the window fills (a new pool's first answers matter at once), then every {@link RECOMPUTE_EVERY}.
 */
export class LatencyQuantile {
  readonly quantile: number;
  readonly #ring = new Float64Array(WINDOW);
  /** Reordered by each recomputation; kept to allocate nothing per answer. */
  readonly #scratch = new Float64Array(WINDOW);
  #count = 0;
  #sinceRecompute = 0;
  #valueMs: number | undefined;

  constructor(quantile: number) {
    this.quantile = quantile;
  }

  observe(latencyMs: number): void {
    this.#ring[this.#count % WINDOW] = latencyMs;
    this.#count++;
    if (this.#count >= MIN_SAMPLES && (this.#count <= WINDOW || ++this.#sinceRecompute >= RECOMPUTE_EVERY)) {
      this.#sinceRecompute = 0;
      const length = Math.min(this.#count, WINDOW);
      this.#scratch.set(length === WINDOW ? this.#ring : this.#ring.subarray(0, length));
      this.#valueMs = selectKth(this.#scratch, length, Math.min(length - 1, Math.floor(this.quantile * length)));
    }
  }

  /** The quantile in ms, or undefined before {@link MIN_SAMPLES} answers. */
  get valueMs(): number | undefined {
    return this.#valueMs;
  }

  /**
   * What the delay follows: the quantile once there is one; before, the slowest of the few
   * answers seen (a high quantile of so few is their maximum), so a new pool's first
   * answers set the delay at once; undefined before any answer.
   */
  get estimateMs(): number | undefined {
    if (this.#valueMs !== undefined || this.#count === 0) return this.#valueMs;
    let slowest = 0;
    for (let i = 0; i < this.#count; i++) slowest = Math.max(slowest, this.#ring[i]!);
    return slowest;
  }
}

/**
 * The wait before a hedge, in ms: fixed, or the clamped estimate of good answers
 * ({@link LatencyQuantile.estimateMs}); `maxDelayMs` before any answer was seen.
 */
export function hedgeDelayMs(settings: HedgeSettings, quantile: LatencyQuantile): number {
  if (typeof settings.delayMs === 'number') return settings.delayMs;
  const min = settings.minDelayMs ?? HEDGE_DEFAULTS.minDelayMs;
  const max = settings.maxDelayMs ?? HEDGE_DEFAULTS.maxDelayMs;
  const value = quantile.estimateMs;
  return value === undefined ? max : Math.min(max, Math.max(min, value));
}

/**
 * Tokens that hedges and retries spend (one each). Every call earns `ratio`, up to
 * `capacity` (the bucket starts full); hedges spend only earned tokens and only while more
 * than half of the capacity is left, so they stay at `ratio` of calls and never starve the
 * retries that failover needs. Retries spend earned tokens too, plus a floor of
 * `minPerSecond` that keeps a quiet pool able to retry (Finagle's `minRetriesPerSec`).
 */
export class RetryBudget {
  readonly ratio: number;
  readonly capacity: number;
  readonly minPerSecond: number;
  #earned: number;
  #floor: number;
  #floorAtMs: number;

  constructor(ratio: number, nowMs: number, capacity = 20, minPerSecond = 10) {
    this.ratio = ratio;
    this.capacity = capacity;
    this.minPerSecond = minPerSecond;
    this.#earned = capacity;
    this.#floor = minPerSecond;
    this.#floorAtMs = nowMs;
  }

  /** Tokens a retry could spend now (earned plus floor). */
  tokens(nowMs: number): number {
    return this.#earned + this.#floorNow(nowMs);
  }

  #floorNow(nowMs: number): number {
    if (nowMs > this.#floorAtMs) {
      this.#floor = Math.min(this.minPerSecond, this.#floor + ((nowMs - this.#floorAtMs) * this.minPerSecond) / 1000);
      this.#floorAtMs = nowMs;
    }
    return this.#floor;
  }

  /** A call was made. */
  deposit(): void {
    this.#earned = Math.min(this.capacity, this.#earned + this.ratio);
  }

  /** Spends a token for a retry (the floor first); false when none is left. */
  tryRetry(nowMs: number): boolean {
    if (this.#floorNow(nowMs) >= 1) {
      this.#floor -= 1;
      return true;
    }
    if (this.#earned < 1) return false;
    this.#earned -= 1;
    return true;
  }

  /** Gives back a token spent on a hedge that could not start (no endpoint to take it). */
  refund(): void {
    this.#earned = Math.min(this.capacity, this.#earned + 1);
  }

  /** Spends an earned token for a hedge; false unless more than half the capacity is left after it. */
  tryHedge(): boolean {
    if (this.#earned - 1 < this.capacity / 2) return false;
    this.#earned -= 1;
    return true;
  }
}
