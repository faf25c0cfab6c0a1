import { base58, base64 } from '@scure/base';
import { decodeCompactU16, SOLANA_SIGNATURE_BYTES } from './solana-wire-layout.js';

/**
 * Reading a Solana wire transaction's id (the base58 of its first signature) from its encoded
 * bytes. Apart from `transaction-id.ts` (keccak-256 for EVM sends), so that the Solana client,
 * which imports these, does not bring the EVM hashing into a page (base58 is there already:
 * addresses are checked with it).
 */

/** Encodings Solana's `sendTransaction` accepts for the wire transaction. */
export type SolanaWireEncoding = 'base64' | 'base58';

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
