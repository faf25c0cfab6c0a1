/**
 * Rotation over the members of one tier: the order in which the pool's admission loop
 * offers a call to the tier's members (after tier and reputation band, rotation decides).
 */

/**
 * A trial order for one admission, walked without allocating:
 *
 * ```ts
 * rotation.begin();
 * for (let m = rotation.next(); m !== -1; m = rotation.next()) {
 *   if (tryAdmit(members[m])) { rotation.commit(m); break; }
 * }
 * ```
 *
 * `begin()` and `next()` never change what the rotation owes anyone, so the pool may walk
 * the order several times for one admission (once per reputation band) or abandon it
 * (every member blocked → wait and walk again). Only `commit(member)` — the member that
 * actually took the call — advances the rotation.
 */
export interface TierRotation {
  /** Number of members (indices `0 … size − 1`). */
  readonly size: number;
  /** Starts a new walk of the trial order for one admission. */
  begin(): void;
  /** The next member to offer the call to, or `-1` once every member has been offered. */
  next(): number;
  /**
   * Records that `member` admitted the call, and ends the walk. Operators whose members were
   * all yielded by `next()` before it, in the current walk, were offered the call and did not
   * take it (blocked, or skipped by the caller for any reason); the weighted rotation treats
   * them as absent for this admission (see `createWeightedRotation`). Any member index is
   * accepted, including one `next()` has not yielded yet.
   * @throws RangeError when `member` is not in `0 … size − 1`.
   */
  commit(member: number): void;
  /**
   * The whole trial order (`begin()` then `next()` until `-1`) in a buffer owned by the
   * rotation: valid until the next call of any method; copy it to keep it.
   */
  order(): readonly number[];
}

/**
 * Plain round-robin, the fast path used when the operator cap does not reshape the tier.
 *
 * `start` (an integer, taken modulo `size`) is where the first walk begins; the pool draws it
 * from its injected random so a fleet of processes started together does not hit the same
 * endpoint first. `sequence`, when given, is the permutation of members to cycle through
 * (position → member; {@link planTier} interleaves operators in it); the default is
 * `0, 1, …, size − 1`.
 *
 * Every walk starts just after the last member that committed, so when every offered member
 * admits the result is exact round-robin; a member that could not admit is offered again
 * next time round, not first next time (no credit: all members weigh the same here).
 * `begin`, `next` and `commit` are O(1) and allocation-free.
 *
 * @throws RangeError when `size` is not a non-negative integer or `sequence` is not a
 * permutation of `0 … size − 1`.
 */
export function createRotation(size: number, start = 0, sequence?: readonly number[]): TierRotation {
  if (!Number.isInteger(size) || size < 0) {
    throw new RangeError(`createRotation: size must be a non-negative integer, got ${size}`);
  }
  if (!Number.isFinite(start)) throw new RangeError(`createRotation: start must be finite, got ${start}`);
  const positionOf = sequence === undefined ? undefined : invertPermutation(sequence, size);
  const buffer = new Array<number>(size).fill(0);
  let offset = size === 0 ? 0 : ((Math.trunc(start) % size) + size) % size;
  // Starts "exhausted" so `next()` before the first `begin()` yields nothing.
  let offered = size;

  const rotation: TierRotation = {
    size,
    begin() {
      offered = 0;
    },
    next() {
      if (offered >= size) return -1;
      let position = offset + offered++;
      if (position >= size) position -= size;
      return sequence === undefined ? position : (sequence[position] as number);
    },
    commit(member) {
      if (!(member >= 0 && member < size) || !Number.isInteger(member)) {
        throw new RangeError(`rotation.commit: no member ${member} in a tier of ${size}`);
      }
      const position = positionOf === undefined ? member : (positionOf[member] as number);
      offset = position + 1 === size ? 0 : position + 1;
      offered = size;
    },
    order() {
      // Same result as begin() + next() until -1, without a call per member.
      offered = size;
      for (let i = 0, position = offset; i < size; i++, position = position + 1 === size ? 0 : position + 1) {
        buffer[i] = sequence === undefined ? position : (sequence[position] as number);
      }
      return buffer;
    },
  };
  return rotation;
}

function invertPermutation(sequence: readonly number[], size: number): Int32Array {
  if (sequence.length !== size) {
    throw new RangeError(`createRotation: sequence has ${sequence.length} entries for ${size} members`);
  }
  const positionOf = new Int32Array(size).fill(-1);
  sequence.forEach((member, position) => {
    if (!Number.isInteger(member) || member < 0 || member >= size || positionOf[member] !== -1) {
      throw new RangeError('createRotation: sequence must be a permutation of 0 … size − 1');
    }
    positionOf[member] = position;
  });
  return positionOf;
}
