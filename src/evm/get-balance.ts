/**
 * `getBalance` on its own, for pages that make one call: importing it from `sturdy-rpc/evm`
 * does not bring the client's other methods, their inputs and response schemas into the
 * bundle (`createEvmClient` holds every method, so a bundler keeps them all).
 */
import type { RequestOptions, RpcRequester } from '../api/request-options.js';
import { assertEvmAddress } from './address.js';
import { blockParam, type EvmBlockParameter } from './inputs.js';
import { parseResult, quantitySchema } from './schemas.js';

/** Options of `getBalance`: the block to read at. @default 'latest' */
export type GetBalanceParameters = EvmBlockParameter;
/** Result of `getBalance`: wei, exact. */
export type GetBalanceReturnType = bigint;

/**
 * `eth_getBalance` → wei as an exact `bigint`. The address (`0x` + 40 hex, any case, EIP-55
 * checksum not verified) and block are validated before anything is sent (`INVALID_INPUT`).
 *
 * ```ts
 * const wei = await getBalance(pool, '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
 * ```
 */
export async function getBalance(requester: RpcRequester, address: string, blockTag: GetBalanceParameters = 'latest', options?: RequestOptions): Promise<GetBalanceReturnType> {
  assertEvmAddress(address, 'address');
  const block = blockParam(blockTag);
  const result = await requester.request('eth_getBalance', [address, block], options);
  return parseResult('eth_getBalance', quantitySchema, result);
}
