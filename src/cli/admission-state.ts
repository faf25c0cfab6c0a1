import type { EndpointSnapshot, RoleSnapshot } from '../pool/snapshot.js';
import { DEFAULT_BAND_THRESHOLDS, type BandThresholds } from '../reputation/score.js';

/**
 * The demo's "state" column: what admission does with an endpoint right now, in the order
 * admission checks it (chain guard, lag, host breaker, reputation bench, eligibility score,
 * rate-limit cooldown, then the band that decides its turn). Pure: snapshot in, words out.
 */

const seconds = (ms: number) => (ms >= 60_000 ? `${(ms / 60_000).toFixed(1)} min` : `${(ms / 1000).toFixed(1)} s`);

export function admissionStateOf(endpoint: EndpointSnapshot, role: RoleSnapshot | undefined, thresholds: BandThresholds = DEFAULT_BAND_THRESHOLDS): string {
  if (endpoint.chain === 'wrong-chain') return 'excluded: wrong chain';
  if (endpoint.chain === 'unverified') return 'waiting: chain check';
  if (endpoint.health === 'lagging') return `skipped: lagging${endpoint.head?.lag === undefined ? '' : ` ${endpoint.head.lag} behind the tip`}`;
  if (endpoint.breakerOpenRemainingMs > 0) return `skipped: host breaker open, ${seconds(endpoint.breakerOpenRemainingMs)} left`;
  const reputation = endpoint.reputation;
  if (reputation !== undefined && reputation.cooldownRemainingMs > 0) return `skipped: benched, ${seconds(reputation.cooldownRemainingMs)} left`;
  if (reputation !== undefined && reputation.score < thresholds.eligible) {
    return `skipped: score ${Math.floor(reputation.score)} < eligibility ${thresholds.eligible}`;
  }
  if (role !== undefined && role.cooldownRemainingMs > 0) return `paused: rate-limit cooldown, ${seconds(role.cooldownRemainingMs)} left`;
  if (reputation === undefined) return 'admitted';
  if (reputation.score >= thresholds.good) return `admitted: good band (≥ ${thresholds.good})`;
  if (reputation.score >= thresholds.fair) return `admitted after good: fair band (≥ ${thresholds.fair})`;
  return `admitted last: poor band (≥ ${thresholds.eligible})`;
}
