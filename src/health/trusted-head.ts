/**
 * The head a proof may count on: the highest one that at least two operators have reported.
 * One rogue operator, whatever head it reports (10^6 blocks ahead, or a slot it never saw),
 * never sets it, and it is never above the reference tip (with three or more heads the tip
 * is the second-highest endpoint head; this is the second-highest *operator* head, no
 * higher). A lower head only delays a proof (fewer confirmations, an earlier block to read
 * a nonce at), so stale or lagging heads are safe here. Pure.
 */

export interface OperatorHead {
  readonly operator: string;
  readonly value: bigint;
}

/** The highest head at least two distinct operators reached, or undefined while fewer than two reported one. */
export function trustedHeadOf(heads: readonly OperatorHead[]): bigint | undefined {
  const best = new Map<string, bigint>();
  for (const { operator, value } of heads) {
    const seen = best.get(operator);
    if (seen === undefined || value > seen) best.set(operator, value);
  }
  let first: bigint | undefined;
  let second: bigint | undefined;
  for (const value of best.values()) {
    if (first === undefined || value > first) {
      second = first;
      first = value;
    } else if (second === undefined || value > second) {
      second = value;
    }
  }
  return second;
}
