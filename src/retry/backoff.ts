import type { Random } from '../clock.js';

export interface BackoffSettings {
  /** Lower bound of every backoff, in ms. */
  readonly initialBackoffMs: number;
  /** Upper bound of every backoff, in ms. */
  readonly maxBackoffMs: number;
}

/**
 * Jittered exponential backoff for retry `n` (1 for the first retry): uniform in
 * `[initialBackoffMs, min(maxBackoffMs, initialBackoffMs · 2^(n−1))]`. The lower bound
 * keeps a fleet from retrying in lockstep at 0 ms; the upper bound grows exponentially.
 */
export function backoffDelayMs(retryNumber: number, settings: BackoffSettings, random: Random): number {
  const low = Math.min(settings.initialBackoffMs, settings.maxBackoffMs);
  const exponent = Math.min(Math.max(0, retryNumber - 1), 52);
  const high = Math.max(low, Math.min(settings.maxBackoffMs, settings.initialBackoffMs * 2 ** exponent));
  return low + random() * (high - low);
}
