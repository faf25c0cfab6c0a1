import * as z from 'zod/mini';
import { TransportError } from '../errors/transport-error.js';
import type { RequestOptions } from '../api/request-options.js';
import { blockParam, checkHash, invalidInput, quantity, type EvmBlockParameter, type Hex } from './inputs.js';
import type { EvmMethodContext } from './method-context.js';
import { blockSchema, feeHistorySchema, type EvmBlock, type EvmFeeHistory, type EvmTransaction } from './object-schemas.js';
import { parseResult, quantitySchema } from './schemas.js';

/** Options of `getBlockByNumber` / `getBlockByHash`. */
export interface GetBlockParameters {
  /** Full transactions instead of hashes. @default false */
  readonly includeTransactions?: boolean;
}

/** Typed reads of blocks and fees. */
export interface EvmBlockMethods {
  /** `eth_getBlockByNumber` → the block, or `null` when the node has none at that number. @default 'latest' */
  getBlockByNumber(block?: EvmBlockParameter, parameters?: GetBlockParameters, options?: RequestOptions): Promise<EvmBlock | null>;
  /** `eth_getBlockByHash` → the block, or `null` when the node does not know it. */
  getBlockByHash(hash: string, parameters?: GetBlockParameters, options?: RequestOptions): Promise<EvmBlock | null>;
  /**
   * `eth_feeHistory(blockCount, newestBlock, rewardPercentiles)`. Percentiles ascending in
   * [0, 100]; an answer whose lengths do not match the request is `INVALID_RESPONSE`.
   */
  feeHistory(
    blockCount: number | bigint,
    newestBlock?: EvmBlockParameter,
    rewardPercentiles?: readonly number[],
    options?: RequestOptions,
  ): Promise<EvmFeeHistory>;
  /** `eth_gasPrice` → wei (exact). */
  gasPrice(options?: RequestOptions): Promise<bigint>;
  /** `eth_maxPriorityFeePerGas` → wei (exact). */
  maxPriorityFeePerGas(options?: RequestOptions): Promise<bigint>;
}

export type { EvmBlock, EvmFeeHistory, EvmTransaction, Hex };

function includeTransactionsOf(parameters: GetBlockParameters): boolean {
  const value = parameters.includeTransactions ?? false;
  if (typeof value !== 'boolean') invalidInput('includeTransactions', 'a boolean');
  return value;
}

function checkPercentiles(value: unknown): readonly number[] {
  if (!Array.isArray(value) || value.length > 100) return invalidInput('rewardPercentiles', 'an array of at most 100 numbers');
  let previous = -1;
  for (const p of value) {
    if (typeof p !== 'number' || !(p >= 0 && p <= 100) || p < previous) invalidInput('rewardPercentiles', 'ascending numbers in [0, 100]');
    previous = p;
  }
  return value;
}

function mismatch(reason: string): never {
  throw new TransportError('INVALID_RESPONSE', `eth_feeHistory returned an invalid result (${reason})`, { context: { reason }, method: 'eth_feeHistory' });
}

export function createBlockMethods({ requester }: EvmMethodContext): EvmBlockMethods {
  return {
    async getBlockByNumber(block = 'latest', parameters = {}, options) {
      const full = includeTransactionsOf(parameters);
      const result = await requester.request('eth_getBlockByNumber', [blockParam(block, 'block'), full], options);
      return parseResult('eth_getBlockByNumber', z.nullable(blockSchema(full)), result);
    },

    async getBlockByHash(hash, parameters = {}, options) {
      const full = includeTransactionsOf(parameters);
      const result = await requester.request('eth_getBlockByHash', [checkHash(hash, 'hash'), full], options);
      return parseResult('eth_getBlockByHash', z.nullable(blockSchema(full)), result);
    },

    async feeHistory(blockCount, newestBlock = 'latest', rewardPercentiles = [], options) {
      const count = quantity(blockCount, 'blockCount');
      const percentiles = checkPercentiles(rewardPercentiles);
      const result = await requester.request('eth_feeHistory', [count, blockParam(newestBlock, 'newestBlock'), percentiles], options);
      const history = parseResult('eth_feeHistory', feeHistorySchema, result);
      // Nodes may return fewer blocks than asked (near genesis), never more; base fees have one extra entry.
      const blocks = history.gasUsedRatio.length;
      if (BigInt(blocks) > BigInt(count)) mismatch('gasUsedRatio: too_big');
      if (blocks > 0 && history.baseFeePerGas.length !== blocks + 1) mismatch('baseFeePerGas: length');
      if (percentiles.length > 0 && blocks > 0) {
        if (history.reward === undefined || history.reward.length !== blocks) mismatch('reward: length');
        if (history.reward.some((row) => row.length !== percentiles.length)) mismatch('reward: percentiles');
      }
      return history;
    },

    async gasPrice(options) {
      return parseResult('eth_gasPrice', quantitySchema, await requester.request('eth_gasPrice', [], options));
    },

    async maxPriorityFeePerGas(options) {
      return parseResult('eth_maxPriorityFeePerGas', quantitySchema, await requester.request('eth_maxPriorityFeePerGas', [], options));
    },
  };
}
