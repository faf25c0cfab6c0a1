/**
 * Which EVM reads a session's block floor constrains, and the head an endpoint needs to serve
 * each: a read of the chain's current state or of something the session may have seen
 * (`latest`, an omitted block, a receipt, a transaction, a block by hash) needs the floor; a
 * read at block N needs N when N is below the floor (any endpoint past N holds it, so an old
 * read stays balanced over every endpoint); a read at `earliest`, `safe`, `finalized` or
 * `pending` is not constrained. Pure; one map lookup for the methods it does not know.
 */

/** Where the block parameter of each EVM read at a block sits in params. */
const BLOCK_PARAM: ReadonlyMap<string, number> = new Map([
  ['eth_getBalance', 1],
  ['eth_getCode', 1],
  ['eth_getTransactionCount', 1],
  ['eth_getStorageAt', 2],
  ['eth_call', 1],
  ['eth_estimateGas', 1],
  ['eth_getProof', 2],
  ['eth_getBlockByNumber', 0],
  ['eth_getBlockReceipts', 0],
  ['eth_getBlockTransactionCountByNumber', 0],
  ['eth_getTransactionByBlockNumberAndIndex', 0],
]);

/** Reads of something the session may have seen: an endpoint behind the floor may not have it yet. */
const FLOOR_READS: ReadonlySet<string> = new Set([
  'eth_blockNumber',
  'eth_getTransactionReceipt',
  'eth_getTransactionByHash',
  'eth_getBlockByHash',
  'eth_getBlockTransactionCountByHash',
  'eth_getTransactionByBlockHashAndIndex',
]);

const HEX_QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;

/** The head a block reference needs: the floor for the head (or a block hash), N for a block N below it, none for the tags it does not constrain. */
function needOf(block: unknown, floor: bigint): bigint | undefined {
  if (block === undefined || block === 'latest') return floor;
  if (typeof block === 'string') {
    if (!HEX_QUANTITY.test(block)) return undefined;
    const number = BigInt(block);
    // A block hash (EIP-1898 also takes a bare 32-byte hash): it may be one the session saw.
    if (block.length === 66) return floor;
    return number < floor ? number : floor;
  }
  if (typeof block === 'object' && block !== null) {
    const { blockHash, blockNumber } = block as { readonly blockHash?: unknown; readonly blockNumber?: unknown };
    return blockHash !== undefined ? floor : needOf(blockNumber, floor);
  }
  return undefined;
}

/** The head an endpoint must have reached to serve `method(params)` without going older than `floor`; undefined when the floor does not constrain it. */
export function blockNeedOf(method: string, params: readonly unknown[], floor: bigint): bigint | undefined {
  const position = BLOCK_PARAM.get(method);
  if (position !== undefined) return needOf(params[position], floor);
  if (FLOOR_READS.has(method)) return floor;
  if (method !== 'eth_getLogs') return undefined;
  const filter = params[0];
  if (typeof filter !== 'object' || filter === null) return undefined;
  const { toBlock, blockHash } = filter as { readonly toBlock?: unknown; readonly blockHash?: unknown };
  return blockHash !== undefined ? floor : needOf(toBlock, floor);
}
