/**
 * The layout of a Solana wire transaction, without the decoders: what response schemas and
 * the message reader need (a page that reads a balance imports these, never the hashing of
 * `transaction-id.ts`, which loads on the first send).
 */

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
