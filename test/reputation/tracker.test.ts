import { describe, expect, it } from 'vitest';
import { reputationKey } from '../../src/reputation/keys.js';
import { createMemoryReputationStore } from '../../src/reputation/store.js';
import { createReputationTracker } from '../../src/reputation/tracker.js';
import { CRITICAL, CRITICAL_PROBE, HALF_CRITICAL, MIN, SUCCESS, driveUntilTrip, keyOf, tracker } from './helpers.js';

const endpoints = [
  { endpointId: 'helius-0', url: 'https://rpc.helius.example/?api-key=one', domain: 'helius.example' },
  { endpointId: 'helius-1', url: 'https://rpc.helius.example/?api-key=one', domain: 'helius.example' },
  { endpointId: 'helius-2', url: 'https://eu.rpc.helius.example/?api-key=two', domain: 'helius.example' },
  { endpointId: 'public-3', url: 'https://api.public.example/', domain: 'public.example' },
];

describe('reputation keys', () => {
  const scoresAfterFailingFirst = (granularity: 'per-url' | 'per-endpoint' | 'per-domain') => {
    const t = tracker({ granularity });
    const key = (i: number) => reputationKey(granularity, endpoints[i]!);
    t.record(key(0), CRITICAL, 0);
    return endpoints.map((_, i) => t.view(key(i), 0).score);
  };

  it('shares one score between endpoints with the same URL under per-url', () => {
    expect(scoresAfterFailingFirst('per-url')).toEqual([55, 55, 80, 80]);
  });

  it('scores each endpoint on its own under per-endpoint', () => {
    expect(scoresAfterFailingFirst('per-endpoint')).toEqual([55, 80, 80, 80]);
  });

  it('shares one score per registrable domain under per-domain', () => {
    expect(scoresAfterFailingFirst('per-domain')).toEqual([55, 55, 55, 80]);
  });

  it('treats URLs that differ only in spelling as one backend', () => {
    const parts = { endpointId: 'a', domain: 'node.example' };
    expect(reputationKey('per-url', { ...parts, url: 'https://Node.Example' })).toBe(
      reputationKey('per-url', { ...parts, url: 'https://node.example/' }),
    );
  });
});

describe('eligibility and the pool-collapse guard', () => {
  const candidates = ['a', 'b', 'c'] as const;
  const keyFor = (c: string) => keyOf(`https://${c}.example/`);

  it('returns the candidates untouched when all are eligible', () => {
    const t = tracker();
    expect(t.filterEligible(candidates, keyFor, 0)).toBe(candidates);
  });

  it('drops candidates below the threshold and candidates in cooldown', () => {
    const t = tracker();
    t.record(keyFor('a'), { kind: 'fatal' }, 0); // 30: still eligible
    t.record(keyFor('b'), { kind: 'fatal' }, 0);
    t.record(keyFor('b'), { kind: 'minor' }, 0); // 27: below 30
    driveUntilTrip(t, keyFor('c'), 0, 'critical-rate', HALF_CRITICAL); // benched
    for (let i = 0; i < 50; i++) t.record(keyFor('c'), { kind: 'recovery' }, 1); // score 100, still benched
    expect(t.filterEligible(candidates, keyFor, 1)).toEqual(['a']);
    expect(t.view(keyFor('a'), 1)).toMatchObject({ score: 30, band: 'poor', eligible: true });
    expect(t.view(keyFor('c'), 1)).toMatchObject({ score: 100, band: 'good', eligible: false });
  });

  it('keeps the best-scored candidates when every one would be dropped, ties all kept', () => {
    const t = tracker();
    const scoreTo = (c: string, signals: readonly { kind: 'fatal' | 'critical' | 'minor' }[]) => {
      for (const s of signals) t.record(keyFor(c), s, 0);
    };
    scoreTo('a', [{ kind: 'fatal' }, { kind: 'critical' }]); // 5
    scoreTo('b', [{ kind: 'fatal' }, { kind: 'minor' }]); // 27
    scoreTo('c', [{ kind: 'fatal' }, { kind: 'minor' }]); // 27
    expect(t.filterEligible(candidates, keyFor, 0)).toEqual(['b', 'c']);
    expect(t.filterEligible([], keyFor, 0)).toEqual([]);
  });

  it('counts a benched candidate by its score when the guard has to choose', () => {
    const t = tracker();
    driveUntilTrip(t, keyFor('a'), 0, 'critical-rate', HALF_CRITICAL);
    for (let i = 0; i < 50; i++) t.record(keyFor('a'), { kind: 'recovery' }, 1); // 100, benched
    t.record(keyFor('b'), { kind: 'fatal' }, 1);
    t.record(keyFor('b'), { kind: 'fatal' }, 1); // 0, not benched
    expect(t.filterEligible(['a', 'b'], keyFor, 1)).toEqual(['a']);
  });
});

describe('time-based recovery', () => {
  it('returns a low score to the initial score after the recovery timeout without signals', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    t.record(key, CRITICAL, 0);
    t.record(key, CRITICAL, 1_000); // 30
    t.record(key, CRITICAL, 2_000); // 5
    expect(t.view(key, 2_000 + 5 * MIN - 1)).toMatchObject({ score: 5, band: 'ineligible' });
    expect(t.view(key, 2_000 + 5 * MIN)).toMatchObject({ score: 80, band: 'good', eligible: true });
    // A signal after recovery moves the recovered score.
    t.record(key, CRITICAL, 2_000 + 6 * MIN);
    expect(t.view(key, 2_000 + 6 * MIN).score).toBe(55);
  });

  it('tells when the score will recover, and settle reports the band change then', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    t.record(key, { kind: 'fatal' }, 0);
    t.record(key, { kind: 'minor' }, 1_000); // 27
    expect(t.nextTimeChangeMs(key, 1_000)).toBe(1_000 + 5 * MIN);
    expect(t.settle(key, 1_000 + 5 * MIN)).toEqual([{ type: 'band', from: 'ineligible', band: 'good', score: 80 }]);
    expect(t.nextTimeChangeMs(key, 1_000 + 5 * MIN)).toBeUndefined();
    expect(t.nextTimeChangeMs(keyOf('https://unknown.example/'), 0)).toBeUndefined();
  });

  it('never lowers a score that is above the initial score', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    for (let i = 0; i < 5; i++) t.record(key, { kind: 'recovery' }, 0);
    expect(t.view(key, 10 * MIN).score).toBe(100);
  });

  it('restores the score but not a running cooldown nor the strikes', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    for (let i = 0; i < 6; i++) t.record(key, CRITICAL_PROBE, 0); // 6 strikes → 10 min
    expect(t.view(key, 6 * MIN)).toMatchObject({ score: 80, strikes: 6, cooldownRemainingMs: 4 * MIN, eligible: false });
    // Still broken when readmitted: the next strike benches for 20 min.
    const changes = t.record(key, CRITICAL_PROBE, 10 * MIN);
    expect(changes).toContainEqual(expect.objectContaining({ type: 'cooldown-start', durationMs: 20 * MIN }));
  });

  it('can be disabled', () => {
    const t = tracker({ recoveryTimeoutMs: 0 });
    const key = keyOf('https://a.example/');
    t.record(key, { kind: 'fatal' }, 0);
    expect(t.view(key, 24 * 60 * MIN).score).toBe(30);
  });
});

describe('changes reported for reputation events', () => {
  it('reports band changes once each', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    expect(t.record(key, SUCCESS, 0)).toEqual([]); // 82, good → good
    expect(t.record(key, { kind: 'major' }, 0)).toEqual([]); // 72
    expect(t.record(key, { kind: 'major' }, 0)).toEqual([{ type: 'band', from: 'good', band: 'fair', score: 62 }]);
    expect(t.record(key, { kind: 'critical', isHealthCheck: true }, 0)).toEqual([
      { type: 'band', from: 'fair', band: 'poor', score: 37 },
    ]);
    expect(t.record(key, { kind: 'minor' }, 0)).toEqual([]); // 34
    expect(t.record(key, { kind: 'minor' }, 0)).toEqual([]); // 31
    expect(t.record(key, { kind: 'minor' }, 0)).toEqual([{ type: 'band', from: 'poor', band: 'ineligible', score: 28 }]);
  });

  it('reports a cooldown start with its detector, and its end once time has passed', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    const { trip } = driveUntilTrip(t, key, 0, 'critical-rate', HALF_CRITICAL);
    expect(trip).toMatchObject({ type: 'cooldown-start', detector: 'critical-rate', untilMs: 10 * MIN, durationMs: 10 * MIN, level: 1 });
    // The low score recovers first (5 min without signals), then the bench ends.
    expect(t.nextTimeChangeMs(key, 0)).toBe(5 * MIN);
    expect(t.settle(key, 5 * MIN)).toEqual([{ type: 'band', from: 'ineligible', band: 'good', score: 80 }]);
    expect(t.nextTimeChangeMs(key, 5 * MIN)).toBe(10 * MIN);
    expect(t.settle(key, 10 * MIN - 1).filter((c) => c.type === 'cooldown-end')).toEqual([]);
    expect(t.settle(key, 10 * MIN)).toContainEqual(expect.objectContaining({ type: 'cooldown-end', atMs: 10 * MIN }));
    expect(t.settle(key, 11 * MIN)).toEqual([]);
  });

  it('reports the end and the recovered band on the next signal when nobody settled', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    for (let i = 0; i < 5; i++) t.record(key, CRITICAL_PROBE, 0); // 0 points, 5 min bench
    const changes = t.record(key, SUCCESS, 30 * MIN);
    expect(changes).toEqual([
      { type: 'cooldown-end', atMs: 5 * MIN, band: 'good', score: 82 },
      { type: 'band', from: 'ineligible', band: 'good', score: 82 },
    ]);
  });

  it('records nothing for a no-fault outcome', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    expect(t.record(key, { kind: 'none', protocolViolation: true }, 0)).toEqual([]);
    expect(t.view(key, 0)).toEqual({
      score: 80, band: 'good', cooldownRemainingMs: 0, strikes: 0, criticalRate: 0, invalidRate: 0, eligible: true,
    });
  });
});

describe('store', () => {
  it('keeps all state in the injected store, so two trackers over one store agree', () => {
    const store = createMemoryReputationStore();
    const a = createReputationTracker({ store });
    const b = createReputationTracker({ store });
    const key = keyOf('https://a.example/');
    for (let i = 0; i < 5; i++) a.record(key, CRITICAL, 0);
    expect(b.view(key, 0)).toEqual(a.view(key, 0));
    expect(b.isEligible(key, 0)).toBe(false);
    expect(JSON.parse(JSON.stringify(store.get(key)))).toEqual(store.get(key));
  });
});
