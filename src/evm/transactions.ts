import * as z from 'zod/mini';
import { TransportError } from '../errors/transport-error.js';
import { integrityAskOf } from '../integrity/integrity-ask.js';
import type { RequestOptions } from '../api/request-options.js';
import { checkHash, invalidInput, type Hex } from './inputs.js';
import type { EvmMethodContext } from './method-context.js';
import { receiptSchema, transactionSchema, type EvmTransaction, type EvmTransactionReceipt } from './object-schemas.js';
import { hash32Schema, parseResult } from './schemas.js';

/** Result of `sendRawTransaction`: the transaction hash, lowercase `0x` + 64 hex digits. */
export type SendRawTransactionReturnType = `0x${string}`;

/** Typed transaction calls. */
export interface EvmTransactionMethods {
  /**
   * `eth_sendRawTransaction` of signed bytes (`0x` + even-length hex, non-empty; else
   * `INVALID_INPUT`, field `serializedTransaction`) → the transaction hash. The pool never
   * resends it once it may have reached a node; on `AMBIGUOUS_DISPATCH` check the receipt,
   * or use `sendAndWait`, which does.
   */
  sendRawTransaction(serializedTransaction: string, options?: RequestOptions): Promise<SendRawTransactionReturnType>;
  /** `eth_getTransactionReceipt` → the receipt, or `null` while not mined (or unknown). A receipt of another transaction is `INVALID_RESPONSE` (reason `integrity`, check `receipt-hash`). */
  getTransactionReceipt(hash: string, options?: RequestOptions): Promise<EvmTransactionReceipt | null>;
  /** `eth_getTransactionByHash` → the transaction (pending ones have `blockNumber: null`), or `null`. Another transaction is `INVALID_RESPONSE` (reason `integrity`, check `transaction-hash`). */
  getTransactionByHash(hash: string, options?: RequestOptions): Promise<EvmTransaction | null>;
}

const RAW_TRANSACTION = /^0x(?:[0-9a-fA-F]{2})+$/;

export function checkRawTransaction(value: unknown): Hex {
  if (typeof value !== 'string' || !RAW_TRANSACTION.test(value)) invalidInput('serializedTransaction', '0x and a non-empty, even number of hex digits');
  return value as Hex;
}

/**
 * `result`, unless it is about another transaction than the one asked for: a lie, never
 * evidence (`INVALID_RESPONSE`, reason `integrity`). A pool already refuses such
 * an answer and asks another endpoint; this catches it from any requester.
 */
export function aboutAsked(method: string, params: readonly unknown[], result: unknown): unknown {
  const check = integrityAskOf(method, params)?.verify(result, true);
  if (check === undefined) return result;
  throw new TransportError('INVALID_RESPONSE', `${method} answered about another transaction than the one asked for (integrity: ${check})`, {
    context: { reason: 'integrity', check },
    method,
  });
}

export function createTransactionMethods({ requester }: EvmMethodContext): EvmTransactionMethods {
  return {
    async sendRawTransaction(serializedTransaction, options) {
      const raw = checkRawTransaction(serializedTransaction);
      const result = await requester.request('eth_sendRawTransaction', [raw], options);
      return parseResult('eth_sendRawTransaction', hash32Schema, result);
    },

    async getTransactionReceipt(hash, options) {
      const params = [checkHash(hash, 'hash')];
      const result = await requester.request('eth_getTransactionReceipt', params, options);
      return parseResult('eth_getTransactionReceipt', z.nullable(receiptSchema), aboutAsked('eth_getTransactionReceipt', params, result));
    },

    async getTransactionByHash(hash, options) {
      const params = [checkHash(hash, 'hash')];
      const result = await requester.request('eth_getTransactionByHash', params, options);
      return parseResult('eth_getTransactionByHash', z.nullable(transactionSchema), aboutAsked('eth_getTransactionByHash', params, result));
    },
  };
}
