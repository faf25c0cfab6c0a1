import {
  createReputationTracker,
  type ReputationChange,
  type ReputationTracker,
} from '../../src/reputation/tracker.js';
import { reputationKey, type ReputationKey } from '../../src/reputation/keys.js';
import type { ReputationOptions } from '../../src/reputation/config.js';
import type { ReputationDetector } from '../../src/reputation/detectors.js';
import type { ReputationSignal } from '../../src/reputation/signals.js';

export const MIN = 60_000;
export const HOUR = 60 * MIN;

export const SUCCESS: ReputationSignal = { kind: 'success', latencyMs: 50 };
export const CRITICAL: ReputationSignal = { kind: 'critical' };
export const CRITICAL_PROBE: ReputationSignal = { kind: 'critical', isHealthCheck: true };
/** A protocol violation that is neither critical nor fatal, so only the invalid-rate detector sees it. */
export const VIOLATION: ReputationSignal = { kind: 'major', protocolViolation: true };

export function keyOf(url: string, endpointId = 'ep-0', domain = 'example.com'): ReputationKey {
  return reputationKey('per-url', { url, endpointId, domain });
}

export function tracker(config: ReputationOptions = {}): ReputationTracker {
  return createReputationTracker({ config });
}

export type CooldownStarted = Extract<ReputationChange, { type: 'cooldown-start' }>;

export function startedBy(changes: readonly ReputationChange[], detector: ReputationDetector): CooldownStarted[] {
  return changes.filter((c): c is CooldownStarted => c.type === 'cooldown-start' && c.detector === detector);
}

/**
 * Feeds `pattern` (cycled) one signal at a time at `nowMs` and stops at the first trip of
 * `detector`, returning it with the number of signals it took. Stopping at the first trip
 * matters: a fixed-size batch would hide how many times a run trips.
 */
export function driveUntilTrip(
  t: ReputationTracker,
  key: ReputationKey,
  nowMs: number,
  detector: ReputationDetector,
  pattern: readonly ReputationSignal[],
  maxSignals = 100_000,
): { trip: CooldownStarted; signals: number } {
  for (let i = 0; i < maxSignals; i++) {
    const trips = startedBy(t.record(key, pattern[i % pattern.length]!, nowMs), detector);
    if (trips.length > 0) return { trip: trips[0]!, signals: i + 1 };
  }
  throw new Error(`${detector} never tripped within ${maxSignals} signals`);
}

/** 50% critical alongside successes: trips the critical-rate detector, never the strikes (+1 −3). */
export const HALF_CRITICAL: readonly ReputationSignal[] = [CRITICAL, SUCCESS];

/** 5% protocol violations: trips the invalid-rate detector only. */
export const FIVE_PERCENT_VIOLATIONS: readonly ReputationSignal[] = [
  VIOLATION,
  ...Array.from({ length: 19 }, () => SUCCESS),
];
