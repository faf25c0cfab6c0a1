/**
 * The read cache's counters per method and class (bounded: the methods of the table in
 * `read-rules.ts` times three classes). An entry holds its tally, so a hit or an eviction
 * counts without a lookup; a miss is counted under the class its read is asked as
 * (finalized when it can be kept for good as far as the cache knows when it is asked).
 */
import type { ReadClass } from './read-rules.js';

/** A class an answer can be kept under (every {@link ReadClass} but `never`). */
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
  /** By method, then class: one lookup by the call's own method string (its hash is cached), no key built per miss. */
  readonly #byMethod = new Map<string, Partial<Record<KeptClass, CacheTally>>>();

  of(method: string, readClass: KeptClass): CacheTally {
    let byClass = this.#byMethod.get(method);
    if (byClass === undefined) this.#byMethod.set(method, (byClass = {}));
    return (byClass[readClass] ??= { method, class: readClass, hits: 0, misses: 0, stored: 0, evictions: 0, reorgEvictions: 0 });
  }

  /** Copies, by method then class. */
  snapshot(): readonly Readonly<CacheTally>[] {
    const methods = [...this.#byMethod.keys()].sort();
    return methods.flatMap((method) => CLASSES.flatMap((readClass) => {
      const tally = this.#byMethod.get(method)![readClass];
      return tally === undefined ? [] : [{ ...tally }];
    }));
  }
}

const CLASSES: readonly KeptClass[] = ['finalized', 'realtime', 'unfinalized'];
