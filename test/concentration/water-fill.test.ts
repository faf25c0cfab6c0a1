import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { needsReshaping, waterFill } from '../../src/concentration/water-fill.js';

const weightsArb = fc.array(fc.double({ min: 0.001, max: 1000, noNaN: true }), { minLength: 1, maxLength: 40 });
const capArb = fc.double({ min: 0.01, max: 0.99, noNaN: true });
const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

describe('waterFill', () => {
  it('returns weights that sum to 1', () => {
    fc.assert(
      fc.property(weightsArb, capArb, (weights, cap) => {
        expect(Math.abs(sum(waterFill(weights, cap)) - 1)).toBeLessThanOrEqual(1e-9);
      }),
    );
  });

  it('keeps every operator at or under a feasible cap', () => {
    fc.assert(
      fc.property(weightsArb, capArb, (weights, cap) => {
        fc.pre(cap * weights.length > 1);
        expect(Math.max(...waterFill(weights, cap))).toBeLessThanOrEqual(cap + 1e-9);
      }),
    );
  });

  it('preserves order: a heavier operator never ends up with less', () => {
    fc.assert(
      fc.property(weightsArb, capArb, (weights, cap) => {
        const out = waterFill(weights, cap);
        // Sorted by input weight, the output must not decrease (up to float noise).
        const byWeight = weights.map((w, i) => [w, out[i]!] as const).sort((a, b) => a[0] - b[0]);
        const inversions = byWeight.filter((pair, k) => k > 0 && pair[0] > byWeight[k - 1]![0] && pair[1] < byWeight[k - 1]![1] - 1e-12);
        expect(inversions).toEqual([]);
      }),
    );
  });

  it('is the normalised input when no operator exceeds the cap', () => {
    fc.assert(
      fc.property(weightsArb, capArb, (weights, cap) => {
        const total = sum(weights);
        fc.pre(cap * weights.length > 1 && weights.every((w) => w / total <= cap));
        const drift = waterFill(weights, cap).map((share, i) => Math.abs(share - weights[i]! / total));
        expect(Math.max(...drift)).toBeLessThan(1e-12);
      }),
    );
  });

  it('is uniform when the cap is infeasible', () => {
    fc.assert(
      fc.property(weightsArb, capArb, (weights, cap) => {
        fc.pre(cap * weights.length <= 1);
        expect(new Set(waterFill(weights, cap))).toEqual(new Set([1 / weights.length]));
      }),
    );
  });

  it('hands the excess to the others in proportion to their weight', () => {
    // 0.8 → 0.5; the 0.3 excess goes 2:1 to the others: 0.15 + 0.2, 0.05 + 0.1.
    const out = waterFill([0.8, 0.15, 0.05], 0.5);
    expect(out[0]).toBeCloseTo(0.5, 12);
    expect(out[1]).toBeCloseTo(0.375, 12);
    expect(out[2]).toBeCloseTo(0.125, 12);
    // A second round: handing excess to B pushes B over the cap too.
    const twice = waterFill([0.6, 0.3, 0.05, 0.05], 0.35);
    expect(twice).toEqual([0.35, 0.35, expect.closeTo(0.15, 12), expect.closeTo(0.15, 12)]);
  });

  it('treats a disabled cap as no cap and rejects non-positive weights', () => {
    expect(waterFill([2, 1, 1], 0)).toEqual([0.5, 0.25, 0.25]);
    expect(waterFill([2, 1, 1], 1)).toEqual([0.5, 0.25, 0.25]);
    expect(waterFill([], 0.5)).toEqual([]);
    expect(() => waterFill([1, 0], 0.6)).toThrow(RangeError);
    expect(() => waterFill([1, Number.NaN], 0.6)).toThrow(RangeError);
  });
});

describe('needsReshaping', () => {
  it('takes the fast path when the cap is disabled or there is one operator', () => {
    expect(needsReshaping([3, 1], 0)).toBe(false);
    expect(needsReshaping([3, 1], 1)).toBe(false);
    expect(needsReshaping([3, 1], 1.5)).toBe(false);
    expect(needsReshaping([3, 1], -0.1)).toBe(false);
    expect(needsReshaping([5], 0.2)).toBe(false);
  });

  it('takes the fast path when a feasible cap is already respected, at the cap included', () => {
    expect(needsReshaping([1, 1, 1], 0.65)).toBe(false);
    expect(needsReshaping([13, 7], 0.65)).toBe(false); // 13/20 = 0.65 exactly
  });

  it('reshapes when an operator exceeds the cap or the cap is infeasible', () => {
    expect(needsReshaping([2, 1], 0.65)).toBe(true);
    expect(needsReshaping([14, 6], 0.65)).toBe(true);
    expect(needsReshaping([1, 1], 0.5)).toBe(true); // 0.5 · 2 = 1: infeasible
    expect(needsReshaping([1, 1, 1], 0.3)).toBe(true);
  });

  it('agrees with waterFill: no reshaping exactly when water-filling changes nothing', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 2, maxLength: 12 }), capArb, (counts, cap) => {
        fc.pre(cap * counts.length > 1);
        const total = sum(counts);
        const changed = waterFill(counts, cap).some((share, i) => Math.abs(share - counts[i]! / total) > 1e-12);
        expect(needsReshaping(counts, cap)).toBe(changed);
      }),
    );
  });
});
