import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHostBreaker } from '../../src/reputation/host-breaker.js';
import type { ReputationSignal } from '../../src/reputation/signals.js';
import { HOUR, keyOf, tracker } from './helpers.js';

const signalArb: fc.Arbitrary<ReputationSignal> = fc.record(
  {
    kind: fc.constantFrom('success', 'recovery', 'slow', 'very-slow', 'minor', 'major', 'critical', 'fatal', 'none'),
    latencyMs: fc.integer({ min: 0, max: 10_000 }),
    protocolViolation: fc.boolean(),
    isHealthCheck: fc.boolean(),
  },
  { requiredKeys: ['kind'] },
);

describe('reputation invariants', () => {
  it('keeps score, strikes, rates and cooldowns within bounds for any signal sequence', () => {
    expect.hasAssertions();
    fc.assert(
      fc.property(fc.array(fc.tuple(signalArb, fc.integer({ min: 0, max: 120_000 })), { maxLength: 400 }), (steps) => {
        const t = tracker();
        const key = keyOf('https://a.example/');
        let now = 0;
        for (const [signal, gapMs] of steps) {
          now += gapMs;
          for (const change of t.record(key, signal, now)) {
            if (change.type === 'cooldown-start') {
              expect(change.durationMs).toBeGreaterThan(0);
              expect(change.durationMs).toBeLessThanOrEqual(HOUR);
            }
          }
          const v = t.view(key, now);
          expect(v.score).toBeGreaterThanOrEqual(0);
          expect(v.score).toBeLessThanOrEqual(100);
          expect(v.strikes).toBeGreaterThanOrEqual(0);
          for (const r of [v.criticalRate, v.invalidRate]) expect(r >= 0 && r <= 1).toBe(true);
          expect(v.cooldownRemainingMs).toBeLessThanOrEqual(HOUR);
          expect(v.eligible).toBe(v.score >= 30 && v.cooldownRemainingMs === 0);
        }
      }),
    );
  });

  it('opens the breaker on a failure burst, never with fewer than 5 failures in the window, at a rate below 0.2, or for longer than 30 min', () => {
    // Every sequence starts with a burst of 12 failures inside ~1 s, so it must open at least
    // once: the bounds below are checked on real opens, never vacuously.
    const burst = fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 12, maxLength: 12 }).map((gaps) => gaps.map((gap) => [true, gap] as const));
    const rest = fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 20_000 })), { maxLength: 500 });
    expect(() =>
      fc.assert(
        fc.property(burst, rest, (head, tail) => {
          const b = createHostBreaker();
          let now = 0;
          let opens = 0;
          for (const [failed, gapMs] of [...head, ...tail]) {
            now += gapMs;
            const before = b.view('h', now);
            for (const change of failed ? b.recordFailure('h', now) : b.recordSuccess('h', now)) {
              if (change.type !== 'open') continue;
              opens++;
              expect(before.windowFailures + 1).toBeGreaterThanOrEqual(5);
              expect(change.durationMs).toBeGreaterThanOrEqual(60_000);
              expect(change.durationMs).toBeLessThanOrEqual(30 * 60_000);
              expect(change.failureRate).toBeGreaterThanOrEqual(0.2);
            }
          }
          expect(opens).toBeGreaterThanOrEqual(1);
        }),
      ),
    ).not.toThrow();
  });
});
