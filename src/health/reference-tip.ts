/**
 * The chain's tip as the pool believes it, from every endpoint's recent head — robust to one
 * rogue endpoint that reports a head far in the future, and still able to judge a lagging
 * endpoint when only two report heads.
 *
 * 1. Plausibility (PATH): the chain cannot advance faster than `advancePerSecond` (plus
 *    `maxJump` of slack for bursts such as `anvil_mine`) since the last tip was set; a head
 *    beyond that is ignored.
 * 2. With three or more plausible heads, the tip is the second-highest (eRPC PR#998): one
 *    rogue endpoint, whatever it reports, never sets it.
 * 3. With two, the higher one — else a lagging endpoint could never be told from a fresh one
 *    — unless there is no previous tip yet and it is more than `maxJump` above the other: an
 *    outlier nobody vouches for.
 */

export interface HeadSample {
  readonly value: number;
  readonly atMs: number;
}

export interface TipBounds {
  /** Fastest plausible advance of the chain, per second. */
  readonly advancePerSecond: number;
  /** Slack on top of it (bursts, clock skew between endpoints). */
  readonly maxJump: number;
}

/** Bounds per quantity: Solana targets 2.5 slots/s; EVM chains range from 1 block/12 s to ~10 blocks/s. */
export const TIP_BOUNDS = {
  slot: { advancePerSecond: 10, maxJump: 10_000 },
  block: { advancePerSecond: 20, maxJump: 10_000 },
} as const satisfies Record<string, TipBounds>;

/**
 * The index (into `heads`) of the head that is the reference tip, or -1 when no head is
 * plausible. `previous` is the last tip and when it was set.
 */
export function referenceTipIndex(heads: readonly HeadSample[], previous: HeadSample | undefined, nowMs: number, bounds: TipBounds): number {
  const cap = previous === undefined ? Number.POSITIVE_INFINITY : previous.value + (bounds.advancePerSecond * Math.max(0, nowMs - previous.atMs)) / 1000 + bounds.maxJump;
  let first = -1;
  let second = -1;
  let plausible = 0;
  for (let i = 0; i < heads.length; i++) {
    const value = heads[i]!.value;
    if (!(value <= cap)) continue;
    plausible++;
    if (first === -1 || value > heads[first]!.value) {
      second = first;
      first = i;
    } else if (second === -1 || value > heads[second]!.value) {
      second = i;
    }
  }
  if (plausible >= 3) return second;
  if (plausible === 2 && previous === undefined && heads[first]!.value - heads[second]!.value > bounds.maxJump) return second;
  return first;
}
