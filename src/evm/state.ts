import type { RequestOptions } from '../api/request-options.js';
import { assertEvmAddress } from './address.js';
import { blockParam, callRequestParam, type EvmBlockParameter, type EvmCallRequest, type Hex } from './inputs.js';
import type { EvmMethodContext } from './method-context.js';
import { hexDataSchema } from './object-schemas.js';
import { parseResult, quantitySchema } from './schemas.js';

/** Typed reads of account and contract state. */
export interface EvmStateMethods {
  /** `eth_call` → the returned bytes. A revert is `RPC_ERROR` (code 3, revert data in `rpcData`). @default block 'latest' */
  call(request: EvmCallRequest, block?: EvmBlockParameter, options?: RequestOptions): Promise<Hex>;
  /** `eth_estimateGas` → gas units (exact). Without `block` none is sent (some nodes reject one). */
  estimateGas(request: EvmCallRequest, block?: EvmBlockParameter, options?: RequestOptions): Promise<bigint>;
  /** `eth_getTransactionCount`: the next nonce; `'pending'` counts transactions in the node's pool. @default 'latest' */
  getTransactionCount(address: string, block?: EvmBlockParameter, options?: RequestOptions): Promise<bigint>;
  /** `eth_getCode` → the contract's bytecode (`0x` for an account without code). @default 'latest' */
  getCode(address: string, block?: EvmBlockParameter, options?: RequestOptions): Promise<Hex>;
}

export function createStateMethods({ requester }: EvmMethodContext): EvmStateMethods {
  return {
    async call(request, block = 'latest', options) {
      const params = [callRequestParam(request, true), blockParam(block)];
      return parseResult('eth_call', hexDataSchema, await requester.request('eth_call', params, options));
    },

    async estimateGas(request, block, options) {
      const tx = callRequestParam(request, false);
      const params = block === undefined ? [tx] : [tx, blockParam(block)];
      return parseResult('eth_estimateGas', quantitySchema, await requester.request('eth_estimateGas', params, options));
    },

    async getTransactionCount(address, block = 'latest', options) {
      assertEvmAddress(address, 'address');
      const params = [address, blockParam(block)];
      return parseResult('eth_getTransactionCount', quantitySchema, await requester.request('eth_getTransactionCount', params, options));
    },

    async getCode(address, block = 'latest', options) {
      assertEvmAddress(address, 'address');
      return parseResult('eth_getCode', hexDataSchema, await requester.request('eth_getCode', [address, blockParam(block)], options));
    },
  };
}
