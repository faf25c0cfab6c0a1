import { createRotation, type TierRotation } from './rotation.js';
import { isCapFeasible, needsReshaping, SHARE_EPSILON, waterFill } from './water-fill.js';
import { createWeightedRotation } from './weighted-rotation.js';

/**
 * Per-tier decision of the operator cap, computed when a tier's membership changes (never
 * per request): whether the rotation must be reshaped, with which weights, and what to say
 * in the `reshape` event.
 */

/** One operator's line in a {@link ReshapeDescription}. */
export interface OperatorShare {
  /** Operator name (see `operatorOf`): never a URL. */
  readonly operator: string;
  /** Number of the tier's members run by this operator. */
  readonly members: number;
  /** Share plain rotation would give it: `members / N`. */
  readonly naturalShare: number;
  /** Share the reshaped rotation gives it. */
  readonly cappedShare: number;
}

/** Payload for the pool's `reshape` event. Holds operator names and numbers only. */
export interface ReshapeDescription {
  readonly tier: number;
  /** The configured cap. */
  readonly maxOperatorShare: number;
  /**
   * `false` when the cap cannot be met (`cap · operators ≤ 1`): operators are then weighted
   * uniformly and `cappedShare` is above the cap.
   */
  readonly feasible: boolean;
  /** Every operator of the tier, in order of first appearance among the members. */
  readonly operators: readonly OperatorShare[];
}

/** Options for {@link planTier}. */
export interface PlanTierOptions {
  /** Tier number, copied into the description. */
  readonly tier: number;
  /** Operator name of each member of the tier, by member index. */
  readonly memberOperators: readonly string[];
  /** `concentration.maxOperatorShare`; ≤ 0 or ≥ 1 disables the cap. */
  readonly maxOperatorShare: number;
}

/** Result of {@link planTier}. */
export interface TierPlan {
  readonly tier: number;
  /** Number of members. */
  readonly size: number;
  /** Distinct operator names, in order of first appearance. */
  readonly operators: readonly string[];
  /** Index into `operators` of each member. */
  readonly memberOperators: readonly number[];
  /**
   * Target share per operator when the rotation must be weighted; `null` when plain
   * rotation over `sequence` already gives every operator its target (the fast path).
   */
  readonly operatorShares: readonly number[] | null;
  /**
   * Member order for plain rotation: operators interleaved so that every operator's share
   * over any run of admissions is within one request of `members / N`, instead of a
   * provider's endpoints sitting next to each other in config order.
   */
  readonly sequence: readonly number[];
  /**
   * What to publish as the `reshape` event, or `null` when the cap leaves this tier alone.
   * Non-null with `operatorShares === null` happens when an infeasible cap meets operators of
   * equal size: the uniform weighting is what plain rotation does anyway, but the user should
   * still learn that the cap cannot be honoured.
   */
  readonly reshape: ReshapeDescription | null;
}

/**
 * Decides how the cap shapes one tier: fast path when
 * {@link needsReshaping} says so, otherwise `waterFill` over the operators' member counts.
 */
export function planTier(options: PlanTierOptions): TierPlan {
  const { tier, maxOperatorShare } = options;
  const operators: string[] = [];
  const indexOf = new Map<string, number>();
  const memberOperators = options.memberOperators.map((name) => {
    let index = indexOf.get(name);
    if (index === undefined) {
      index = operators.length;
      indexOf.set(name, index);
      operators.push(name);
    }
    return index;
  });
  const size = memberOperators.length;
  const counts = new Array<number>(operators.length).fill(0);
  for (const operator of memberOperators) counts[operator] = (counts[operator] ?? 0) + 1;
  const naturalShares = counts.map((count) => count / size);
  const sequence = interleave(memberOperators, counts);

  if (!needsReshaping(counts, maxOperatorShare)) {
    return { tier, size, operators, memberOperators, operatorShares: null, sequence, reshape: null };
  }
  const cappedShares = waterFill(counts, maxOperatorShare);
  const reshape: ReshapeDescription = {
    tier,
    maxOperatorShare,
    feasible: isCapFeasible(maxOperatorShare, operators.length),
    operators: operators.map((operator, o) => ({
      operator,
      members: counts[o] ?? 0,
      naturalShare: naturalShares[o] ?? 0,
      cappedShare: cappedShares[o] ?? 0,
    })),
  };
  const unchanged = cappedShares.every((capped, o) => Math.abs(capped - (naturalShares[o] ?? 0)) <= SHARE_EPSILON);
  return { tier, size, operators, memberOperators, operatorShares: unchanged ? null : cappedShares, sequence, reshape };
}

/**
 * The rotation a plan calls for: weighted (`createWeightedRotation`) when it has
 * `operatorShares`, plain round-robin over `plan.sequence` otherwise. Member indices are the
 * plan's.
 *
 * `start` is the pool's random rotation start (an integer). It picks which member of each
 * operator serves first, and where the cycle begins only when that cannot disturb the
 * operators' shares (one operator, or one member per operator): beginning mid-way through an
 * interleaved cycle could put an operator up to two requests off its share.
 */
export function createTierRotation(plan: TierPlan, start = 0): TierRotation {
  if (plan.operatorShares !== null) {
    return createWeightedRotation({
      memberOperators: plan.memberOperators,
      operatorShares: plan.operatorShares,
      start,
    });
  }
  const operatorCount = plan.operators.length;
  if (operatorCount <= 1 || operatorCount === plan.size) return createRotation(plan.size, start, plan.sequence);
  return createRotation(plan.size, 0, rotateWithinOperators(plan, Math.trunc(start)));
}

/** `plan.sequence` with each operator's members rotated by `start` within its own slots. */
function rotateWithinOperators(plan: TierPlan, start: number): number[] {
  const groups = plan.operators.map((): number[] => []);
  for (const member of plan.sequence) groups[plan.memberOperators[member] ?? 0]?.push(member);
  const seen = plan.operators.map(() => 0);
  return plan.sequence.map((member) => {
    const operator = plan.memberOperators[member] ?? 0;
    const group = groups[operator] ?? [];
    const k = seen[operator] ?? 0;
    seen[operator] = k + 1;
    return group[(((k + start) % group.length) + group.length) % group.length] ?? member;
  });
}

/**
 * One cycle of the Pfair schedule at the natural shares `k_o / N` (the rule of
 * `createWeightedRotation`, in exact integer arithmetic because these shares are ratios of
 * small integers): over `N` admissions each operator gets exactly its `k_o` members, so the
 * result is a permutation of the members, and every prefix — of this cycle and of its
 * repetitions — keeps each operator within one request of `k_o / N`.
 */
function interleave(memberOperators: readonly number[], counts: readonly number[]): number[] {
  const size = memberOperators.length;
  // Single operator or all singletons: config order already is as even as it gets.
  if (counts.length <= 1 || counts.length === size) return memberOperators.map((_, m) => m);
  const groups = counts.map((): number[] => []);
  memberOperators.forEach((operator, member) => groups[operator]?.push(member));
  const taken = counts.map(() => 0);
  const sequence: number[] = [];
  for (let slot = 0; slot < size; slot++) {
    let best = -1;
    for (let o = 0; o < counts.length; o++) {
      const k = counts[o] ?? 0;
      const n = taken[o] ?? 0;
      // Released: giving it this slot cannot put it a whole request ahead of k/N.
      if ((slot + 1) * k <= n * size) continue;
      // Earliest due slot (n + 1)·N / k, compared by cross-multiplying.
      if (best === -1 || (n + 1) * (counts[best] ?? 0) < ((taken[best] ?? 0) + 1) * k) best = o;
    }
    const n = taken[best] ?? 0;
    taken[best] = n + 1;
    sequence.push(groups[best]?.[n] ?? -1);
  }
  return sequence;
}
