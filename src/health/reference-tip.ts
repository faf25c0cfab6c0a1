/**
 * The chain's tip as the pool believes it, from every endpoint's recent head — robust to one
 * rogue endpoint that reports a head far in the future, and still able to judge a lagging
 * endpoint when only two report heads. A head sets the tip only when someone vouches for it:
 *
 * 1. Plausibility (PATH): the chain cannot advance faster than `advancePerSecond` (plus
 *    `maxJump` of slack for bursts such as `anvil_mine`) since the last tip was set; a head
 *    beyond that is ignored. A tip once vouched for vouches for what the chain can have
 *    reached since.
 * 2. With three or more plausible heads, the tip is the second-highest (eRPC PR#998): one
 *    rogue endpoint, whatever it reports, never sets it; the highest vouches for it.
 * 3. With two, the higher one when a previous tip vouches for it, or when it is within
 *    `maxJump` of the other (else a lagging endpoint could never be told from a fresh one);
 *    with no previous tip and more than `maxJump` between them, the lower one: the other
 *    head vouches for it, nobody for the outlier.
 * 4. With one and no previous tip, none — unless the pool has no other endpoint to vouch: a
 *    rogue endpoint that answers first must not set a tip that makes every honest one lag.
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
 * plausible and vouched for. `previous` is the last tip and when it was set; `alone`: the
 * pool has one endpoint (its head needs nobody to vouch for it).
 */
export function referenceTipIndex(heads: readonly HeadSample[], previous: HeadSample | undefined, nowMs: number, bounds: TipBounds, alone = false): number {
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
  if (previous !== undefined) return first;
  if (plausible === 1) return alone ? first : -1;
  if (plausible === 2 && heads[first]!.value - heads[second]!.value > bounds.maxJump) return second;
  return first;
}
