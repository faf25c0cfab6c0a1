import { TransportError } from '../errors/transport-error.js';

/** Solana commitment levels. */
export type SolanaCommitment = 'processed' | 'confirmed' | 'finalized';

const COMMITMENTS: readonly unknown[] = ['processed', 'confirmed', 'finalized'];

/** Throws `INVALID_INPUT` naming `field`; the message never echoes the value. */
export function invalidInput(field: string, expectation: string): never {
  throw new TransportError('INVALID_INPUT', `${field} must be ${expectation}`, { context: { field } });
}

/** Validates an optional commitment level. */
export function checkCommitment(value: unknown, field: string): SolanaCommitment | undefined {
  if (value === undefined) return undefined;
  if (!COMMITMENTS.includes(value)) invalidInput(field, "'processed', 'confirmed' or 'finalized'");
  return value as SolanaCommitment;
}

/**
 * Validates an optional slot-like integer (`minContextSlot`, `maxRetries`) and returns it as
 * a JSON-safe `number`: params go through `JSON.stringify`, which cannot write a `bigint`,
 * and every real slot stays below 2^53 for millennia.
 */
export function checkSafeUint(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'bigint' && value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(value);
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  return invalidInput(field, 'a non-negative integer below 2^53');
}

/** Validates an optional boolean flag. */
export function checkBoolean(value: unknown, field: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') invalidInput(field, 'a boolean');
  return value;
}

/**
 * Builds a JSON-RPC config object from the entries that are set, so that absent options
 * are omitted rather than sent as `null` (some nodes reject unknown nulls).
 */
export function compactConfig(entries: Record<string, unknown>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  let any = false;
  for (const [key, value] of Object.entries(entries)) {
    if (value !== undefined) {
      out[key] = value;
      any = true;
    }
  }
  return any ? out : undefined;
}
