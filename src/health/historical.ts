/**
 * Which reads target historical data, and what their answers teach about a node's archive.
 *
 * - `state` (EVM): `eth_getBalance`, `eth_call`, `eth_getCode`, `eth_getStorageAt`,
 *   `eth_getTransactionCount` at a block `historicalDepth` or more below the reference tip,
 *   at `earliest`, or at a block hash (EIP-1898 objects included). A full node keeps only
 *   the state of recent blocks (geth: 128).
 * - `ledger` (Solana): `getBlock` and `getTransaction` — a node serves only slots from its
 *   first available block on (a few days without long-term storage).
 *
 * A read proves a node archival only when it provably reached old data (a block number at
 * least `historicalDepth` below the tip; for Solana, a slot more than an epoch old): a
 * success on `latest` or on a hash that may be recent proves nothing (PATH's IsArchival bug
 * filled its archival pool by construction).
 */

export type HistoricalClass = 'state' | 'ledger';

/** A historical read: its class, and whether a success would prove the node archival. */
export interface HistoricalRead {
  readonly class: HistoricalClass;
  /** The block or slot it targets when known (numbers only). */
  readonly target: bigint | undefined;
  readonly provesArchival: boolean;
}

/** Position of the block parameter of each EVM state read. */
const STATE_BLOCK_PARAM: ReadonlyMap<string, number> = new Map([
  ['eth_getBalance', 1],
  ['eth_getCode', 1],
  ['eth_getTransactionCount', 1],
  ['eth_getStorageAt', 2],
  ['eth_call', 1],
]);
const LEDGER_METHODS: ReadonlySet<string> = new Set(['getBlock', 'getTransaction']);
const HEX_QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;
const BLOCK_HASH = /^0x[0-9a-fA-F]{64}$/;
/** A Solana slot older than one epoch (432 000 slots, ≈ 2 days) is beyond what a node without long-term storage usually keeps. */
export const SOLANA_LEDGER_DEPTH_SLOTS = 432_000n;

export interface Tips {
  readonly block: bigint | undefined;
  readonly slot: bigint | undefined;
}

/** Whether `method` may read historical data at all (one lookup; the hot path asks this first). */
export function mayReadHistory(method: string): boolean {
  return STATE_BLOCK_PARAM.has(method) || LEDGER_METHODS.has(method);
}

/** The historical class of a read, or undefined (most calls: one map lookup). */
export function historicalReadOf(method: string, params: readonly unknown[], tips: Tips, historicalDepth: number): HistoricalRead | undefined {
  const position = STATE_BLOCK_PARAM.get(method);
  if (position !== undefined) return stateRead(params[position], tips.block, BigInt(historicalDepth));
  if (!LEDGER_METHODS.has(method)) return undefined;
  const slot = method === 'getBlock' ? asSlot(params[0]) : undefined;
  const provesArchival = slot !== undefined && tips.slot !== undefined && slot + SOLANA_LEDGER_DEPTH_SLOTS < tips.slot;
  return { class: 'ledger', target: slot, provesArchival };
}

function stateRead(block: unknown, tip: bigint | undefined, depth: bigint): HistoricalRead | undefined {
  if (block === 'earliest') return { class: 'state', target: 0n, provesArchival: tip !== undefined && depth <= tip };
  if (typeof block === 'object' && block !== null) {
    const { blockHash, blockNumber } = block as { readonly blockHash?: unknown; readonly blockNumber?: unknown };
    if (typeof blockHash === 'string' && BLOCK_HASH.test(blockHash)) return { class: 'state', target: undefined, provesArchival: false };
    return stateRead(blockNumber, tip, depth);
  }
  if (typeof block === 'string' && BLOCK_HASH.test(block)) return { class: 'state', target: undefined, provesArchival: false };
  if (typeof block !== 'string' || !HEX_QUANTITY.test(block) || tip === undefined) return undefined;
  const number = BigInt(block);
  return number + depth <= tip ? { class: 'state', target: number, provesArchival: true } : undefined;
}

function asSlot(value: unknown): bigint | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'bigint' && value >= 0n) return value;
  return undefined;
}

/** Solana codes that say "this node does not hold that part of the ledger". */
const LEDGER_MISSING_CODES: ReadonlySet<number> = new Set([-32004, -32009, -32011]);
/** EVM wording for pruned state: geth hash-based ("missing trie node") and path-based ("metadata is not found") schemes, and common variants. */
const PRUNED_STATE = /missing trie node|metadata is not found|state has been pruned|is pruned|state not available|historical state/i;

/**
 * Whether a failed historical read says the node does not keep that history. `-32004`
 * ("block not available") also answers a slot too new to be served yet, so for a slot read
 * it teaches only when the slot is provably old.
 */
export function isPrunedAnswer(read: HistoricalRead, rpcCode: number | undefined, rpcMessage: string | undefined): boolean {
  if (read.class === 'ledger') {
    if (rpcCode === undefined || !LEDGER_MISSING_CODES.has(rpcCode)) return false;
    return rpcCode !== -32004 || read.target === undefined || read.provesArchival;
  }
  return rpcMessage !== undefined && PRUNED_STATE.test(rpcMessage.length > 2048 ? rpcMessage.slice(0, 2048) : rpcMessage);
}
