/**
 * Settled block hashes: the hash of a block number deep enough below the reference tip that
 * no reorg can replace it (beyond the reorg window), as two operators answered it. A block
 * answer that contradicts a settled hash is a lie (`settled-hash`). Pure state, bounded.
 *
 * Why two operators: a lying node answering first must not write its lie into the book and
 * then have every honest answer refused. One operator's hash waits for a second operator's
 * agreement; a disagreement settles nothing (the number stays unchecked).
 */

/** Blocks below the tip that a reorg may still replace (EVM: ~2 epochs of 32 slots). */
export const DEFAULT_REORG_WINDOW_BLOCKS = 64;
/** Most hashes kept (settled and waiting each); the oldest entry leaves first. */
const CAPACITY = 4_096;

interface Pending {
  readonly hash: string;
  readonly operator: string;
}

export class HashBook {
  readonly #settled = new Map<bigint, string>();
  readonly #pending = new Map<bigint, Pending>();
  readonly #reorgWindow: bigint;

  /** `reorgWindowBlocks`: how far below the tip a block must be before its hash settles, in blocks. */
  constructor(reorgWindowBlocks: number = DEFAULT_REORG_WINDOW_BLOCKS) {
    this.#reorgWindow = BigInt(reorgWindowBlocks);
  }

  /** An operator answered block `number` with `hash` (lowercase) while the reference tip was `tip`. */
  observe(number: bigint, hash: string, operator: string, tip: bigint | undefined): void {
    if (tip === undefined || number > tip - this.#reorgWindow || this.#settled.has(number)) return;
    const pending = this.#pending.get(number);
    if (pending === undefined) {
      bounded(this.#pending).set(number, { hash, operator });
    } else if (pending.operator !== operator) {
      this.#pending.delete(number);
      if (pending.hash === hash) bounded(this.#settled).set(number, hash);
    }
  }

  /** The settled hash of block `number`, if two operators agreed on it beyond the reorg window. */
  hashAt(number: bigint): string | undefined {
    return this.#settled.get(number);
  }
}

/** Makes room for one more entry: the oldest leaves. */
function bounded<V>(map: Map<bigint, V>): Map<bigint, V> {
  if (map.size >= CAPACITY) {
    const oldest = map.keys().next();
    if (oldest.done !== true) map.delete(oldest.value);
  }
  return map;
}
