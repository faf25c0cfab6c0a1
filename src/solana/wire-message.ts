import { base58 } from '@scure/base';
import { decodeCompactU16, SOLANA_SIGNATURE_BYTES } from '../jsonrpc/solana-wire-layout.js';
import { SOLANA_ADDRESS_BYTES } from './address.js';

/** Bit that marks a versioned message (v0 and later); legacy messages start with the header. */
const VERSION_PREFIX = 0x80;
const HEADER_BYTES = 3;

/**
 * The recent blockhash (base58) a signed wire transaction commits to, read from its
 * message: signatures, then `[version prefix]`, a 3-byte header, the account keys and the
 * blockhash. `undefined` for bytes that do not hold a complete one.
 */
export function blockhashFromWireBytes(bytes: Uint8Array): string | undefined {
  const count = decodeCompactU16(bytes);
  if (count === undefined || count.value === 0) return undefined;
  let offset = count.size + count.value * SOLANA_SIGNATURE_BYTES;
  const first = bytes[offset];
  if (first === undefined) return undefined;
  if ((first & VERSION_PREFIX) !== 0) offset += 1;
  offset += HEADER_BYTES;
  const keys = decodeCompactU16(bytes, offset);
  if (keys === undefined) return undefined;
  offset += keys.size + keys.value * SOLANA_ADDRESS_BYTES;
  if (bytes.length < offset + SOLANA_ADDRESS_BYTES) return undefined;
  return base58.encode(bytes.subarray(offset, offset + SOLANA_ADDRESS_BYTES));
}
