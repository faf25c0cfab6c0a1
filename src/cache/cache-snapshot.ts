import type { CacheTally } from './cache-tally.js';

/** The read cache's state and counters since the pool started (docs/reads.md "Read cache"). */
export interface CacheSnapshot {
  readonly entries: number;
  /** Bytes held: the kept answers' JSON text plus their keys. */
  readonly bytes: number;
  readonly hits: number;
  readonly misses: number;
  /** Answers kept, per class. */
  readonly stored: { readonly finalized: number; readonly unfinalized: number; readonly realtime: number };
  /** Entries pushed out by `maxBytes` / `maxEntries`. */
  readonly evictions: number;
  /** Unfinalized entries dropped because a reorg was seen. */
  readonly reorgEvictions: number;
  /** Finalized answers not kept because another operator's endpoint answered otherwise (`verify: 'two-operators'`). */
  readonly verifyMismatches: number;
  /** Misses answered from the fleet's shared cache (another process kept the answer): no node asked. */
  readonly sharedHits: number;
  /** The same counts per method and class (a miss under the class its read was asked as). */
  readonly methods: readonly Readonly<CacheTally>[];
}
