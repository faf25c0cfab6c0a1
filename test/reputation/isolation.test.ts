/**
 * Each detector escalates against its own history only. These reproduce the PATH gateway's
 * defect: a rate detector compared its stale history with a cooldown that another detector
 * had set, read the foreign bench as "consecutive", and benched a first offence at the
 * escalated duration. Assertions are on the bench the endpoint receives.
 */
import { describe, expect, it } from 'vitest';
import {
  CRITICAL_PROBE,
  FIVE_PERCENT_VIOLATIONS,
  HALF_CRITICAL,
  HOUR,
  MIN,
  driveUntilTrip,
  keyOf,
  startedBy,
  tracker,
} from './helpers.js';
import type { ReputationTracker } from '../../src/reputation/tracker.js';
import type { ReputationKey } from '../../src/reputation/keys.js';

/** Five critical health probes: a strike bench that the rate detectors never see. */
function strikeBench(t: ReputationTracker, key: ReputationKey, nowMs: number) {
  const changes = [];
  for (let i = 0; i < 5; i++) changes.push(...t.record(key, CRITICAL_PROBE, nowMs));
  const [trip] = startedBy(changes, 'strikes');
  expect(trip?.durationMs).toBe(5 * MIN);
  return trip!;
}

describe('detector escalation isolation', () => {
  it('computes a critical-rate trip from its own count, not from an active strike bench', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    // Two critical-rate trips; the second at 10 min (20-min bench, ends at 30 min).
    driveUntilTrip(t, key, 0, 'critical-rate', HALF_CRITICAL);
    const second = driveUntilTrip(t, key, 10 * MIN, 'critical-rate', HALF_CRITICAL).trip;
    expect(second.level).toBe(2);
    // 50 min after that trip, a strike bench is running…
    const now = 10 * MIN + 50 * MIN;
    const strikes = strikeBench(t, key, now - MIN);
    expect(strikes.untilMs).toBeGreaterThan(now);
    // …and the critical-rate detector trips again: n = 3 → 30 min, counted once.
    const third = driveUntilTrip(t, key, now, 'critical-rate', HALF_CRITICAL).trip;
    expect([third.level, third.durationMs]).toEqual([3, 30 * MIN]);
    expect(t.view(key, now).cooldownRemainingMs).toBe(30 * MIN);
  });

  it('does not resume stale critical-rate history because another detector set a cooldown', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    let now = 0;
    for (let i = 0; i < 3; i++) now = driveUntilTrip(t, key, now, 'critical-rate', HALF_CRITICAL).trip.untilMs;
    // n = 3, its bench ended at `now`. Two hours later the endpoint is benched by strikes.
    now += 2 * HOUR;
    strikeBench(t, key, now);
    const trip = driveUntilTrip(t, key, now + MIN, 'critical-rate', HALF_CRITICAL).trip;
    // A first offence again: 10 min, not the 40 min a resumed count of 4 would give.
    expect([trip.level, trip.durationMs]).toEqual([1, 10 * MIN]);
    expect(t.view(key, now + MIN).cooldownRemainingMs).toBe(10 * MIN);
  });

  it('does not resume stale invalid-rate history because the critical-rate detector set a cooldown', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    const first = driveUntilTrip(t, key, 0, 'invalid-rate', FIVE_PERCENT_VIOLATIONS).trip;
    // Long after its own bench ended, the endpoint is benched by the critical-rate detector…
    const now = first.untilMs + 2 * HOUR;
    const foreign = driveUntilTrip(t, key, now, 'critical-rate', HALF_CRITICAL).trip;
    expect(foreign.durationMs).toBe(10 * MIN);
    // …and the invalid-rate detector trips a minute later: a first offence, not n = 2.
    const trip = driveUntilTrip(t, key, now + MIN, 'invalid-rate', FIVE_PERCENT_VIOLATIONS).trip;
    expect([trip.level, trip.durationMs]).toEqual([1, 10 * MIN]);
    expect(t.view(key, now + MIN).cooldownRemainingMs).toBe(10 * MIN);
  });

  it('never shortens a longer bench that another detector set', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    let now = 0;
    for (let i = 0; i < 3; i++) now = driveUntilTrip(t, key, now, 'critical-rate', HALF_CRITICAL).trip.untilMs;
    const long = driveUntilTrip(t, key, now, 'critical-rate', HALF_CRITICAL).trip; // 40 min
    strikeBench(t, key, now); // 5 min
    expect(t.view(key, now).cooldownRemainingMs).toBe(long.durationMs);
    expect(t.cooldownUntil(key, now)).toBe(long.untilMs);
  });
});
