/**
 * The arithmetic of the per-operator traffic cap (operators above the cap hand their excess to the others), as pure functions.
 */

/**
 * Tolerance when comparing a share with the cap. Shares are ratios of small integers and
 * caps are decimal literals (`0.65`), so `13 / 20 > 0.65` style comparisons sit on float
 * noise; an operator that is at the cap up to this tolerance does not "exceed" it.
 */
export const SHARE_EPSILON = 1e-12;

/**
 * Whether `maxOperatorShare` turns the cap on: `0` (and anything ≤ 0), `≥ 1` and `NaN`
 * disable it, as the config contract says.
 */
export function isCapEnabled(maxOperatorShare: number): boolean {
  return maxOperatorShare > 0 && maxOperatorShare < 1;
}

/**
 * Whether a cap can be honoured by `operatorCount` operators at all: `M` operators can
 * each stay at or under the cap only when `cap·M ≥ 1`; `cap·M ≤ 1` counts as
 * infeasible (at exactly 1 every operator must sit at the cap, which is the uniform split).
 */
export function isCapFeasible(maxOperatorShare: number, operatorCount: number): boolean {
  return maxOperatorShare * operatorCount > 1;
}

/**
 * Caps every operator's share at `maxOperatorShare` by water-filling.
 *
 * `weights` are per operator, positive, in any scale (they are normalised; typically the
 * number of members each operator has in a tier). Operators whose normalised share exceeds
 * the cap are clamped to it and their excess is handed to the others in proportion to their
 * weight, repeatedly, until none exceeds it. Properties (property-tested):
 * - the result sums to 1 and keeps the input's order (`w_i ≥ w_j ⇒ out_i ≥ out_j`);
 * - it is the normalised input when no operator exceeds the cap, or when the cap is
 *   disabled (see {@link isCapEnabled});
 * - when the cap is infeasible (`cap·M ≤ 1`) it is uniform (`1/M` each): the closest we can
 *   get to the cap without starving anyone;
 * - otherwise no share exceeds the cap.
 *
 * O(M log M) for the sort; called when tier membership changes, never per request.
 *
 * @throws RangeError when a weight is not a finite positive number.
 */
export function waterFill(weights: readonly number[], maxOperatorShare: number): number[] {
  const count = weights.length;
  let total = 0;
  for (const weight of weights) {
    if (!(weight > 0) || !Number.isFinite(weight)) {
      throw new RangeError(`waterFill: weights must be finite and positive, got ${weight}`);
    }
    total += weight;
  }
  if (count === 0) return [];
  if (!isCapEnabled(maxOperatorShare)) return weights.map((weight) => weight / total);
  if (!isCapFeasible(maxOperatorShare, count)) return new Array<number>(count).fill(1 / count);

  // Heaviest first: if an operator must be clamped, every heavier one must be too, so the
  // clamped set is a prefix of this order and one pass finds it.
  const order = weights.map((_, index) => index).sort((a, b) => at(weights, b) - at(weights, a) || a - b);
  let clamped = 0;
  let freeWeight = total;
  for (; clamped < count; clamped++) {
    const heaviest = at(weights, at(order, clamped));
    const freeMass = 1 - clamped * maxOperatorShare;
    // Its share once the mass left over by the clamped ones is spread over the free ones.
    if ((heaviest * freeMass) / freeWeight <= maxOperatorShare + SHARE_EPSILON) break;
    freeWeight -= heaviest;
  }
  // Feasibility guarantees the loop stops before clamping everyone: with M−1 clamped, the
  // last operator gets 1 − (M−1)·cap, which is < cap exactly when cap·M > 1.
  const scale = (1 - clamped * maxOperatorShare) / freeWeight;
  const result = weights.map((weight) => weight * scale);
  for (let rank = 0; rank < clamped; rank++) result[at(order, rank)] = maxOperatorShare;
  return result;
}

/**
 * The fast-path test: does a tier whose operators have `operatorCounts`
 * members each need its rotation reshaped by the cap?
 *
 * `false` when the cap is disabled, when there is at most one operator (nobody to hand
 * traffic to), or when the cap is feasible and no operator holds more than `cap·N` of the
 * tier's `N` members — then plain rotation already keeps every operator under the cap.
 * `true` otherwise, including every infeasible cap with two or more operators (the tier is
 * then weighted uniformly per operator, and the `reshape` event tells the user so).
 *
 * @throws RangeError when a count is not a positive integer.
 */
export function needsReshaping(operatorCounts: readonly number[], maxOperatorShare: number): boolean {
  let members = 0;
  for (const count of operatorCounts) {
    if (!Number.isInteger(count) || count <= 0) {
      throw new RangeError(`needsReshaping: operator counts must be positive integers, got ${count}`);
    }
    members += count;
  }
  if (!isCapEnabled(maxOperatorShare) || operatorCounts.length <= 1) return false;
  if (!isCapFeasible(maxOperatorShare, operatorCounts.length)) return true;
  return operatorCounts.some((count) => count / members > maxOperatorShare + SHARE_EPSILON);
}

/** Indexed read for arrays whose index is known to be in range (noUncheckedIndexedAccess). */
function at(values: readonly number[], index: number): number {
  return values[index] as number;
}
