import { describe, expect, test } from 'vitest';
import { afterDemandWindow, afterRateLimit, DEFAULT_LEARNED_RATE, initialLearnedRate } from '../../src/admission/learned-rate.js';
import { createSimulation, type SimSecond } from './learned-rate-sim.js';

const HIDDEN_LIMIT = 37;
/** Demand well above every limit in these tests: the client always has calls waiting. */
const HIGH_DEMAND = 200;

function rateLimitedShare(rows: readonly SimSecond[]): number {
  const sent = rows.reduce((sum, row) => sum + row.sent, 0);
  return rows.reduce((sum, row) => sum + row.rateLimited, 0) / sent;
}

describe('learned rate against a provider with a hidden limit (no Retry-After)', () => {
  test('reaches 85 % of a hidden 37 req/s within 10 s and stays there with at most 3 % of requests rate-limited', () => {
    const sim = createSimulation();
    const warmUp = sim.run(10, HIGH_DEMAND, HIDDEN_LIMIT);
    expect(warmUp.at(-1)!.rateRps).toBeGreaterThanOrEqual(0.85 * HIDDEN_LIMIT);
    const after = sim.run(60, HIGH_DEMAND, HIDDEN_LIMIT);
    for (const row of after) expect(row.rateRps).toBeGreaterThanOrEqual(0.85 * HIDDEN_LIMIT);
    // What the provider saw: successful requests per second close to its limit, few refused.
    const accepted = after.reduce((sum, row) => sum + row.sent - row.rateLimited, 0) / after.length;
    expect(accepted).toBeGreaterThanOrEqual(0.85 * HIDDEN_LIMIT);
    expect(rateLimitedShare(after)).toBeLessThanOrEqual(0.03);
  });

  test('demand below half the limit for a minute does not raise the learned rate', () => {
    const sim = createSimulation();
    const rows = sim.run(60, 0.45 * HIDDEN_LIMIT, HIDDEN_LIMIT);
    expect(rows.every((row) => row.rateRps === DEFAULT_LEARNED_RATE.startRps)).toBe(true);
    expect(rows.reduce((sum, row) => sum + row.rateLimited, 0)).toBe(0);
  });

  test('a limit raised from 37 to 80 under demand is followed within 30 s', () => {
    const sim = createSimulation();
    sim.run(30, HIGH_DEMAND, HIDDEN_LIMIT);
    const rows = sim.run(30, HIGH_DEMAND, 80);
    expect(rows.at(-1)!.rateRps).toBeGreaterThanOrEqual(0.85 * 80);
    expect(rows.at(-1)!.sent - rows.at(-1)!.rateLimited).toBeGreaterThanOrEqual(0.85 * 80);
  });

  test('a limit lowered from 80 to 20 is followed within 5 s', () => {
    const sim = createSimulation();
    sim.run(30, HIGH_DEMAND, 80);
    const rows = sim.run(5, HIGH_DEMAND, 20);
    expect(rows.at(-1)!.rateRps).toBeLessThanOrEqual(20 * 1.1);
    expect(rows.at(-1)!.rateLimited).toBeLessThanOrEqual(1);
  });

  test('stays within its floor and ceiling', () => {
    const settings = { minRps: 5, maxRps: 30, startRps: 10 };
    const high = createSimulation(settings);
    expect(Math.max(...high.run(30, HIGH_DEMAND, 1_000).map((row) => row.rateRps))).toBe(30);
    const low = createSimulation(settings);
    expect(Math.min(...low.run(10, HIGH_DEMAND, 1).map((row) => row.rateRps))).toBe(5);
  });
});

describe('learned rate decisions', () => {
  const settings = DEFAULT_LEARNED_RATE;
  const pressing = { windowMs: 1_000, admitted: 20, refused: 3, rateLimited: 0 };

  test('the step grows while the direction holds and shrinks on a reversal', () => {
    let state = initialLearnedRate(settings);
    state = afterDemandWindow(state, pressing, settings);
    expect(state.rateRps).toBeCloseTo(22);
    state = afterDemandWindow(state, { ...pressing, admitted: 22 }, settings);
    expect(state.rateRps).toBeCloseTo(22 * 1.2);
    const before = state.rateRps;
    state = afterRateLimit(state, 10_000, {}, undefined, settings);
    expect(state.rateRps).toBeCloseTo(before * 0.9);
  });

  test('a window with a rate limit, or without calls waiting, never raises the rate', () => {
    const state = initialLearnedRate(settings);
    expect(afterDemandWindow(state, { ...pressing, rateLimited: 1 }, settings)).toBe(state);
    expect(afterDemandWindow(state, { ...pressing, refused: 0 }, settings)).toBe(state);
    expect(afterDemandWindow(state, { ...pressing, admitted: 17 }, settings)).toBe(state);
  });

  test("the provider's hints win: an allowed rate is taken as it is, a delayed rate limit leaves the rate alone", () => {
    const state = initialLearnedRate(settings);
    expect(afterRateLimit(state, 0, { allowedRps: 7 }, undefined, settings).rateRps).toBe(7);
    expect(afterRateLimit(state, 0, { delayMs: 2_000 }, undefined, settings)).toBe(state);
  });

  test('rate limits answering requests sent before a decrease do not lower the rate again', () => {
    const once = afterRateLimit(initialLearnedRate(settings), 1_000, {}, undefined, settings);
    expect(afterRateLimit(once, 1_200, {}, undefined, settings)).toBe(once);
    expect(afterRateLimit(once, 1_600, {}, undefined, settings).rateRps).toBeLessThan(once.rateRps);
  });
});
