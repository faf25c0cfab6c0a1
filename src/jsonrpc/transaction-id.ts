import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils';
import { base58, base64 } from '@scure/base';

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

/** Encodings Solana's `sendTransaction` accepts for the wire transaction. */
export type SolanaWireEncoding = 'base64' | 'base58';

/** Bytes in one ed25519 signature. */
export const SOLANA_SIGNATURE_BYTES = 64;

/**
 * Decodes a compact-u16 ("short vec" length): up to 3 bytes, 7 bits each, little-endian,
 * high bit = continuation. Returns `undefined` for truncated, overlong, overflowing
 * (> 0xffff) or non-canonical encodings, matching the validator's decoder, which rejects
 * aliases such as `0x80 0x00` for 0.
 */
export function decodeCompactU16(
  bytes: Uint8Array,
  offset = 0,
): { readonly value: number; readonly size: number } | undefined {
  let value = 0;
  for (let size = 0; size < 3; size++) {
    const byte = bytes[offset + size];
    if (byte === undefined) return undefined;
    // A zero byte after the first one is an alias of a shorter encoding.
    if (size > 0 && byte === 0) return undefined;
    value |= (byte & 0x7f) << (7 * size);
    if ((byte & 0x80) === 0) {
      return value > 0xffff ? undefined : { value, size: size + 1 };
    }
  }
  // A continuation bit on the third byte: more than 16 bits.
  return undefined;
}

/** Decodes `encoded` as `encoding`, or `undefined` when it is not valid in that encoding. */
export function decodeSolanaWire(encoded: string, encoding: SolanaWireEncoding): Uint8Array | undefined {
  try {
    return encoding === 'base64' ? base64.decode(encoded) : base58.decode(encoded);
  } catch {
    return undefined;
  }
}

/**
 * The first signature of decoded wire bytes, base58-encoded, or `undefined` when the bytes
 * are malformed: a bad signature count, a count of 0, fewer bytes than the declared
 * signatures, or no message after them.
 */
export function solanaSignatureFromWireBytes(bytes: Uint8Array): string | undefined {
  const count = decodeCompactU16(bytes);
  if (count === undefined || count.value === 0) return undefined;
  const messageStart = count.size + count.value * SOLANA_SIGNATURE_BYTES;
  if (bytes.length <= messageStart) return undefined;
  return base58.encode(bytes.subarray(count.size, count.size + SOLANA_SIGNATURE_BYTES));
}

/**
 * The transaction id (base58 of the first signature) of an encoded Solana wire
 * transaction, or `undefined` when it does not decode or is malformed.
 *
 * ```ts
 * solanaSignatureFromWire(wireBase64, 'base64'); // '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnb…'
 * ```
 */
export function solanaSignatureFromWire(encoded: string, encoding: SolanaWireEncoding): string | undefined {
  const bytes = decodeSolanaWire(encoded, encoding);
  return bytes === undefined ? undefined : solanaSignatureFromWireBytes(bytes);
}

/**
 * The transaction id of a `sendTransaction` call from its JSON-RPC params
 * (`[encodedTx, { encoding? }]`). Solana's default encoding for `sendTransaction` is
 * base58 (deprecated but still the default); @solana/kit and this package's client send
 * `encoding: 'base64'` explicitly. Returns `undefined` for anything unreadable, including
 * an unknown encoding.
 */
export function solanaSignatureFromSendParams(params: readonly unknown[]): string | undefined {
  const encoded = params[0];
  if (typeof encoded !== 'string') return undefined;
  const config = params[1];
  let encoding: unknown = 'base58';
  if (typeof config === 'object' && config !== null && 'encoding' in config) {
    const declared = (config as { readonly encoding?: unknown }).encoding;
    if (declared !== undefined) encoding = declared;
  }
  if (encoding !== 'base64' && encoding !== 'base58') return undefined;
  return solanaSignatureFromWire(encoded, encoding);
}

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

/** The id of the transaction a send call carries, computed locally from its bytes. */
export type SentTransactionId =
  | { readonly field: 'signature'; readonly value: string }
  | { readonly field: 'transactionHash'; readonly value: string };

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

/** True when a send's `result` is its transaction's id (EVM hex compared without case). */
export function isSentTransactionId(id: SentTransactionId, result: unknown): boolean {
  if (typeof result !== 'string') return false;
  return id.field === 'signature' ? result === id.value : result.toLowerCase() === id.value;
}
