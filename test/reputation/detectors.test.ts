import { describe, expect, it } from 'vitest';
import {
  CRITICAL,
  CRITICAL_PROBE,
  FIVE_PERCENT_VIOLATIONS,
  HALF_CRITICAL,
  HOUR,
  MIN,
  SUCCESS,
  VIOLATION,
  driveUntilTrip,
  keyOf,
  startedBy,
  tracker,
} from './helpers.js';

describe('critical-rate detector', () => {
  it('escalates linearly 10, 20, 30, 40, 50, 60 min and then stays capped at 60', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    let now = 0;
    const durations: number[] = [];
    for (let i = 0; i < 8; i++) {
      const { trip } = driveUntilTrip(t, key, now, 'critical-rate', HALF_CRITICAL);
      durations.push(trip.durationMs / MIN);
      expect(t.view(key, now).cooldownRemainingMs).toBe(trip.durationMs);
      now = trip.untilMs; // the next bad run starts as the bench ends
    }
    expect(durations).toEqual([10, 20, 30, 40, 50, 60, 60, 60]);
  });

  it('needs 20 observations before it may trip', () => {
    const t = tracker();
    const { signals } = driveUntilTrip(t, keyOf('https://a.example/'), 0, 'critical-rate', [CRITICAL]);
    // All-critical reaches 0.30 after 7 observations; the minimum holds it until the 20th.
    expect(signals).toBe(20);
  });

  it('restarts its escalation after an hour clean, and escalates within the hour', () => {
    const t = tracker();
    const a = keyOf('https://a.example/');
    const b = keyOf('https://b.example/');
    for (const key of [a, b]) {
      driveUntilTrip(t, key, 0, 'critical-rate', HALF_CRITICAL); // 10 min, ends at 10 min
      driveUntilTrip(t, key, 10 * MIN, 'critical-rate', HALF_CRITICAL); // 20 min, ends at 30 min
    }
    // a: 59 min after its bench ended → still consecutive (n = 3).
    expect(driveUntilTrip(t, a, 30 * MIN + 59 * MIN, 'critical-rate', HALF_CRITICAL).trip.durationMs).toBe(30 * MIN);
    // b: a full hour after its bench ended → a first offence again (n = 1).
    const fresh = driveUntilTrip(t, b, 30 * MIN + HOUR, 'critical-rate', HALF_CRITICAL).trip;
    expect([fresh.durationMs, fresh.level]).toEqual([10 * MIN, 1]);
  });

  it('trips once per cooldown on one long bad run: the trip resets the EWMA and the sample', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    const trips = [];
    // A 50%-critical stream that keeps reaching the endpoint (collapse guard, hedges),
    // one signal per second for the whole 10-minute bench.
    let first = -1;
    for (let i = 0; i < 600; i++) {
      const found = startedBy(t.record(key, HALF_CRITICAL[i % 2]!, i * 1_000), 'critical-rate');
      if (found.length > 0 && first < 0) first = i;
      trips.push(...found);
      if (i === first) expect(t.view(key, i * 1_000).criticalRate).toBe(0);
    }
    expect(trips.map((c) => c.durationMs)).toEqual([10 * MIN]);
    // After the bench the detector starts from zero: the next trip again needs 20 fresh
    // observations, and escalates to n = 2.
    const { trip, signals } = driveUntilTrip(t, key, trips[0]!.untilMs, 'critical-rate', HALF_CRITICAL);
    expect([signals, trip.durationMs]).toEqual([20, 20 * MIN]);
  });

  it('ignores health probes, which still move the score', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    const changes = [];
    for (let i = 0; i < 1_000; i++) {
      changes.push(...t.record(key, { ...HALF_CRITICAL[i % 2]!, isHealthCheck: true }, i));
    }
    expect(startedBy(changes, 'critical-rate')).toEqual([]);
    const view = t.view(key, 1_000);
    expect(view).toMatchObject({ criticalRate: 0, band: 'ineligible' });
    expect(view.score).toBeLessThan(5);
  });
});

describe('invalid-rate detector', () => {
  it('trips on a sustained violation rate that the additive score cannot see', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    // 1% violations, 99% successes: the score sits at 100 throughout.
    const pattern = [VIOLATION, ...Array.from({ length: 99 }, () => SUCCESS)];
    const { trip, signals } = driveUntilTrip(t, key, 0, 'invalid-rate', pattern);
    expect([trip.durationMs, trip.level]).toEqual([10 * MIN, 1]);
    expect(signals).toBeGreaterThan(200);
    const view = t.view(key, 0);
    expect(view).toMatchObject({ band: 'good', strikes: 0, cooldownRemainingMs: 10 * MIN, eligible: false });
    expect(view.score).toBeGreaterThanOrEqual(90); // 100 but for the violation that tripped it
  });

  it('does not trip before its minimum sample, nor on critical errors without violations', () => {
    const t = tracker();
    const a = keyOf('https://a.example/');
    const changes = [];
    for (let i = 0; i < 199; i++) changes.push(...t.record(a, VIOLATION, 0));
    expect(startedBy(changes, 'invalid-rate')).toEqual([]);
    expect(startedBy(t.record(a, VIOLATION, 0), 'invalid-rate')).toHaveLength(1);

    const b = keyOf('https://b.example/');
    const plain = [];
    for (let i = 0; i < 4_000; i++) plain.push(...t.record(b, i % 20 === 0 ? CRITICAL : SUCCESS, 0));
    expect(startedBy(plain, 'invalid-rate')).toEqual([]);
    expect(t.view(b, 0)).toMatchObject({ invalidRate: 0, eligible: true });
  });

  it('ignores protocol violations seen by health probes', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    const changes = [];
    for (let i = 0; i < 4_000; i++) changes.push(...t.record(key, { ...VIOLATION, isHealthCheck: true }, 0));
    expect(startedBy(changes, 'invalid-rate')).toEqual([]);
    expect(t.view(key, 0).score).toBe(0);
  });

  it('escalates on its own repeat trips', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    const first = driveUntilTrip(t, key, 0, 'invalid-rate', FIVE_PERCENT_VIOLATIONS).trip;
    const second = driveUntilTrip(t, key, first.untilMs, 'invalid-rate', FIVE_PERCENT_VIOLATIONS).trip;
    expect([first.durationMs, second.durationMs]).toEqual([10 * MIN, 20 * MIN]);
  });
});

describe('consecutive-strike detector', () => {
  it('benches at 5 strikes for 5 min, then 10, 20, 40 and at most 60 min per further strike', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    const changes = [];
    for (let i = 0; i < 4; i++) changes.push(...t.record(key, CRITICAL_PROBE, 0));
    expect(startedBy(changes, 'strikes')).toEqual([]);
    let now = 0;
    const durations: number[] = [];
    for (let i = 0; i < 6; i++) {
      const [trip] = startedBy(t.record(key, CRITICAL_PROBE, now), 'strikes');
      durations.push(trip!.durationMs / MIN);
      expect(t.view(key, now).cooldownRemainingMs).toBe(trip!.durationMs);
      now = trip!.untilMs; // the endpoint is tried again as the bench ends, and fails again
    }
    expect(durations).toEqual([5, 10, 20, 40, 60, 60]);
  });

  it('removes 3 strikes per positive signal, never below zero', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    const record = (signal: typeof CRITICAL, n: number) => {
      const out = [];
      for (let i = 0; i < n; i++) out.push(...startedBy(t.record(key, signal, 0), 'strikes'));
      return out;
    };
    record(CRITICAL_PROBE, 4);
    record({ kind: 'recovery', isHealthCheck: true }, 1); // 4 → 1
    expect(t.view(key, 0).strikes).toBe(1);
    record(SUCCESS, 1); // 1 → 0, not −2
    expect(t.view(key, 0).strikes).toBe(0);
    expect(record(CRITICAL_PROBE, 4)).toEqual([]);
    expect(record(CRITICAL_PROBE, 1)).toHaveLength(1);
  });

  it('does not count slow answers or lesser failures as strikes or as decay', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    for (let i = 0; i < 4; i++) t.record(key, CRITICAL_PROBE, 0);
    for (const kind of ['minor', 'major', 'slow', 'very-slow', 'none'] as const) t.record(key, { kind }, 0);
    expect(t.view(key, 0).strikes).toBe(4);
  });
});
