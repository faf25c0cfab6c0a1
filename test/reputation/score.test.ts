import { describe, expect, it } from 'vitest';
import { reputationConfigSchema } from '../../src/reputation/config.js';
import { bandRank, scoreBand, scoreImpact } from '../../src/reputation/score.js';
import { keyOf, tracker } from './helpers.js';

const successAt = (latencyMs: number) => ({ kind: 'success', latencyMs }) as const;

describe('latency multipliers by chain profile', () => {
  // [latencyMs, expected score change] at each boundary: ×2 up to fast, ×1 up to normal,
  // ×0.5 up to slow, ×0 beyond; beyond penalty also −1, beyond severe −3 instead.
  const cases = {
    solana: [
      [1, 2], [100, 2], [101, 1], [300, 1], [301, 0.5], [800, 0.5], [801, 0],
      [1_500, 0], [1_501, -1], [4_000, -1], [4_001, -3], [60_000, -3],
    ],
    evm: [
      [50, 2], [51, 1], [200, 1], [201, 0.5], [500, 0.5], [501, 0],
      [1_000, 0], [1_001, -1], [3_000, -1], [3_001, -3],
    ],
    generic: [
      [100, 2], [101, 1], [500, 1], [501, 0.5], [1_000, 0.5], [1_001, 0],
      [2_000, 0], [2_001, -1], [5_000, -1], [5_001, -3],
    ],
  } as const;

  for (const [profile, rows] of Object.entries(cases)) {
    it(`scores a ${profile} success by its latency`, () => {
      const config = reputationConfigSchema.parse({ latency: { profile } });
      for (const [latencyMs, delta] of rows) {
        expect([latencyMs, scoreImpact(successAt(latencyMs), config).delta]).toEqual([latencyMs, delta]);
      }
    });
  }

  it('moves a tracked score by the multiplied amount', () => {
    const t = tracker({ latency: { profile: 'solana' }, initialScore: 50 });
    const key = keyOf('https://a.example/');
    t.record(key, successAt(80), 0); // +2
    t.record(key, successAt(250), 0); // +1
    t.record(key, successAt(700), 0); // +0.5
    t.record(key, successAt(4_500), 0); // +0 −3
    expect(t.view(key, 0).score).toBe(50.5);
  });

  it('accepts custom thresholds and multipliers', () => {
    const config = reputationConfigSchema.parse({
      latency: {
        profile: { fastMs: 10, normalMs: 20, slowMs: 30, penaltyMs: 40, severeMs: 50 },
        multipliers: { fast: 3 },
      },
    });
    expect(scoreImpact(successAt(10), config).delta).toBe(3);
    expect(scoreImpact(successAt(45), config).delta).toBe(-1);
  });

  it('counts a success without a latency as ×1, and ignores latency on failures', () => {
    const config = reputationConfigSchema.parse({});
    expect(scoreImpact({ kind: 'success' }, config).delta).toBe(1);
    expect(scoreImpact({ kind: 'critical', latencyMs: 10 }, config).delta).toBe(-25);
    expect(scoreImpact({ kind: 'recovery', latencyMs: 10 }, config).delta).toBe(5);
    expect(scoreImpact({ kind: 'none' }, config).delta).toBe(0);
  });
});

describe('score model', () => {
  it('uses the PATH defaults', () => {
    const c = reputationConfigSchema.parse({});
    expect(c.initialScore).toBe(80);
    expect(c.eligibleScore).toBe(30);
    expect(c.impacts).toEqual({
      success: 1, recovery: 5, slow: -1, verySlow: -3, minor: -3, major: -10, critical: -25, fatal: -50,
    });
    expect(c.granularity).toBe('per-url');
    expect(c.strikes).toEqual({ threshold: 5, decayPerPositive: 3, baseCooldownMs: 300_000, maxCooldownMs: 3_600_000 });
    expect(c.criticalRate).toMatchObject({ alpha: 0.05, threshold: 0.3, minObservations: 20 });
    expect(c.invalidRate).toMatchObject({ alpha: 0.001, threshold: 0.005, minObservations: 200 });
  });

  it('keeps the score within 0..100', () => {
    const t = tracker();
    const key = keyOf('https://a.example/');
    for (let i = 0; i < 100; i++) t.record(key, { kind: 'recovery' }, i);
    expect(t.view(key, 100).score).toBe(100);
    for (let i = 0; i < 5; i++) t.record(key, { kind: 'fatal', isHealthCheck: true }, 200);
    expect(t.view(key, 200).score).toBe(0);
  });

  it('ranks bands 0 (≥70), 1 (≥50), 2 (≥30), 3 below', () => {
    expect([100, 70, 69.5, 50, 49.5, 30, 29.5, 0].map((s) => bandRank(s))).toEqual([0, 0, 1, 1, 2, 2, 3, 3]);
    expect([70, 50, 30, 29].map((s) => scoreBand(s))).toEqual(['good', 'fair', 'poor', 'ineligible']);
  });

  it('rejects inconsistent settings with the field path', () => {
    const bad = reputationConfigSchema.safeParse({
      bands: { good: 40, fair: 60 },
      latency: { profile: { fastMs: 10, normalMs: 5, slowMs: 30, penaltyMs: 40, severeMs: 50 } },
    });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => i.path.join('.'))).toEqual(['bands.fair', 'latency.profile.normalMs']);
    expect(reputationConfigSchema.safeParse({ criticalRate: { alpha: 0 } }).success).toBe(false);
  });
});
