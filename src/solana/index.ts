/**
 * `sturdy-rpc/solana`: typed Solana calls over an `HttpTransportPool` (or any
 * `RpcRequester`), send-and-confirm, address and cluster helpers, and transaction-id extraction.
 *
 * @module sturdy-rpc/solana
 */
export { getBalance } from './get-balance.js';
export {
  createSolanaClient,
  type GetBalanceParameters,
  type GetBalanceReturnType,
  type GetGenesisHashReturnType,
  type GetVersionReturnType,
  type SolanaClient,
  type SolanaClientDefaults,
} from './client.js';
export {
  MAX_MULTIPLE_ACCOUNTS,
  type GetAccountInfoParameters,
  type Base64Encoding,
  type GetAccountInfoReturnType,
  type GetMultipleAccountsParameters,
  type GetMultipleAccountsReturnType,
  type GetProgramAccountsParameters,
  type GetProgramAccountsReturnType,
  type GetTokenAccountBalanceReturnType,
  type GetTokenAccountsByOwnerParameters,
  type GetTokenAccountsByOwnerReturnType,
  type SolanaAccountMethods,
  type TokenAccountsFilter,
} from './accounts.js';
export {
  MAX_MEMCMP_BYTES,
  MAX_PROGRAM_ACCOUNT_FILTERS,
  type AccountEncoding,
  type DataSlice,
  type ProgramAccountsFilter,
} from './account-inputs.js';
export { SOLANA_MAX_ACCOUNT_DATA_BYTES, type AccountData, type ParsedAccountData } from './account-data.js';
export type { AccountInfo, KeyedAccountInfo } from './account-schemas.js';
export {
  MAX_PRIORITIZATION_FEE_ADDRESSES,
  type GetBlockHeightParameters,
  type GetFeeForMessageParameters,
  type GetFeeForMessageReturnType,
  type GetLatestBlockhashParameters,
  type GetLatestBlockhashReturnType,
  type GetSlotParameters,
  type IsBlockhashValidParameters,
  type IsBlockhashValidReturnType,
  type PrioritizationFee,
  type SolanaChainStateMethods,
} from './chain-state.js';
export {
  MAX_SIGNATURE_STATUSES,
  type GetSignatureStatusesParameters,
  type GetSignatureStatusesReturnType,
  type GetTransactionParameters,
  type GetTransactionReturnType,
  type SendTransactionParameters,
  type SendTransactionReturnType,
  type SimulateTransactionParameters,
  type SimulateTransactionReturnType,
  type SolanaTransactionMethods,
} from './transactions.js';
export type { SignatureStatus, SolanaTransactionError, TransactionMeta } from './transaction-schemas.js';
export type { SolanaReadParameters } from './method-context.js';
export { DEFAULT_CONFIRM_TIMEOUT_MS, waitForSignature, type WaitForSignatureOptions } from './wait-for-signature.js';
export type { WaitForSignatureReturnType } from './wait-outcome.js';
export { sendAndConfirm, type SendAndConfirmOptions, type SendAndConfirmReturnType } from './send-and-confirm.js';
export { DEFAULT_SIGNATURE_POLL, type SignaturePollSchedule } from './confirmation.js';
export { blockhashFromWireBytes } from './wire-message.js';
export { SOLANA_NODE_UNHEALTHY, type GetHealthReturnType } from './health.js';
export type { SolanaCommitment } from './inputs.js';
export { assertSolanaAddress, isSolanaAddress, SOLANA_ADDRESS_BYTES } from './address.js';
export { SOLANA_GENESIS_HASHES, solanaClusterOf, type SolanaCluster } from './clusters.js';
export { U64_MAX } from './schemas.js';
export {
  solanaSignatureFromSendParams,
  solanaSignatureFromWire,
  type SolanaWireEncoding,
} from '../jsonrpc/solana-wire.js';
export type { RequestOptions, RpcRequester } from '../api/request-options.js';
export {
  onSlot,
  onAccountChange,
  onProgramAccountChange,
  onLogs,
  onSignature,
  type SolanaSubscriptions,
  type SlotNotification,
  type AccountInfo as AccountNotificationInfo,
  type AccountChangeNotification,
  type ProgramAccountChangeNotification,
  type LogsNotification,
  type LogsFilter,
  type AccountEncoding as SubscriptionAccountEncoding,
  type AccountSubscribeParameters,
  type ProgramSubscribeParameters,
  type OnSignatureParameters,
  type SignatureConfirmation,
} from '../subscriptions/solana-helpers.js';
