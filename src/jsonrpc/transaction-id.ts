import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils';
import type { SentTransactionId } from './answer-ids.js';
import { solanaSignatureFromSendParams } from './solana-wire.js';

export { decodeCompactU16, SOLANA_SIGNATURE_BYTES } from './solana-wire-layout.js';
export { decodeSolanaWire, solanaSignatureFromSendParams, solanaSignatureFromWire, solanaSignatureFromWireBytes, type SolanaWireEncoding } from './solana-wire.js';
export { isSentTransactionId, type SentTransactionId } from './answer-ids.js';

/**
 * Reading the transaction id of a send from its params: the signature of a Solana wire
 * transaction, the hash of a signed EVM transaction.
 *
 * This module is chain-specific but lives in `jsonrpc/` because the pool attaches the id
 * to `AMBIGUOUS_DISPATCH` errors, and looks it up when `reconcileSends` is on.
 *
 * Wire layout: a compact-u16 signature count, `count` signatures of 64 bytes, then the
 * message. The transaction id is the base58 of the first signature.
 */

const RAW_TRANSACTION_HEX = /^0x(?:[0-9a-fA-F]{2})+$/;

/**
 * The transaction hash of an `eth_sendRawTransaction` call from its params (`[rawTx]`):
 * keccak-256 of the signed transaction bytes, as `0x` + 64 lowercase hex digits — what a
 * node answers. `undefined` when the param is not an even-length `0x` hex string.
 */
export function evmTransactionHashFromSendParams(params: readonly unknown[]): string | undefined {
  const raw = params[0];
  if (typeof raw !== 'string' || !RAW_TRANSACTION_HEX.test(raw)) return undefined;
  return `0x${bytesToHex(keccak_256(hexToBytes(raw.slice(2))))}`;
}

/**
 * The transaction id a node must answer a send with: Solana `sendTransaction` → the
 * first signature (base58), EVM `eth_sendRawTransaction` → keccak-256 of the raw bytes.
 * `undefined` for other methods and for params no id can be read from.
 */
export function sentTransactionIdOf(method: string, params: readonly unknown[]): SentTransactionId | undefined {
  if (method === 'sendTransaction') {
    const value = solanaSignatureFromSendParams(params);
    return value === undefined ? undefined : { field: 'signature', value };
  }
  if (method === 'eth_sendRawTransaction') {
    const value = evmTransactionHashFromSendParams(params);
    return value === undefined ? undefined : { field: 'transactionHash', value };
  }
  return undefined;
}
