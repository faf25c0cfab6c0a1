/**
 * The read cache's store: least recently used first out, bounded by bytes (the answer's
 * serialized text plus its key) and by entries, each entry with its own expiry. Holds the
 * text, never the caller's object: every hit parses a fresh copy the caller may mutate.
 * Map insertion order is the recency order (a hit moves its entry to the end).
 */
import type { CacheTally } from './cache-tally.js';
import type { ReadClass } from './read-rules.js';

export interface CacheEntry {
  readonly text: string;
  readonly bytes: number;
  readonly readClass: ReadClass;
  /** The block an unfinalized entry depends on (a reorg above the finalized head drops it). */
  readonly number: number | undefined;
  readonly expiresAtMs: number;
  /** Its method's and class's counts (a hit or an eviction counts there). */
  readonly tally: CacheTally;
}

export interface LruLimits {
  readonly maxBytes: number;
  readonly maxEntries: number;
}

export class ByteLru {
  readonly #entries = new Map<string, CacheEntry>();
  /** Keys of the entries a reorg can undo (unfinalized, with a block number). */
  readonly #reorgable = new Set<string>();
  readonly #limits: LruLimits;
  #bytes = 0;

  constructor(limits: LruLimits) {
    this.#limits = limits;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** Whether any entry depends on an unfinalized block. */
  get hasReorgable(): boolean {
    return this.#reorgable.size > 0;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Whether an entry is held under `key` (live or not), without touching its recency. */
  has(key: string): boolean {
    return this.#entries.has(key);
  }

  /** The live entry under `key` (an expired one is dropped), made the most recent. */
  get(key: string, nowMs: number): CacheEntry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAtMs <= nowMs) {
      this.#delete(key, entry);
      return undefined;
    }
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry;
  }

  /** Stores an entry (replacing one under the same key); returns how many older entries it evicted. */
  set(key: string, entry: CacheEntry): number {
    const previous = this.#entries.get(key);
    if (previous !== undefined) this.#delete(key, previous);
    this.#entries.set(key, entry);
    this.#bytes += entry.bytes;
    if (entry.number !== undefined && entry.readClass === 'unfinalized') this.#reorgable.add(key);
    let evicted = 0;
    while (this.#bytes > this.#limits.maxBytes || this.#entries.size > this.#limits.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      const entry = this.#entries.get(oldest.value)!;
      this.#delete(oldest.value, entry);
      entry.tally.evictions++;
      evicted++;
    }
    return evicted;
  }

  /** Drops every unfinalized entry that depends on a block at or above `number`; returns how many. */
  dropFrom(number: number): number {
    let dropped = 0;
    for (const key of this.#reorgable) {
      const entry = this.#entries.get(key)!;
      if (entry.number! < number) continue;
      this.#delete(key, entry);
      entry.tally.reorgEvictions++;
      dropped++;
    }
    return dropped;
  }

  #delete(key: string, entry: CacheEntry): void {
    this.#entries.delete(key);
    this.#reorgable.delete(key);
    this.#bytes -= entry.bytes;
  }
}
