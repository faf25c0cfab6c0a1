import type { Random } from '../clock.js';
import { backoffDelayMs, type BackoffSettings } from '../retry/backoff.js';

/**
 * How long an endpoint whose socket failed (closed, errored, went silent, refused the
 * upgrade) is left out of placement for every subscription (pure): a jittered exponential
 * backoff in its failures in a row, so a fleet of clients does not reconnect in lockstep;
 * a 429 on the upgrade waits at least its `Retry-After`. Moving a subscription to another
 * endpoint is delayed only by a jitter and that endpoint's rate (resubscribe-meter.ts);
 * coming back to this one waits out its pause.
 */
export function endpointPauseMs(consecutiveFailures: number, providerDelayMs: number | undefined, settings: BackoffSettings, random: Random): number {
  const backoff = backoffDelayMs(Math.max(1, consecutiveFailures), settings, random);
  return Math.max(backoff, providerDelayMs ?? 0);
}

/**
 * How long a subscription with no endpoint to go to waits before it looks again (pure):
 * until the earliest paused endpoint is back, else (chain checks pending, every endpoint
 * benched) one initial backoff.
 */
export function waitForCandidateMs(earliestPauseEndMs: number, nowMs: number, settings: BackoffSettings): number {
  if (Number.isFinite(earliestPauseEndMs) && earliestPauseEndMs > nowMs) return earliestPauseEndMs - nowMs;
  return settings.initialBackoffMs;
}

/**
 * An endpoint's socket failures in a row after one more socket died (pure). A confirmation
 * alone does not end the run: a node that confirms and drops at once would otherwise be
 * reconnected to after the initial backoff forever (7–8 opens per second). Only a socket
 * that stayed up `maxBackoffMs` past its first confirmation counts as healthy: the run
 * starts again at 1.
 */
export function failuresAfterDeath(failures: number, confirmedAtMs: number | undefined, nowMs: number, settings: BackoffSettings): number {
  const healthy = confirmedAtMs !== undefined && nowMs - confirmedAtMs >= settings.maxBackoffMs;
  return healthy ? 1 : failures + 1;
}
