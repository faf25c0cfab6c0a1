import { IndexedHeap } from './indexed-heap.js';
import type { TierRotation } from './rotation.js';

/** Below this, the operators present hold no share to hand out (only zero-share ones). */
const SHARE_FLOOR = 1e-12;

/**
 * Deterministic weighted rotation for a tier reshaped by the operator cap.
 *
 * Why not nginx's smooth weighted round-robin (pick the largest credit)? It only keeps an
 * operator within about one request of its target: with eight operators it drifts 1.046
 * requests off (found by brute force over random shares). The contract is "within one request over ANY run of
 * admissions", so operators are scheduled as a Pfair schedule (Baruah et al., 1996) built by
 * earliest-deadline-first:
 *
 * - After `t` admissions an operator with share `p` that took `n` of them has lag
 *   `s = t·p − n`. The next admission is slot `t`; its credit if not chosen is `c = s + p`.
 * - Its next request is *released* once `c > 0` (giving it earlier would put it a whole
 *   request ahead) and *due* by slot `t + (1 − c)/p` (later would leave it a whole request
 *   behind).
 * - Offer the call to released operators by earliest due slot, then to the rest by earliest
 *   release slot (the least ahead first), then to zero-share operators.
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
 *
 * Implementation: lags are kept as absolute slots on a virtual clock `V` (one per admission,
 * stretched to `1/P` when only a share `P` is present), so between admissions only the
 * charged and the absent operators' slots move: an operator with share p that took n
 * admissions while present for virtual time `V − F` is *released* once `V` passes
 * `F + n/p − 1` and *due* at `F + (n + 1)/p − 1`. Released operators sit in a heap by due
 * slot, unreleased ones in a heap by release slot, so an admission costs O(log M) and walking
 * the trial order costs O(log k) for the k-th operator.
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
 * Cost: `begin()` O(1); `next()` O(1) per member, O(log k) to move to the k-th operator;
 * `commit()` O(log M) plus O(log M) per absent operator. No allocation after construction.
 *
 * @throws RangeError when a member names an unknown operator, an operator has no member, or
 * the shares are not finite, non-negative and summing to more than 0.
 */
export function createWeightedRotation(options: WeightedRotationOptions): TierRotation {
  const { memberOperators, operatorShares } = options;
  const size = memberOperators.length;
  const operatorCount = operatorShares.length;
  const share = normaliseShares(operatorShares);
  const start = Math.trunc(options.start ?? 0);
  if (!Number.isFinite(start)) throw new RangeError('createWeightedRotation: start must be finite');

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
  const cursor = new Int32Array(operatorCount);
  const tieRank = new Int32Array(operatorCount);
  for (let o = 0; o < operatorCount; o++) {
    const groupSize = groupStart[o + 1]! - groupStart[o]!;
    cursor[o] = mod(start, groupSize);
    tieRank[o] = mod(o - start, operatorCount);
  }

  // Virtual clock and per-operator slots (see the module comment). Zero-share operators are
  // in neither heap: they are offered last, in tie order, and never earn or pay.
  // Slots are recomputed from an integer count (`releaseAt = base + taken/p`, `dueAt =
  // base + (taken + 1)/p`) rather than accumulated, so rounding does not build up into a
  // release one slot early over a long run; `base` only moves while the operator is absent
  // and when the clock is rebased.
  let clock = 0;
  const base = new Float64Array(operatorCount).fill(-1);
  const taken = new Float64Array(operatorCount);
  const dueAt = new Float64Array(operatorCount);
  const releaseAt = new Float64Array(operatorCount);
  const place = (o: number): void => {
    const p = share[o]!;
    releaseAt[o] = base[o]! + taken[o]! / p;
    dueAt[o] = base[o]! + (taken[o]! + 1) / p;
  };
  for (let o = 0; o < operatorCount; o++) if (share[o]! > 0) place(o);
  const released = new IndexedHeap(operatorCount, dueAt, tieRank);
  const waiting = new IndexedHeap(operatorCount, releaseAt, tieRank);
  const zeroShare: number[] = [];
  for (let rank = 0; rank < operatorCount; rank++) {
    const o = mod(rank + start, operatorCount);
    if (share[o]! > 0) released.push(o);
    else zeroShare.push(o);
  }

  // Walk state. `passed` lists the operators whose members were all offered, in walk order.
  let phase = PHASE_DONE;
  let walkOperator = -1;
  let walkMember = 0;
  let zeroIndex = 0;
  const passed = new Int32Array(operatorCount);
  let passedCount = 0;
  const buffer = new Array<number>(size).fill(0);

  const nextOperator = (): number => {
    if (phase === PHASE_RELEASED) {
      const o = released.nextInWalk();
      if (o !== -1) return o;
      phase = PHASE_WAITING;
      waiting.startWalk();
    }
    if (phase === PHASE_WAITING) {
      const o = waiting.nextInWalk();
      if (o !== -1) return o;
      phase = PHASE_ZERO;
    }
    if (phase === PHASE_ZERO && zeroIndex < zeroShare.length) return zeroShare[zeroIndex++]!;
    phase = PHASE_DONE;
    return -1;
  };

  /** Recomputes operator o's slots and restores the heap it is in. */
  const replace = (o: number): void => {
    place(o);
    if (released.has(o)) released.update(o);
    else waiting.update(o);
  };

  /** Keeps slot values small so float resolution does not decay over a long run. */
  const rebase = (): void => {
    for (let o = 0; o < operatorCount; o++) {
      if (share[o]! === 0) continue;
      base[o] = releaseAt[o]! - clock;
      taken[o] = 0;
      place(o);
    }
    clock = 0;
  };

  const rotation: TierRotation = {
    size,
    begin() {
      phase = PHASE_RELEASED;
      released.startWalk();
      zeroIndex = 0;
      passedCount = 0;
      walkOperator = nextOperator();
      walkMember = 0;
    },
    next() {
      while (walkOperator !== -1) {
        const first = groupStart[walkOperator]!;
        const groupSize = groupStart[walkOperator + 1]! - first;
        if (walkMember < groupSize) {
          let position = cursor[walkOperator]! + walkMember++;
          if (position >= groupSize) position -= groupSize;
          return groupMembers[first + position]!;
        }
        passed[passedCount++] = walkOperator;
        walkOperator = nextOperator();
        walkMember = 0;
      }
      return -1;
    },
    commit(member) {
      if (!(member >= 0 && member < size) || !Number.isInteger(member)) {
        throw new RangeError(`rotation.commit: no member ${member} in a tier of ${size}`);
      }
      const charged = memberOperators[member]!;
      // Operators the walk passed before reaching the charged one were offered the call and
      // refused it: absent for this admission. Without a walk nobody is absent.
      let absentCount = 0;
      let absentShare = 0;
      while (absentCount < passedCount && passed[absentCount] !== charged) {
        absentShare += share[passed[absentCount++]!]!;
      }
      const presentShare = 1 - absentShare;
      if (presentShare > SHARE_FLOOR) {
        // Present operators earn p / P of this admission: the clock runs 1/P. Absent ones
        // keep their lag, so their slots move with the clock.
        const step = 1 / presentShare;
        clock += step;
        for (let i = 0; i < absentCount; i++) {
          const o = passed[i]!;
          if (share[o]! > 0) {
            base[o]! += step;
            replace(o);
          }
        }
        if (share[charged]! > 0) {
          taken[charged]! += 1;
          replace(charged);
          if (released.has(charged) && releaseAt[charged]! >= clock - RELEASE_SLACK) {
            released.remove(charged);
            waiting.push(charged);
          }
        }
        for (let o = waiting.peek(); o !== -1 && releaseAt[o]! < clock - RELEASE_SLACK; o = waiting.peek()) {
          waiting.remove(o);
          released.push(o);
        }
        if (clock > REBASE_AFTER) rebase();
      }
      const groupSize = groupStart[charged + 1]! - groupStart[charged]!;
      const nextPosition = positionInGroup[member]! + 1;
      cursor[charged] = nextPosition === groupSize ? 0 : nextPosition;
      phase = PHASE_DONE;
      walkOperator = -1;
      passedCount = 0;
    },
    order() {
      rotation.begin();
      for (let i = 0; i < size; i++) buffer[i] = rotation.next();
      return buffer;
    },
  };

  return rotation;
}

const PHASE_RELEASED = 0;
const PHASE_WAITING = 1;
const PHASE_ZERO = 2;
const PHASE_DONE = 3;
/**
 * Shares are floats, so a release that is exactly due in rational terms (share 1/3, third
 * slot) can land a rounding error early and put the operator exactly one request ahead;
 * releasing only once the clock is clearly past the slot keeps exact ties on the safe side.
 */
const RELEASE_SLACK = 1e-9;
/** A uniform shift of every slot changes no order; done every ~million admissions. */
const REBASE_AFTER = 2 ** 20;

function mod(value: number, modulus: number): number {
  return ((value % modulus) + modulus) % modulus;
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
