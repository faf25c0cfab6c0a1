/**
 * The EVM chain a fill walks: from a top block down by parent hash to the block the
 * subscription already knew, so the blocks handed out are one chain (never a mix of forks
 * from several endpoints) and a reorg across the outage shows as known numbers whose hash
 * changed. Blocks are prefetched by number in parallel; only where the parent link breaks
 * (a reorg, an endpoint on another fork) is a block read by hash, one after the other.
 */
import { isTransportError } from '../errors/transport-error.js';
import type { BackfillContext } from './backfill-types.js';
import type { GapReason } from './types.js';

/** The fields of a block a fill reads; `raw` is the node's object. */
export interface ChainBlock {
  readonly number: bigint;
  readonly hash: string;
  readonly parentHash: string;
  readonly raw: Readonly<Record<string, unknown>>;
}

export interface ChainWalk {
  /** Ascending; one chain ending at the top block. */
  readonly blocks: readonly ChainBlock[];
  /** Set when the walk stopped before reaching `known + 1`: the numbers missed. */
  readonly unfilled?: { readonly from: bigint; readonly to: bigint; readonly reason: GapReason };
}

/** Hashes the subscription saw, by number (bounded memory, oldest numbers forgotten first). */
export class KnownHashes {
  readonly #byNumber = new Map<bigint, string>();
  readonly #limit: number;
  /** The highest number known. */
  top: bigint | undefined;

  constructor(limit: number) {
    this.#limit = limit;
  }

  get(n: bigint): string | undefined {
    return this.#byNumber.get(n);
  }

  /** Whether a number at or below `n` is known (a reorg walk may go on through numbers never seen). */
  hasAtOrBelow(n: bigint): boolean {
    for (const known of this.#byNumber.keys()) if (known <= n) return true;
    return false;
  }

  set(n: bigint, hash: string): void {
    this.#byNumber.delete(n);
    this.#byNumber.set(n, hash.toLowerCase());
    if (this.top === undefined || n > this.top) this.top = n;
    if (this.#byNumber.size > this.#limit) this.#byNumber.delete(this.#byNumber.keys().next().value as bigint);
  }
}

const HEX = /^0x[0-9a-fA-F]{1,64}$/;

/** A block answer as a `ChainBlock`; undefined for `null` (the node has not got it) or a shape that is not a block. */
export function chainBlockOf(value: unknown): ChainBlock | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const raw = value as Record<string, unknown>;
  const { number, hash, parentHash } = raw;
  if (typeof number !== 'string' || !HEX.test(number) || typeof hash !== 'string' || typeof parentHash !== 'string') return undefined;
  return { number: BigInt(number), hash: hash.toLowerCase(), parentHash: parentHash.toLowerCase(), raw };
}

const hexOf = (n: bigint) => `0x${n.toString(16)}`;

/** Why a read failed, as a gap says it. */
export const reasonOf = (error: unknown, context: BackfillContext): GapReason =>
  context.expired() || (isTransportError(error) && error.code === 'DEADLINE_EXCEEDED') ? 'max-ms' : 'failed';

/**
 * Walks down from `top` to the block after `known.top`, and further while the chain's hash
 * at a known number differs from the one known (a reorg), reading at most `maxBlocks` blocks.
 */
export async function walkChain(top: ChainBlock, known: KnownHashes, context: BackfillContext): Promise<ChainWalk> {
  const last = known.top ?? top.number;
  const { maxBlocks } = context.bounds;
  const prefetched = new Map<bigint, Promise<ChainBlock | undefined>>();
  // The numbers below the top that were surely missed, within the bound: read at once, in parallel.
  for (let n = top.number - 1n; n > last && top.number - n < BigInt(maxBlocks); n--) prefetched.set(n, readBlock(context, 'eth_getBlockByNumber', [hexOf(n), false]));
  // Settled before returning, whatever the walk does with them: none floats unhandled.
  for (const read of prefetched.values()) read.catch(() => undefined);
  const collected: ChainBlock[] = [top];
  let block = top;
  let unfilledReason: GapReason | undefined;
  for (;;) {
    const n = block.number - 1n;
    if (n < 0n) break;
    if (n <= last) {
      const knownHash = known.get(n);
      // Linked to what the subscription saw; or nothing known at or below `n` to compare with.
      if (knownHash === block.parentHash || (knownHash === undefined && !known.hasAtOrBelow(n))) break;
    }
    if (collected.length >= maxBlocks) {
      unfilledReason = 'max-blocks';
      break;
    }
    if (context.expired()) {
      unfilledReason = 'max-ms';
      break;
    }
    try {
      const candidate = await prefetched.get(n)?.catch(() => undefined);
      const parent = candidate?.hash === block.parentHash ? candidate : await readBlock(context, 'eth_getBlockByHash', [block.parentHash, false]);
      if (parent === undefined || parent.number !== n) {
        unfilledReason = 'failed';
        break;
      }
      collected.push(parent);
      block = parent;
    } catch (error) {
      unfilledReason = reasonOf(error, context);
      break;
    }
  }
  collected.reverse();
  const bottom = collected[0]!.number;
  return unfilledReason === undefined || bottom <= last + 1n ? { blocks: collected } : { blocks: collected, unfilled: { from: last + 1n, to: bottom - 1n, reason: unfilledReason } };
}

/** The block at the head (`latest`), as the pool's endpoints see it. */
export async function latestBlock(context: BackfillContext): Promise<ChainBlock | undefined> {
  return readBlock(context, 'eth_getBlockByNumber', ['latest', false]);
}

async function readBlock(context: BackfillContext, method: string, params: readonly unknown[]): Promise<ChainBlock | undefined> {
  return chainBlockOf(await context.request(method, params));
}
