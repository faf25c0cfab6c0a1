/**
 * `sturdy-rpc/evm`: typed EVM calls over an `HttpTransportPool` (or any `RpcRequester`),
 * send-and-wait, `getLogs` range splitting, address and chain helpers.
 *
 * @module sturdy-rpc/evm
 */
export { getBalance } from './get-balance.js';
export {
  createEvmClient,
  type EvmClient,
  type EvmClientDefaults,
  type GetBalanceParameters,
  type GetBalanceReturnType,
  type GetBlockNumberReturnType,
  type GetChainIdReturnType,
  type GetGenesisHashReturnType,
  type GetHealthReturnType,
  type GetVersionReturnType,
} from './client.js';
export type { EvmBlockParameter, EvmBlockTag, EvmCallRequest, Hex } from './inputs.js';
export type { EvmStateMethods } from './state.js';
export type { EvmTransactionMethods, SendRawTransactionReturnType } from './transactions.js';
export type { EvmBlockMethods, GetBlockParameters } from './blocks.js';
export { DEFAULT_GET_LOGS_TIMEOUT_MS, type EvmLogFilter, type EvmLogMethods, type GetLogsParameters } from './logs.js';
export { logRangeLimitOf, type LogRangeLimit } from './log-range-error.js';
export type { EvmBlock, EvmFeeHistory, EvmLog, EvmTransaction, EvmTransactionReceipt } from './object-schemas.js';
export {
  DEFAULT_RECEIPT_POLL,
  DEFAULT_SEND_AND_WAIT_TIMEOUT_MS,
  sendAndWait,
  type SendAndWaitOptions,
  type SendAndWaitReturnType,
  type SendDispatch,
} from './send-and-wait.js';
export type { PollSchedule } from '../retry/poll-schedule.js';
export { assertEvmAddress, isEvmAddress } from './address.js';
export { EVM_GENESIS_HASHES, evmChainOf, type EvmChain } from './chains.js';
export type { RequestOptions, RpcRequester } from '../api/request-options.js';
export {
  onNewHeads,
  onLogs,
  type EvmSubscriptions,
  type EvmHead,
  type EvmLog as EvmLogNotification,
  type EvmLogFilter as EvmLogSubscriptionFilter,
} from '../subscriptions/evm-helpers.js';
