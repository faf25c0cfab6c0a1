import type { TierRotation } from './rotation.js';

/** Below this, the operators present hold no share to hand out (only zero-share ones). */
const SHARE_FLOOR = 1e-12;

/**
 * Deterministic weighted rotation for a tier reshaped by the operator cap (DESIGN §4.5).
 *
 * Why not nginx's smooth weighted round-robin (pick the largest credit)? It only keeps an
 * operator within about one request of its target: with eight operators it drifts to 1.05
 * requests behind (found by brute force). The contract is "within one request over ANY run of
 * admissions", so operators are scheduled as a Pfair schedule (Baruah et al., 1996) built by
 * earliest-deadline-first:
 *
 * - After `t` admissions an operator with share `p` that took `n` of them has lag
 *   `s = t·p − n`. The next admission is slot `t`; its credit if not chosen is `c = s + p`.
 * - Its next request is *released* once `c > 0` (giving it earlier would put it a whole
 *   request ahead) and *due* by slot `t + (1 − c)/p` (later would leave it a whole request
 *   behind).
 * - Offer the call to released operators by earliest due slot, then to the rest.
 *
 * With shares summing to 1 on one "processor" (one admission at a time) a schedule meeting
 * every window exists, and EDF among released unit jobs is optimal, so `−1 < s < 1` after every
 * admission for every operator — as long as the first member offered admits. Inside an
 * operator its members (equal shares) rotate round-robin, so they differ by at most one.
 *
 * When members cannot admit (rate limit, permits, cooldown), the call goes on down the
 * order and only the operator that admitted is charged. The operators the walk passed over
 * (offered, every member refused) are treated as absent for that admission: they earn no
 * credit and lose none, so one that was due is still first in line when it recovers — but a
 * long outage does not pile up credit into a burst afterwards. The operators present share
 * that admission's credit in proportion to their targets (renormalised over those present),
 * so among the operators still admitting the schedule follows their relative targets.
 */

/** Options for {@link createWeightedRotation}. */
export interface WeightedRotationOptions {
  /** Operator index (into `operatorShares`) of each member; members are `0 … length − 1`. */
  readonly memberOperators: readonly number[];
  /**
   * Target traffic share of each operator (e.g. from `waterFill`), normalised here. Every
   * operator needs at least one member. An operator with share 0 is only offered calls when
   * every operator with a share has refused.
   */
  readonly operatorShares: readonly number[];
  /**
   * Randomises where each operator's member round-robin starts and breaks ties between
   * operators due at the same slot (integer; the pool draws it from its injected random).
   * @default 0
   */
  readonly start?: number;
}

/**
 * Creates the weighted rotation described in the module comment.
 *
 * Cost: `begin()` O(M) for M operators (credits change by a uniform shift between calls, so
 * the insertion sort that orders operators only moves the one that was charged), `next()`
 * O(1) amortised, `commit()` O(M). No allocation after construction.
 *
 * @throws RangeError when a member names an unknown operator, an operator has no member, or
 * the shares are not finite, non-negative and summing to more than 0.
 */
export function createWeightedRotation(options: WeightedRotationOptions): TierRotation {
  const { memberOperators, operatorShares } = options;
  const size = memberOperators.length;
  const operatorCount = operatorShares.length;
  const share = normaliseShares(operatorShares);

  // Members grouped by operator in one flat array (CSR layout): operator o owns
  // groupMembers[groupStart[o] … groupStart[o + 1] − 1], in member-index order.
  const groupStart = new Int32Array(operatorCount + 1);
  for (const operator of memberOperators) {
    if (!Number.isInteger(operator) || operator < 0 || operator >= operatorCount) {
      throw new RangeError(`createWeightedRotation: member names unknown operator ${operator}`);
    }
    groupStart[operator + 1]! += 1;
  }
  for (let o = 0; o < operatorCount; o++) {
    if (groupStart[o + 1] === 0) throw new RangeError(`createWeightedRotation: operator ${o} has no member`);
    groupStart[o + 1]! += groupStart[o]!;
  }
  const groupMembers = new Int32Array(size);
  const positionInGroup = new Int32Array(size);
  const filled = new Int32Array(operatorCount);
  memberOperators.forEach((operator, member) => {
    positionInGroup[member] = filled[operator]!;
    groupMembers[groupStart[operator]! + filled[operator]!++] = member;
  });

  const start = Math.trunc(options.start ?? 0);
  if (!Number.isFinite(start)) throw new RangeError('createWeightedRotation: start must be finite');
  const cursor = new Int32Array(operatorCount);
  const operatorOrder = new Int32Array(operatorCount);
  for (let o = 0; o < operatorCount; o++) {
    const groupSize = groupStart[o + 1]! - groupStart[o]!;
    cursor[o] = ((start % groupSize) + groupSize) % groupSize;
    // The sort below is stable, so this rotation of the initial order is the tie-break.
    operatorOrder[o] = (((o + start) % operatorCount) + operatorCount) % operatorCount;
  }

  const positionOf = new Int32Array(operatorCount);
  operatorOrder.forEach((o, position) => {
    positionOf[o] = position;
  });
  const lag = new Float64Array(operatorCount);
  // absentStamp[o] === stamp marks o absent for the admission being committed; stamping
  // instead of clearing a flag array keeps commit() at one pass.
  const absentStamp = new Uint32Array(operatorCount);
  let stamp = 0;
  // Offer order key: due slot for released operators; unreleased ones after every released
  // one (a released operator is due within 1/p slots, so 1/min(p) + 1 separates them).
  const rank = new Float64Array(operatorCount);
  let minShare = 1;
  for (const p of share) if (p > 0 && p < minShare) minShare = p;
  const unreleasedOffset = 1 / minShare + 1;
  const buffer = new Array<number>(size).fill(0);
  // Walk state: position in operatorOrder, and how many of that operator's members were offered.
  let walkOperator = 0;
  let walkMember = 0;
  // `next()` yields nothing before the first `begin()`, like the plain rotation.
  let walking = false;

  /** Recomputes the offer order; lags change only on commit, so this runs once per admission. */
  const reorder = (): void => {
    for (let o = 0; o < operatorCount; o++) {
      const p = share[o]!;
      const credit = lag[o]! + p;
      const due = p > 0 ? (1 - credit) / p : Number.POSITIVE_INFINITY;
      rank[o] = credit > 0 ? due : unreleasedOffset + due;
    }
    // Insertion sort of the previous order: between two admissions every released due slot
    // moves by the same amount, so only the charged operator and the few whose release
    // status flipped move. Stable, so earlier ties keep their order.
    for (let i = 1; i < operatorCount; i++) {
      const o = operatorOrder[i]!;
      const key = rank[o]!;
      let j = i - 1;
      while (j >= 0 && key < rank[operatorOrder[j]!]!) {
        const moved = operatorOrder[j]!;
        operatorOrder[j + 1] = moved;
        positionOf[moved] = j + 1;
        j--;
      }
      operatorOrder[j + 1] = o;
      positionOf[o] = j + 1;
    }
  };
  reorder();

  const rotation: TierRotation = {
    size,
    begin() {
      walkOperator = 0;
      walkMember = 0;
      walking = true;
    },
    next() {
      if (!walking) return -1;
      while (walkOperator < operatorCount) {
        const o = operatorOrder[walkOperator]!;
        const first = groupStart[o]!;
        const groupSize = groupStart[o + 1]! - first;
        if (walkMember < groupSize) {
          let position = cursor[o]! + walkMember++;
          if (position >= groupSize) position -= groupSize;
          return groupMembers[first + position]!;
        }
        walkOperator++;
        walkMember = 0;
      }
      return -1;
    },
    commit(member) {
      if (!(member >= 0 && member < size) || !Number.isInteger(member)) {
        throw new RangeError(`rotation.commit: no member ${member} in a tier of ${size}`);
      }
      const charged = memberOperators[member]!;
      // Operators the current walk moved past before reaching the charged one were offered
      // the call and refused it: absent for this admission. A member committed without
      // being reached (no walk, or a pinned endpoint) makes nobody absent.
      const absentEnd = Math.min(walkOperator, positionOf[charged]!);
      stamp++;
      let absentShare = 0;
      for (let i = 0; i < absentEnd; i++) {
        const o = operatorOrder[i]!;
        absentStamp[o] = stamp;
        absentShare += share[o]!;
      }
      const presentShare = absentEnd === 0 ? 1 : 1 - absentShare;
      // Those present earn their renormalised share of this admission; the charged operator
      // pays exactly what was credited, so total lag stays 0.
      const scale = presentShare > SHARE_FLOOR ? 1 / presentShare : 0;
      let credited = 0;
      for (let o = 0; o < operatorCount; o++) {
        if (absentStamp[o] === stamp) continue;
        const gain = share[o]! * scale;
        lag[o]! += gain;
        credited += gain;
      }
      lag[charged]! -= credited;
      reorder();
      const groupSize = groupStart[charged + 1]! - groupStart[charged]!;
      const nextPosition = positionInGroup[member]! + 1;
      cursor[charged] = nextPosition === groupSize ? 0 : nextPosition;
    },
    order() {
      rotation.begin();
      for (let i = 0; i < size; i++) buffer[i] = rotation.next();
      return buffer;
    },
  };
  return rotation;
}

function normaliseShares(shares: readonly number[]): Float64Array {
  let total = 0;
  for (const value of shares) {
    if (!(value >= 0) || !Number.isFinite(value)) {
      throw new RangeError(`createWeightedRotation: shares must be finite and non-negative, got ${value}`);
    }
    total += value;
  }
  if (!(total > 0)) throw new RangeError('createWeightedRotation: shares must sum to more than 0');
  return Float64Array.from(shares, (value) => value / total);
}
