/**
 * Lag verdicts with hysteresis, and the rule that keeps the freshest endpoints when every
 * candidate lags. There is no ranking by freshness inside the allowance: PATH's Solana surge
 * (2026-08-18) showed that preferring the freshest head locks all traffic on one operator.
 */

/**
 * Whether an endpoint `lag` behind the tip is lagging: further behind than `allowance`; once
 * lagging, until it is back within half of it (so a node hovering at the edge does not flap).
 */
export function isLaggingNow(wasLagging: boolean, lag: number, allowance: number): boolean {
  return wasLagging ? lag > allowance / 2 : lag > allowance;
}

/**
 * The collapse rule for lag: of `candidates` that all lag, those with the smallest lag
 * (ties all kept, so traffic still spreads). `lagOf` gives Infinity for an unknown lag.
 */
export function freshestOf<T>(candidates: readonly T[], lagOf: (candidate: T) => number): readonly T[] {
  let best = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) best = Math.min(best, lagOf(candidate));
  return candidates.filter((candidate) => lagOf(candidate) === best);
}
