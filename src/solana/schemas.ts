import * as z from 'zod/mini';
import { SOLANA_SIGNATURE_BYTES } from '../jsonrpc/solana-wire-layout.js';
import { isBase58OfLength, SOLANA_ADDRESS_BYTES } from './address.js';

/** Largest u64. */
export const U64_MAX = 18_446_744_073_709_551_615n;

/**
 * A u64 as delivered by the pool's parser: a safe-integer `number` or, above 2^53, an exact
 * `bigint`. Always yields a `bigint`. A `number` outside the safe range is rejected: it may
 * already have lost precision, and a lamport amount must never be rounded.
 */
export const u64Schema = z.pipe(
  z.pipe(
    z.union([z.number().check(z.int(), z.nonnegative()), z.bigint()]),
    z.transform((value: number | bigint) => BigInt(value)),
  ),
  z.bigint().check(z.minimum(0n), z.maximum(U64_MAX)),
);

/** `getHealth` result: the literal `"ok"` (an unhealthy node answers with error -32005). */
export const healthResultSchema = z.literal('ok');

/** `getVersion` result. `feature-set` is a u32 and may be absent or null on some nodes. */
export const versionResultSchema = z.object({
  'solana-core': z.string().check(z.minLength(1)),
  'feature-set': z.nullish(z.number().check(z.int(), z.minimum(0), z.maximum(0xffff_ffff))),
});

/** A base58 hash of 32 bytes (genesis hash, blockhash). */
export const hash32Schema = z.string().check(
  z.refine((value) => isBase58OfLength(value, SOLANA_ADDRESS_BYTES), { message: 'expected base58 of 32 bytes' }),
);

/** A base58 transaction signature of 64 bytes. */
export const signatureSchema = z.string().check(
  z.refine((value) => isBase58OfLength(value, SOLANA_SIGNATURE_BYTES), { message: 'expected base58 of 64 bytes' }),
);

/** `getBalance` result: `{ context: { slot, apiVersion? }, value }`, both u64. */
export const balanceResultSchema = z.object({
  context: z.object({ slot: u64Schema, apiVersion: z.optional(z.string()) }),
  value: u64Schema,
});

export { parseResult } from '../jsonrpc/parse-result.js';
