import type { Random } from '../clock.js';
import { backoffDelayMs, type BackoffSettings } from '../retry/backoff.js';

/**
 * How long an endpoint whose socket failed (closed, errored, went silent, refused the
 * upgrade) is left out of placement for every subscription (pure): a jittered exponential
 * backoff in its failures in a row, so a fleet of clients does not reconnect in lockstep;
 * a 429 on the upgrade waits at least its `Retry-After`. Moving a subscription to another
 * endpoint is not delayed at all (failover is immediate); only coming back to this one is.
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
