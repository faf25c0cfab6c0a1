import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TierRotation } from '../../src/concentration/rotation.js';
import { waterFill } from '../../src/concentration/water-fill.js';
import { createWeightedRotation } from '../../src/concentration/weighted-rotation.js';
import { worstLag } from './lag.js';

interface Pool {
  memberOperators: number[];
  shares: number[];
}

/** Random tiers: 1–10 operators with 1–5 members each, targets either arbitrary or water-filled. */
const poolArb: fc.Arbitrary<Pool> = fc
  .tuple(
    fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 10 }),
    fc.array(fc.double({ min: 0.01, max: 100, noNaN: true }), { minLength: 10, maxLength: 10 }),
    fc.option(fc.double({ min: 0.05, max: 0.95, noNaN: true })),
  )
  .map(([counts, weights, cap]) => ({
    memberOperators: counts.flatMap((count, operator) => new Array<number>(count).fill(operator)),
    shares: cap === null ? weights.slice(0, counts.length) : waterFill(counts, cap),
  }));

const normalise = (shares: readonly number[]) => {
  const total = shares.reduce((a, b) => a + b, 0);
  return shares.map((share) => share / total);
};

/**
 * Runs `runs` admissions; `admits(member, admission)` says whether a member can take the call.
 * Returns the member that took each admission.
 */
function run(rotation: TierRotation, runs: number, admits: (member: number, admission: number) => boolean = () => true): number[] {
  const taken: number[] = [];
  for (let admission = 0; admission < runs; admission++) {
    rotation.begin();
    let member = rotation.next();
    while (member !== -1 && !admits(member, admission)) member = rotation.next();
    if (member === -1) throw new Error('no member admitted');
    rotation.commit(member);
    taken.push(member);
  }
  return taken;
}


describe('createWeightedRotation', () => {
  it('keeps every operator within one request of its target after every admission', () => {
    fc.assert(
      fc.property(poolArb, fc.integer({ min: 1, max: 2000 }), fc.nat(1000), (pool, runs, start) => {
        const rotation = createWeightedRotation({ memberOperators: pool.memberOperators, operatorShares: pool.shares, start });
        const operators = run(rotation, runs).map((member) => pool.memberOperators[member]!);
        expect(worstLag(operators, normalise(pool.shares))).toBeLessThan(1 + 1e-9);
      }),
      { numRuns: 200 },
    );
  });

  it('lets the members of one operator take turns, never more than one call apart', () => {
    fc.assert(
      fc.property(poolArb, fc.integer({ min: 1, max: 1000 }), fc.nat(1000), (pool, runs, start) => {
        const rotation = createWeightedRotation({ memberOperators: pool.memberOperators, operatorShares: pool.shares, start });
        const perMember = pool.memberOperators.map(() => 0);
        for (const member of run(rotation, runs)) perMember[member]!++;
        const byOperator = new Map<number, number[]>();
        pool.memberOperators.forEach((operator, member) => byOperator.set(operator, [...(byOperator.get(operator) ?? []), perMember[member]!]));
        for (const counts of byOperator.values()) expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
      }),
      { numRuns: 100 },
    );
  });

  it('offers every member exactly once per walk', () => {
    fc.assert(
      fc.property(poolArb, fc.integer({ min: 0, max: 50 }), (pool, runs) => {
        const rotation = createWeightedRotation({ memberOperators: pool.memberOperators, operatorShares: pool.shares });
        run(rotation, runs);
        expect([...rotation.order()].sort((a, b) => a - b)).toEqual(pool.memberOperators.map((_, m) => m));
      }),
      { numRuns: 100 },
    );
  });

  it('still meets every operator target when a member cannot admit but a sibling of the same operator can', () => {
    fc.assert(
      fc.property(poolArb, fc.integer({ min: 1, max: 1500 }), fc.nat(), (pool, runs, pick) => {
        // Block one member of an operator that has at least two.
        const shared = pool.memberOperators.filter((o) => pool.memberOperators.filter((x) => x === o).length >= 2);
        fc.pre(shared.length > 0);
        const operator = shared[pick % shared.length]!;
        const blocked = pool.memberOperators.indexOf(operator);
        const rotation = createWeightedRotation({ memberOperators: pool.memberOperators, operatorShares: pool.shares });
        const taken = run(rotation, runs, (member) => member !== blocked);
        expect(taken).not.toContain(blocked);
        expect(worstLag(taken.map((m) => pool.memberOperators[m]!), normalise(pool.shares))).toBeLessThan(1 + 1e-9);
      }),
      { numRuns: 100 },
    );
  });

  it('shares the calls among the operators that admit by their targets while others cannot, and recovers after', () => {
    // Each operator that cannot admit may have been credited (< 2 requests) before it reached
    // the front of the order and was found refusing; that credit is carried by the others, so
    // the bound is 1 + 2 per absent operator.
    fc.assert(
      fc.property(
        poolArb,
        fc.nat(300),
        fc.integer({ min: 1, max: 600 }),
        fc.integer({ min: 1, max: 600 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 9 }),
        (pool, before, during, after, picks) => {
          const operatorCount = pool.shares.length;
          fc.pre(operatorCount >= 2);
          const absent = new Set(picks.map((p) => p % operatorCount));
          fc.pre(absent.size < operatorCount);
          const targets = normalise(pool.shares);
          const rotation = createWeightedRotation({ memberOperators: pool.memberOperators, operatorShares: pool.shares });
          const operatorOf = (m: number) => pool.memberOperators[m]!;
          run(rotation, before);
          const blockedRun = run(rotation, during, (m) => !absent.has(operatorOf(m))).map(operatorOf);
          const recoveredRun = run(rotation, after).map(operatorOf);

          const present = targets.reduce((sum, t, o) => (absent.has(o) ? sum : sum + t), 0);
          const renormalised = targets.map((t, o) => (absent.has(o) ? 0 : t / present));
          const bound = 1 + 2 * absent.size;
          expect(worstLag(blockedRun, renormalised)).toBeLessThan(bound);
          expect(worstLag(recoveredRun, targets)).toBeLessThan(bound);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keeps the place of an operator that was due but could not admit, without a burst after', () => {
    const shares = [0.5, 0.3, 0.2];
    const rotation = createWeightedRotation({ memberOperators: [0, 1, 2], operatorShares: shares });
    // Find an admission where operator 0 is first in line, then make it refuse for 100 calls.
    run(rotation, 7);
    while (rotation.order()[0] !== 0) run(rotation, 1);
    const during = run(rotation, 100, (member) => member !== 0);
    // 0.3 : 0.2 of 100, give or take the one request each could be off when it started.
    expect(Math.abs(during.filter((m) => m === 1).length - 60)).toBeLessThanOrEqual(1);
    expect(during).not.toContain(0);
    // Recovered: it takes the very next call, and then no more than its share plus the one owed.
    const after = run(rotation, 20);
    expect(after[0]).toBe(0);
    expect(after.filter((m) => m === 0).length).toBeLessThanOrEqual(0.5 * 20 + 1);
    expect(after.filter((m) => m === 0).length).toBeGreaterThanOrEqual(0.5 * 20 - 1);
  });

  it('stays within one request at exact rational ties and across the periodic clock rebase', () => {
    // 1/3 is due exactly at slot 3, where a rounding error would release it a slot early;
    // the second set goes past the rebase after 2^20 admissions.
    for (const [shares, runs] of [
      [[1 / 3, 1 / 3, 1 / 6, 1 / 6], 10_000],
      [[0.013, 0.287, 0.7], 2 ** 20 + 5_000],
    ] as const) {
      const rotation = createWeightedRotation({ memberOperators: shares.map((_, o) => o), operatorShares: shares });
      const counts = shares.map(() => 0);
      let worst = 0;
      for (let t = 1; t <= runs; t++) {
        rotation.begin();
        const member = rotation.next();
        rotation.commit(member);
        counts[member]!++;
        for (let o = 0; o < shares.length; o++) worst = Math.max(worst, Math.abs(counts[o]! - t * shares[o]!));
      }
      expect(worst).toBeLessThan(1);
    }
  });

  it('offers a zero-share operator only after every other operator refused', () => {
    const rotation = createWeightedRotation({ memberOperators: [0, 1, 2], operatorShares: [0.5, 0.5, 0] });
    expect(run(rotation, 50)).not.toContain(2);
    expect(rotation.order()[2]).toBe(2);
    expect(run(rotation, 5, (member) => member === 2)).toEqual([2, 2, 2, 2, 2]);
  });

  it('starts each operator round-robin at the start offset and is otherwise deterministic', () => {
    const make = (start: number) => createWeightedRotation({ memberOperators: [0, 0, 0, 1], operatorShares: [0.6, 0.4], start });
    expect(run(make(5), 12)).toEqual(run(make(5), 12));
    expect(run(make(0), 1)).toEqual([0]);
    expect(run(make(1), 1)).toEqual([1]);
    expect(run(make(2), 1)).toEqual([2]);
  });

  it('rejects inconsistent input', () => {
    expect(() => createWeightedRotation({ memberOperators: [0, 2], operatorShares: [0.5, 0.5] })).toThrow(RangeError);
    expect(() => createWeightedRotation({ memberOperators: [0, 0], operatorShares: [0.5, 0.5] })).toThrow(RangeError);
    expect(() => createWeightedRotation({ memberOperators: [0, 1], operatorShares: [0, 0] })).toThrow(RangeError);
    expect(() => createWeightedRotation({ memberOperators: [0, 1], operatorShares: [1, -1] })).toThrow(RangeError);
    const rotation = createWeightedRotation({ memberOperators: [0, 1], operatorShares: [1, 1] });
    expect(rotation.next()).toBe(-1);
    expect(() => rotation.commit(2)).toThrow(RangeError);
  });
});
