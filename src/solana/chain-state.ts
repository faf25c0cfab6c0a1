import { base64 } from '@scure/base';
import * as z from 'zod/mini';
import type { RequestOptions } from '../api/request-options.js';
import { assertSolanaAddress } from './address.js';
import { withContext } from './account-schemas.js';
import { invalidInput } from './inputs.js';
import { paramsWith, readConfig, type SolanaMethodContext, type SolanaReadParameters } from './method-context.js';
import { hash32Schema, parseResult, u64Schema } from './schemas.js';
import { isBase58OfLength, SOLANA_ADDRESS_BYTES } from './address.js';

/** Options of `getSlot`, `getBlockHeight`, `getLatestBlockhash`, `isBlockhashValid`, `getFeeForMessage`. */
export type GetSlotParameters = SolanaReadParameters;
export type GetBlockHeightParameters = SolanaReadParameters;
export type GetLatestBlockhashParameters = SolanaReadParameters;
export type IsBlockhashValidParameters = SolanaReadParameters;
export type GetFeeForMessageParameters = SolanaReadParameters;

/** Result of `getLatestBlockhash`. */
export interface GetLatestBlockhashReturnType {
  /** Slot at which it was read. */
  readonly slot: bigint;
  /** The blockhash (base58, 32 bytes) to sign transactions with. */
  readonly blockhash: string;
  /** The last block height at which a transaction using this blockhash can land. */
  readonly lastValidBlockHeight: bigint;
}
/** Result of `isBlockhashValid`. */
export interface IsBlockhashValidReturnType {
  readonly slot: bigint;
  readonly value: boolean;
}
/** One entry of `getRecentPrioritizationFees`. */
export interface PrioritizationFee {
  readonly slot: bigint;
  /** Micro-lamports per compute unit (u64, exact). */
  readonly prioritizationFee: bigint;
}
/** Result of `getFeeForMessage`: `value` is `null` when the message's blockhash has expired. */
export interface GetFeeForMessageReturnType {
  readonly slot: bigint;
  readonly value: bigint | null;
}

/** Typed reads of the chain's state: slots, heights, blockhashes and fees. */
export interface SolanaChainStateMethods {
  /** `getSlot` → u64. */
  getSlot(parameters?: GetSlotParameters, options?: RequestOptions): Promise<bigint>;
  /** `getBlockHeight` → u64. */
  getBlockHeight(parameters?: GetBlockHeightParameters, options?: RequestOptions): Promise<bigint>;
  /** `getLatestBlockhash` → `{ slot, blockhash, lastValidBlockHeight }`. */
  getLatestBlockhash(parameters?: GetLatestBlockhashParameters, options?: RequestOptions): Promise<GetLatestBlockhashReturnType>;
  /** `isBlockhashValid(blockhash)` → `{ slot, value }`. */
  isBlockhashValid(blockhash: string, parameters?: IsBlockhashValidParameters, options?: RequestOptions): Promise<IsBlockhashValidReturnType>;
  /** `getRecentPrioritizationFees` for up to 128 writable accounts (none: the whole cluster). */
  getRecentPrioritizationFees(addresses?: readonly string[], options?: RequestOptions): Promise<readonly PrioritizationFee[]>;
  /** `getFeeForMessage` of a compiled message (base64, no signatures) → lamports or `null`. */
  getFeeForMessage(message: string, parameters?: GetFeeForMessageParameters, options?: RequestOptions): Promise<GetFeeForMessageReturnType>;
}

/** The node's limit on `getRecentPrioritizationFees` addresses. */
export const MAX_PRIORITIZATION_FEE_ADDRESSES = 128;

const latestBlockhashSchema = withContext(z.object({ blockhash: hash32Schema, lastValidBlockHeight: u64Schema }));
const booleanWithContext = withContext(z.boolean());
const feesSchema = z.array(z.object({ slot: u64Schema, prioritizationFee: u64Schema }));
const feeForMessageSchema = withContext(z.nullable(u64Schema));

export function assertBlockhash(value: unknown, field = 'blockhash'): asserts value is string {
  if (!isBase58OfLength(value, SOLANA_ADDRESS_BYTES)) invalidInput(field, 'a base58 hash of 32 bytes');
}

export function createChainStateMethods(ctx: SolanaMethodContext): SolanaChainStateMethods {
  const { requester } = ctx;
  return {
    async getSlot(parameters = {}, options) {
      const result = await requester.request('getSlot', paramsWith([], readConfig(ctx, parameters)), options);
      return parseResult('getSlot', u64Schema, result);
    },

    async getBlockHeight(parameters = {}, options) {
      const result = await requester.request('getBlockHeight', paramsWith([], readConfig(ctx, parameters)), options);
      return parseResult('getBlockHeight', u64Schema, result);
    },

    async getLatestBlockhash(parameters = {}, options) {
      const result = await requester.request('getLatestBlockhash', paramsWith([], readConfig(ctx, parameters)), options);
      const parsed = parseResult('getLatestBlockhash', latestBlockhashSchema, result);
      return { slot: parsed.context.slot, ...parsed.value };
    },

    async isBlockhashValid(blockhash, parameters = {}, options) {
      assertBlockhash(blockhash);
      const result = await requester.request('isBlockhashValid', paramsWith([blockhash], readConfig(ctx, parameters)), options);
      const parsed = parseResult('isBlockhashValid', booleanWithContext, result);
      return { slot: parsed.context.slot, value: parsed.value };
    },

    async getRecentPrioritizationFees(addresses, options) {
      if (addresses !== undefined) {
        if (!Array.isArray(addresses) || addresses.length > MAX_PRIORITIZATION_FEE_ADDRESSES) {
          invalidInput('addresses', `an array of at most ${MAX_PRIORITIZATION_FEE_ADDRESSES} addresses`);
        }
        addresses.forEach((address, index) => assertSolanaAddress(address, `addresses.${index}`));
      }
      const params = addresses === undefined || addresses.length === 0 ? [] : [addresses];
      const result = await requester.request('getRecentPrioritizationFees', params, options);
      return parseResult('getRecentPrioritizationFees', feesSchema, result);
    },

    async getFeeForMessage(message, parameters = {}, options) {
      if (typeof message !== 'string' || message.length === 0) invalidInput('message', 'a base64 compiled message');
      let bytes: Uint8Array;
      try {
        bytes = base64.decode(message);
      } catch {
        return invalidInput('message', 'valid base64');
      }
      // A message starts with a 3-byte header and holds at least one key and a blockhash.
      if (bytes.length < 3 + 1 + 32 + 32) invalidInput('message', 'a compiled message (header, keys, blockhash)');
      const result = await requester.request('getFeeForMessage', paramsWith([message], readConfig(ctx, parameters)), options);
      const parsed = parseResult('getFeeForMessage', feeForMessageSchema, result);
      return { slot: parsed.context.slot, value: parsed.value };
    },
  };
}
