import { base58 } from '@scure/base';

/**
 * True when `value` is base58 text decoding to exactly `byteLength` bytes.
 * The length pre-check keeps hostile multi-megabyte strings away from base58's quadratic
 * decoder: 32 bytes are at most 44 characters, 64 bytes at most 88.
 */
export function isBase58OfLength(value: unknown, byteLength: number): value is string {
  if (typeof value !== 'string' || value.length === 0) return false;
  if (value.length > Math.ceil(byteLength * 1.37) + 1) return false;
  try {
    return base58.decode(value).length === byteLength;
  } catch {
    return false;
  }
}
