/**
 * Cost of choosing a member inside one tier (rotation + operator cap), per admission.
 * Run: `npx tsx bench/selection.bench.ts`. Numbers are ns per admission on this machine;
 * compare paths with each other, not with other machines.
 *
 * - walk: `begin()` + first `next()` + `commit()` — what the pool does when the first member
 *   offered admits (the common case).
 * - order: `order()` (whole trial order materialised) + `commit()` of its first member.
 */
import { createTierRotation, planTier, type TierPlan } from '../src/concentration/tier-plan.js';

const OPERATORS = 50;

function tier(members: number, reshape: boolean): TierPlan {
  const operators = Math.min(OPERATORS, members);
  // Reshaping path: operator 0 runs half the tier and the cap is 0.3, so water-filling
  // clamps it. Fast path: members spread round-robin over the operators, cap disabled.
  const names = Array.from({ length: members }, (_, m) =>
    reshape && m < members / 2 ? 'op0.example' : `op${m % operators}.example`,
  );
  const plan = planTier({ tier: 0, memberOperators: names, maxOperatorShare: reshape ? 0.3 : 0 });
  if ((plan.operatorShares !== null) !== reshape) throw new Error('bench tier is not on the intended path');
  return plan;
}

function measure(label: string, iterations: number, body: () => void): void {
  for (let i = 0; i < iterations / 10; i++) body(); // warm-up
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 5; round++) {
    const started = performance.now();
    for (let i = 0; i < iterations; i++) body();
    best = Math.min(best, ((performance.now() - started) * 1e6) / iterations);
  }
  console.log(`${label.padEnd(44)} ${best.toFixed(0).padStart(7)} ns/op`);
}

let sink = 0;
for (const reshape of [false, true]) {
  for (const members of [10, 100, 1000]) {
    const plan = tier(members, reshape);
    const path = reshape ? 'reshaped' : 'fast';
    const name = `${path} ${members} members / ${plan.operators.length} operators`;
    const walk = createTierRotation(plan, 3);
    measure(`walk  ${name}`, 200_000, () => {
      walk.begin();
      const member = walk.next();
      walk.commit(member);
      sink += member;
    });
    const ordered = createTierRotation(plan, 3);
    measure(`order ${name}`, members >= 1000 ? 20_000 : 200_000, () => {
      const member = ordered.order()[0] ?? 0;
      ordered.commit(member);
      sink += member;
    });
  }
}
for (const members of [100, 1000]) {
  const names = Array.from({ length: members }, (_, m) => (m < members / 2 ? 'op0.example' : `op${m % OPERATORS}.example`));
  measure(`planTier ${members} members (on membership change)`, 2_000, () => {
    sink += planTier({ tier: 0, memberOperators: names, maxOperatorShare: 0.3 }).size;
  });
}
if (sink === -1) console.log(sink);
