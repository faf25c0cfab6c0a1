/**
 * `sturdy-rpc/evm`: typed EVM calls over an `HttpTransportPool` (or any `RpcRequester`),
 * address and chain helpers.
 */
export {
  createEvmClient,
  type EvmBlockParameter,
  type EvmBlockTag,
  type EvmClient,
  type GetBalanceParameters,
  type GetBalanceReturnType,
  type GetBlockNumberReturnType,
  type GetChainIdReturnType,
  type GetGenesisHashReturnType,
  type GetHealthReturnType,
  type GetVersionReturnType,
  type SendRawTransactionReturnType,
} from './client.js';
export { assertEvmAddress, isEvmAddress } from './address.js';
export { EVM_GENESIS_HASHES, evmChainOf, type EvmChain } from './chains.js';
export type { RequestOptions, RpcRequester } from '../pool/request-options.js';
export { onNewHeads, onLogs, type EvmSubscriptions, type EvmHead, type EvmLog, type EvmLogFilter } from '../subscriptions/evm-helpers.js';
