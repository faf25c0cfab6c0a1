import { base58 } from '@scure/base';
import { TransportError } from '../errors/transport-error.js';

/** Bytes in a Solana public key (account address) and in a blockhash / genesis hash. */
export const SOLANA_ADDRESS_BYTES = 32;

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

/** True when `value` is a Solana address: base58 text decoding to exactly 32 bytes. */
export function isSolanaAddress(value: unknown): value is string {
  return isBase58OfLength(value, SOLANA_ADDRESS_BYTES);
}

/**
 * Throws `TransportError` `INVALID_INPUT` (context `{ field }`) unless `value` is a Solana
 * address. The message never echoes the value.
 */
export function assertSolanaAddress(value: unknown, field = 'address'): asserts value is string {
  if (!isSolanaAddress(value)) {
    throw new TransportError('INVALID_INPUT', `${field} is not a base58 Solana address of 32 bytes`, {
      context: { field },
    });
  }
}
