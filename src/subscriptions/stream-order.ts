import type { Seq, StreamOrder } from './stream-profile.js';

/** Keys remembered by identity dedup: a rebind replays at most a few blocks' worth. */
export const IDENTITY_MEMORY = 4_096;

/** What to do with one notification. */
export type OrderDecision =
  | { readonly deliver: false }
  | { readonly deliver: true; readonly gap?: { readonly from: bigint; readonly to: bigint } };

const DROP: OrderDecision = { deliver: false };
const DELIVER: OrderDecision = { deliver: true };

/**
 * Dedup and gap detection for one caller-side subscription, across every socket it has
 * lived on (pure: feed it notification values, it answers deliver / drop / gap).
 */
export class StreamTracker {
  readonly #order: StreamOrder;
  /** Sequence: highest number delivered, and the keys (hashes) delivered at it. */
  #last: Seq | undefined;
  #keysAtLast = new Set<string>();
  /** Identity: insertion-ordered set, oldest evicted first. */
  readonly #seen = new Set<string>();
  readonly #slotOf = new Map<string, Seq>();

  constructor(order: StreamOrder) {
    this.#order = order;
  }

  decide(value: unknown): OrderDecision {
    const order = this.#order;
    switch (order.type) {
      case 'none':
        return DELIVER;
      case 'sequence': {
        const at = order.read(value);
        if (at === undefined) return DELIVER;
        return this.#sequence(at.n, at.key ?? '');
      }
      case 'identity': {
        const id = order.read(value);
        if (id === undefined) return DELIVER;
        if (this.#seen.has(id)) return DROP;
        this.#seen.add(id);
        if (this.#seen.size > IDENTITY_MEMORY) this.#seen.delete(this.#seen.values().next().value as string);
        return DELIVER;
      }
      case 'per-key-slot': {
        const at = order.read(value);
        if (at === undefined) return DELIVER;
        const last = this.#slotOf.get(at.key);
        if (last !== undefined && at.slot <= last) return DROP;
        this.#slotOf.set(at.key, at.slot);
        if (this.#slotOf.size > IDENTITY_MEMORY) this.#slotOf.delete(this.#slotOf.keys().next().value as string);
        return DELIVER;
      }
    }
  }

  /** Sequence streams: the next numbers follow `n` (block hash `key`), even below what was delivered (a backfill across a reorg). */
  resumeAfter(n: bigint, key: string): void {
    this.#last = n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
    this.#keysAtLast = new Set([key.toLowerCase()]);
  }

  #sequence(n: Seq, key: string): OrderDecision {
    const last = this.#last;
    // `>` and `==` compare a number with a bigint exactly; only the arithmetic needs one type.
    if (last === undefined || n > last) {
      this.#last = n;
      if (this.#keysAtLast.size !== 1 || !this.#keysAtLast.has(key)) this.#keysAtLast = new Set([key]);
      if (last === undefined) return DELIVER;
      const from = BigInt(last) + 1n;
      if (typeof n === 'number' && typeof last === 'number' ? n === last + 1 : BigInt(n) === from) return DELIVER;
      return { deliver: true, gap: { from, to: BigInt(n) - 1n } };
    }
    // A known number: the same block again is a duplicate; another hash at the tip is a reorg.
    if (n == last && !this.#keysAtLast.has(key)) {
      this.#keysAtLast.add(key);
      return DELIVER;
    }
    // Below the last delivered number: a node behind the previous one (after a rebind). Dropped.
    return DROP;
  }
}
