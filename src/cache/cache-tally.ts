/**
 * The read cache's counters per method and class (bounded: the methods of the table in
 * `read-rules.ts` times three classes). An entry holds its tally, so a hit or an eviction
 * counts without a lookup; a miss is counted under the class its read is asked as
 * (finalized when it can be kept for good as far as the cache knows when it is asked).
 */
import type { ReadClass } from './read-rules.js';

export type KeptClass = Exclude<ReadClass, 'never'>;

/** One (method, class) pair's counts since the pool started. */
export interface CacheTally {
  readonly method: string;
  readonly class: KeptClass;
  hits: number;
  misses: number;
  stored: number;
  evictions: number;
  reorgEvictions: number;
}

export class CacheTallies {
  readonly #tallies = new Map<string, CacheTally>();

  of(method: string, readClass: KeptClass): CacheTally {
    const key = `${readClass}\u0000${method}`;
    let tally = this.#tallies.get(key);
    if (tally === undefined) this.#tallies.set(key, (tally = { method, class: readClass, hits: 0, misses: 0, stored: 0, evictions: 0, reorgEvictions: 0 }));
    return tally;
  }

  /** Copies, by method then class. */
  snapshot(): readonly Readonly<CacheTally>[] {
    return [...this.#tallies.values()].map((tally) => ({ ...tally })).sort((a, b) => (a.method === b.method ? a.class.localeCompare(b.class) : a.method.localeCompare(b.method)));
  }
}
