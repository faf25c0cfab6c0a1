import { TransportError } from '../errors/transport-error.js';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * True when `value` is an EVM address: `0x` and 40 hex digits, in any case.
 *
 * Mixed-case (EIP-55) checksums are accepted but **not verified**: verifying needs
 * keccak-256, which neither the Web Crypto API nor Node's `crypto` provides portably, and
 * this package keeps no keccak dependency. Callers that take addresses from people should
 * verify the checksum with their own library (viem `isAddress`, ethers `getAddress`).
 */
export function isEvmAddress(value: unknown): value is `0x${string}` {
  return typeof value === 'string' && ADDRESS.test(value);
}

/**
 * Throws `TransportError` `INVALID_INPUT` (context `{ field }`) unless `value` is an EVM
 * address (see {@link isEvmAddress}). The message never echoes the value.
 */
export function assertEvmAddress(value: unknown, field = 'address'): asserts value is `0x${string}` {
  if (!isEvmAddress(value)) {
    throw new TransportError('INVALID_INPUT', `${field} is not an EVM address (0x and 40 hex digits)`, {
      context: { field },
    });
  }
}
