import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { operatorOf } from '../../src/concentration/operators.js';
import { createTierRotation, planTier, type TierPlan } from '../../src/concentration/tier-plan.js';
import { worstLag } from './lag.js';

/** Operator index taking each of `runs` admissions when every member admits. */
function admissions(plan: TierPlan, runs: number, start = 0): number[] {
  const rotation = createTierRotation(plan, start);
  const operators: number[] = [];
  for (let i = 0; i < runs; i++) {
    rotation.begin();
    const member = rotation.next();
    rotation.commit(member);
    operators.push(plan.memberOperators[member]!);
  }
  return operators;
}


const targetsOf = (plan: TierPlan) =>
  plan.operatorShares ?? plan.operators.map((_, o) => plan.memberOperators.filter((x) => x === o).length / plan.size);

describe('planTier', () => {
  it('holds a provider with two of three endpoints to 65% over 1 000 admissions, within one request throughout', () => {
    const urls = [
      'https://abc123key.mainnet.helius-rpc.com/?api-key=XYZ',
      'https://api.mainnet-beta.solana.com',
      'https://def456key.devnet.helius-rpc.com/?api-key=UVW',
    ];
    const plan = planTier({ tier: 0, memberOperators: urls.map((url) => operatorOf(url)), maxOperatorShare: 0.65 });
    expect(plan.reshape).toEqual({
      tier: 0,
      maxOperatorShare: 0.65,
      feasible: true,
      operators: [
        { operator: 'helius-rpc.com', members: 2, naturalShare: 2 / 3, cappedShare: 0.65 },
        { operator: 'solana.com', members: 1, naturalShare: 1 / 3, cappedShare: expect.closeTo(0.35, 12) },
      ],
    });
    for (const start of [0, 1, 2, 7]) {
      const operators = admissions(plan, 1000, start);
      const helius = operators.filter((o) => o === 0).length;
      expect(helius).toBe(650);
      expect(worstLag(operators, [0.65, 0.35])).toBeLessThan(1);
    }
  });

  it('keeps every operator within one request of its planned share on both paths', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 8 }),
        fc.constantFrom(0, 0.2, 0.34, 0.5, 0.65, 0.9, 1),
        fc.integer({ min: 1, max: 1500 }),
        fc.nat(100),
        (counts, cap, runs, start) => {
          // Config order groups each operator's endpoints together, the worst case for plain rotation.
          const names = counts.flatMap((count, o) => new Array<string>(count).fill(`op${o}.example`));
          const plan = planTier({ tier: 1, memberOperators: names, maxOperatorShare: cap });
          expect(worstLag(admissions(plan, runs, start), targetsOf(plan))).toBeLessThan(1 + 1e-9);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('takes the fast path, with operators interleaved, when no operator exceeds the cap', () => {
    const plan = planTier({ tier: 0, memberOperators: ['a.com', 'a.com', 'b.com', 'b.com', 'c.com', 'd.com'], maxOperatorShare: 0.65 });
    expect(plan.reshape).toBeNull();
    expect(plan.operatorShares).toBeNull();
    expect(plan.operators).toEqual(['a.com', 'b.com', 'c.com', 'd.com']);
    expect([...plan.sequence].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    // Two a.com endpoints are never offered back to back.
    const rotation = createTierRotation(plan, 0);
    const firstWalk = rotation.order().map((member) => plan.memberOperators[member]);
    expect(firstWalk[0] === 0 && firstWalk[1] === 0).toBe(false);
  });

  it('lets the random start choose which member serves first on the fast path', () => {
    const plan = planTier({ tier: 0, memberOperators: ['a.com', 'a.com', 'b.com'], maxOperatorShare: 0 });
    const firstMember = (start: number) => createTierRotation(plan, start).order()[0];
    expect(new Set([0, 1, 2, 3].map(firstMember))).toEqual(new Set([0, 1]));
    const singletons = planTier({ tier: 0, memberOperators: ['a.com', 'b.com', 'c.com'], maxOperatorShare: 0 });
    expect([0, 1, 2].map((start) => createTierRotation(singletons, start).order()[0])).toEqual([0, 1, 2]);
  });

  it('takes the fast path when the cap is disabled or there is a single operator', () => {
    expect(planTier({ tier: 0, memberOperators: ['a.com', 'a.com', 'b.com'], maxOperatorShare: 0 }).reshape).toBeNull();
    expect(planTier({ tier: 0, memberOperators: ['a.com', 'a.com', 'b.com'], maxOperatorShare: 1 }).reshape).toBeNull();
    expect(planTier({ tier: 0, memberOperators: ['a.com', 'a.com'], maxOperatorShare: 0.5 }).reshape).toBeNull();
    expect(planTier({ tier: 0, memberOperators: [], maxOperatorShare: 0.5 }).size).toBe(0);
  });

  it('weights operators uniformly and says the cap is infeasible when it cannot be met', () => {
    const plan = planTier({ tier: 2, memberOperators: ['a.com', 'a.com', 'a.com', 'b.com'], maxOperatorShare: 0.4 });
    expect(plan.reshape?.feasible).toBe(false);
    expect(plan.operatorShares).toEqual([0.5, 0.5]);
    expect(admissions(plan, 100).filter((o) => o === 0).length).toBe(50);
  });

  it('reports an infeasible cap even when plain rotation already gives the uniform split', () => {
    const plan = planTier({ tier: 0, memberOperators: ['a.com', 'b.com'], maxOperatorShare: 0.5 });
    expect(plan.reshape?.feasible).toBe(false);
    expect(plan.reshape?.operators.map((o) => o.cappedShare)).toEqual([0.5, 0.5]);
    expect(plan.operatorShares).toBeNull();
  });

  it('describes the reshaping with operator names and numbers only, never a URL or key', () => {
    const urls = ['https://KEY111111.helius-rpc.com/v1/PATHKEY?api-key=QKEY', 'https://KEY222222.helius-rpc.com', 'http://127.0.0.1:8899'];
    const plan = planTier({ tier: 0, memberOperators: urls.map((url) => operatorOf(url)), maxOperatorShare: 0.6 });
    const text = JSON.stringify(plan);
    for (const secret of ['://', 'KEY111111', 'KEY222222', 'PATHKEY', 'QKEY', '8899']) expect(text).not.toContain(secret);
  });
});
