import * as z from 'zod/mini';
import { transformed } from '../jsonrpc/transformed.js';

/**
 * A JSON-RPC quantity: `0x` and hex digits, parsed exactly with `BigInt`. Leading zeros
 * (which the spec forbids) are tolerated because some nodes emit them; `0x` alone is not.
 * Capped at 1 024 digits so a hostile node cannot make us build a huge integer.
 */
export const quantitySchema = transformed(z.string().check(z.regex(/^0x[0-9a-fA-F]{1,1024}$/, { message: 'expected a 0x quantity' })), (value) => BigInt(value));

/** A 32-byte hash as `0x` and 64 hex digits, normalised to lowercase. */
export const hash32Schema = transformed(z.string().check(z.regex(/^0x[0-9a-fA-F]{64}$/, { message: 'expected 0x and 64 hex digits' })), (value) => value.toLowerCase() as `0x${string}`);

/** `eth_syncing` result: `false`, or an object with (at least) current and highest block. */
export const syncingResultSchema = z.union([
  z.literal(false),
  z.object({
    startingBlock: z.optional(quantitySchema),
    currentBlock: z.optional(quantitySchema),
    highestBlock: z.optional(quantitySchema),
  }),
]);

/** `web3_clientVersion` result. */
export const clientVersionSchema = z.string().check(z.minLength(1));

/** `eth_getBlockByNumber` result, of which only the hash is used (null fails: block 0 exists). */
export const blockHashOnlySchema = z.object({ hash: hash32Schema });

export { parseResult } from '../jsonrpc/parse-result.js';
