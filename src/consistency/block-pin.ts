/**
 * An operation's block reference (MetaMask's block-ref rewrite): within one operation every
 * read of `latest` (or with its block omitted) is sent at one block, so the operation sees one
 * state even when its reads reach different nodes (viem#4509). State reads take the block's
 * hash when the pin is by hash (EIP-1898: a node that has reorged away from it refuses rather
 * than answering another block's state); block and log reads take its number. `pending`,
 * `safe`, `finalized`, explicit blocks and unknown methods pass unchanged. Pure.
 */

/** The block an operation is pinned to: its number (hex), and its hash when pinned by hash. */
export interface BlockRef {
  readonly number: string;
  readonly hash?: string | undefined;
}

/** EVM state reads that accept an EIP-1898 block object, and where their block parameter sits. */
const STATE_READS: ReadonlyMap<string, number> = new Map([
  ['eth_getBalance', 1],
  ['eth_getCode', 1],
  ['eth_getTransactionCount', 1],
  ['eth_getStorageAt', 2],
  ['eth_call', 1],
  ['eth_getProof', 2],
]);

/** Reads whose block parameter takes a number only. */
const NUMBER_READS: ReadonlyMap<string, number> = new Map([
  ['eth_estimateGas', 1],
  ['eth_getBlockByNumber', 0],
  ['eth_getBlockReceipts', 0],
  ['eth_getBlockTransactionCountByNumber', 0],
  ['eth_getTransactionByBlockNumberAndIndex', 0],
]);

const isLatest = (block: unknown): boolean => block === undefined || block === 'latest';

function withBlock(params: readonly unknown[], position: number, block: unknown): readonly unknown[] {
  if (!isLatest(params[position])) return params;
  const next = params.slice();
  // An omitted block is sent in place: the parameters before it are the caller's.
  next[position] = block;
  return next;
}

/** `params` with `latest` (or an omitted block) replaced by `ref`; the same array when there is nothing to replace. */
export function pinnedParams(method: string, params: readonly unknown[], ref: BlockRef): readonly unknown[] {
  const state = STATE_READS.get(method);
  if (state !== undefined) return params.length < state ? params : withBlock(params, state, ref.hash === undefined ? ref.number : { blockHash: ref.hash });
  const numbered = NUMBER_READS.get(method);
  if (numbered !== undefined) return params.length < numbered ? params : withBlock(params, numbered, ref.number);
  if (method !== 'eth_getLogs') return params;
  const filter = params[0];
  if (typeof filter !== 'object' || filter === null) return params;
  const { fromBlock, toBlock, blockHash } = filter as { readonly fromBlock?: unknown; readonly toBlock?: unknown; readonly blockHash?: unknown };
  if (blockHash !== undefined || (!isLatest(toBlock) && fromBlock !== 'latest')) return params;
  const pinned = { ...filter, toBlock: isLatest(toBlock) ? ref.number : toBlock, ...(fromBlock === 'latest' ? { fromBlock: ref.number } : {}) };
  return [pinned, ...params.slice(1)];
}

/** Any block: {@link pinnedParams} with it returns the caller's array exactly when the call reads no `latest`. */
const ANY_BLOCK: BlockRef = { number: '0x0', hash: '0x0' };

/** Whether `method(params)` reads at `latest` (or with its block omitted): what a pin rewrites. */
export function readsLatest(method: string, params: readonly unknown[]): boolean {
  return pinnedParams(method, params, ANY_BLOCK) !== params;
}
