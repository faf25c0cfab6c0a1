import { isBase58OfLength } from '../jsonrpc/base58.js';
import { TransportError } from '../errors/transport-error.js';

export { isBase58OfLength };

/** Bytes in a Solana public key (account address) and in a blockhash / genesis hash. */
export const SOLANA_ADDRESS_BYTES = 32;

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
