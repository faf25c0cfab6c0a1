/**
 * Base58 (Bitcoin alphabet) for the request path: addresses, genesis hashes and signatures
 * are validated with it on every page, and a send's signature is read with it. A small decoder of our own rather than
 * `@scure/base`, whose codecs do not tree-shake apart (≈ 5 KB minified in a page that only
 * checks a base58 length); `@scure/base` stays where its other encodings are used (the
 * Solana client's wire transactions, account data). Same results as `base58` of `@scure/base` (test/jsonrpc/base58.test.ts compares them).
 */

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGIT_OF = new Map([...ALPHABET].map((char, digit) => [char, digit]));

/**
 * The bytes of base58 text, or `undefined` when a character is not in the alphabet. Leading
 * `1`s are leading zero bytes. Quadratic in the length: callers bound the length first.
 */
export function decodeBase58(text: string): Uint8Array | undefined {
  let zeros = 0;
  while (zeros < text.length && text[zeros] === '1') zeros++;
  // Little-endian base-256 digits of the value after the leading ones.
  const bytes: number[] = [];
  for (let i = zeros; i < text.length; i++) {
    let carry = DIGIT_OF.get(text[i]!);
    if (carry === undefined) return undefined;
    for (let j = 0; j < bytes.length; j++) {
      carry += bytes[j]! * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  const out = new Uint8Array(zeros + bytes.length);
  for (let k = 0; k < bytes.length; k++) out[out.length - 1 - k] = bytes[k]!;
  return out;
}

/** Base58 text of `bytes` (leading zero bytes are leading `1`s). */
export function encodeBase58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  // Little-endian base-58 digits of the value after the leading zeros.
  const digits: number[] = [];
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i]!;
    for (let j = 0; j < digits.length; j++) {
      carry += digits[j]! << 8;
      digits[j] = carry % 58;
      carry = (carry / 58) | 0;
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = (carry / 58) | 0;
    }
  }
  let text = '1'.repeat(zeros);
  for (let k = digits.length - 1; k >= 0; k--) text += ALPHABET[digits[k]!];
  return text;
}

/**
 * True when `value` is base58 text decoding to exactly `byteLength` bytes.
 * The length pre-check keeps hostile multi-megabyte strings away from base58's quadratic
 * decoder: 32 bytes are at most 44 characters, 64 bytes at most 88.
 */
export function isBase58OfLength(value: unknown, byteLength: number): value is string {
  if (typeof value !== 'string' || value.length === 0) return false;
  if (value.length > Math.ceil(byteLength * 1.37) + 1) return false;
  return decodeBase58(value)?.length === byteLength;
}
