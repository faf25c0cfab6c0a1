/**
 * Who holds a reference tip among endpoints reporting the same head (a tie is the common
 * case: fresh nodes sit on the same slot or block). Pure: reads only what it is given.
 */

/** What the choice needs of one endpoint's last head. */
export interface HolderCandidate {
  readonly number: number;
  readonly lagging: boolean;
}

/**
 * The holder of a tip at `entries[chosen]`'s head, among `sampleIndex` (the endpoints whose
 * heads took part): the previous holder when it is one of them at that head and not lagging,
 * else `chosen` when it is not lagging, else another endpoint at that head that is not. A
 * lagging endpoint that caught up to a tie would otherwise hold the tip and vouch for itself,
 * and its repeated head would never re-judge it.
 */
export function tipHolder(entries: readonly HolderCandidate[], sampleIndex: readonly number[], chosen: number, previousIndex: number | undefined): number {
  const value = entries[chosen]!.number;
  if (previousIndex !== undefined && previousIndex !== chosen) {
    const holder = entries[previousIndex]!;
    if (!holder.lagging && holder.number === value && sampleIndex.includes(previousIndex)) return previousIndex;
  }
  if (!entries[chosen]!.lagging) return chosen;
  for (const i of sampleIndex) if (i !== chosen && entries[i]!.number === value && !entries[i]!.lagging) return i;
  return chosen;
}
