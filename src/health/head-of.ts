/**
 * Heads read from answers an endpoint already gives (passive tracking: no request of its
 * own). Runs on every successful answer, so it reads a property or two and allocates
 * nothing for the answers that carry no head.
 *
 * - Solana: `context.slot` of every `RpcResponse` (getBalance, getAccountInfo,
 *   getLatestBlockhash, …) and `getSlot`. `getBlockHeight` is not tracked: a block height
 *   is not a slot (≈ 5 % lower), and some providers answer it with the slot.
 * - EVM: `eth_blockNumber`, and `eth_getBlockByNumber('latest')`'s `number`.
 *
 * And, apart from the head: the block an EVM receipt or fetched block proves the node has
 * ({@link provenBlockOf}) — a lower bound of its head, never the head itself (an old receipt
 * says nothing of how far the node is now).
 */
import type { HeadQuantity } from './config.js';

/** A head as the answer gave it: a JSON number or bigint (Solana) or a hex quantity (EVM). */
export interface RawHead {
  readonly quantity: HeadQuantity;
  readonly raw: number | bigint | string;
}

const HEX_QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;

function slotHead(value: unknown): RawHead | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? { quantity: 'slot', raw: value } : undefined;
  if (typeof value === 'bigint') return value >= 0n ? { quantity: 'slot', raw: value } : undefined;
  return undefined;
}

/** The string is checked only when it differs from the endpoint's last head ({@link isHeadValue}): most answers repeat it. */
function blockHead(value: unknown): RawHead | undefined {
  return typeof value === 'string' ? { quantity: 'block', raw: value } : undefined;
}

/** A head value as an answer may carry it: a safe non-negative integer, a bigint, or a hex quantity. */
export function isHeadValue(raw: number | bigint | string): boolean {
  return typeof raw === 'string' ? HEX_QUANTITY.test(raw) : true;
}

/** The head an answer reveals, or undefined (most answers). */
export function headOfAnswer(method: string, params: readonly unknown[], result: unknown): RawHead | undefined {
  if (typeof result === 'object' && result !== null) {
    const context = (result as { readonly context?: unknown }).context;
    if (typeof context === 'object' && context !== null) return slotHead((context as { readonly slot?: unknown }).slot);
    if (method === 'eth_getBlockByNumber' && params[0] === 'latest') return blockHead((result as { readonly number?: unknown }).number);
    return undefined;
  }
  if (method === 'getSlot') return slotHead(result);
  if (method === 'eth_blockNumber') return blockHead(result);
  return undefined;
}

/** A head value as an exact bigint. */
export function headValue(raw: number | bigint | string): bigint {
  return typeof raw === 'bigint' ? raw : BigInt(raw);
}

const numberField = (result: object, field: 'blockNumber' | 'number'): string | undefined => {
  const value = (result as Readonly<Record<string, unknown>>)[field];
  return typeof value === 'string' && HEX_QUANTITY.test(value) ? value : undefined;
};

/** The block (hex) an EVM receipt or block answer proves its node has: a receipt's `blockNumber`, a block's `number`; else undefined. */
export function provenBlockOf(method: string, result: object): string | undefined {
  if (method === 'eth_getTransactionReceipt') return numberField(result, 'blockNumber');
  if (method === 'eth_getBlockByNumber' || method === 'eth_getBlockByHash') return numberField(result, 'number');
  return undefined;
}
