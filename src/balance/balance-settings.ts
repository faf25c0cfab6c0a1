/** The `balance` option and its defaults: below both the balancer and the role state that keeps each endpoint's latency estimate. */

/** Settings of `balance` (pool option); `false` turns latency-aware choice off (plain rotation). */
export interface BalanceSettings {
  /**
   * Share of idempotent reads that may explore: take the costlier of the two candidates when
   * it was not heard from for a second (and has nothing in flight). A ceiling: exploration
   * costs at most this share of reads, and in practice one read per idle endpoint per second.
   * @default 0.01
   */
  readonly exploreRatio?: number;
  /**
   * Longest time constant of the latency estimate's idle decay, in ms: an estimate relaxes with
   * a time constant of the endpoint's latency scale (an endpoint answering in ~5 ms over ~5 ms),
   * at most this; a lower bound (a timeout, a lost hedge race) always over this. @default 10000
   */
  readonly decayMs?: number;
}

export const DEFAULT_EXPLORE_RATIO = 0.01;
export const DEFAULT_DECAY_MS = 10_000;
