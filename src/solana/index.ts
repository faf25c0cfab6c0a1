/**
 * `sturdy-rpc/solana`: typed Solana calls over an `HttpTransportPool` (or any
 * `RpcRequester`), address and cluster helpers, and transaction-id extraction.
 */
export {
  createSolanaClient,
  type GetBalanceParameters,
  type GetBalanceReturnType,
  type GetGenesisHashReturnType,
  type GetVersionReturnType,
  type SendTransactionParameters,
  type SendTransactionReturnType,
  type SolanaClient,
  type SolanaClientDefaults,
} from './client.js';
export { SOLANA_NODE_UNHEALTHY, type GetHealthReturnType } from './health.js';
export type { SolanaCommitment } from './inputs.js';
export { assertSolanaAddress, isSolanaAddress, SOLANA_ADDRESS_BYTES } from './address.js';
export { SOLANA_GENESIS_HASHES, solanaClusterOf, type SolanaCluster } from './clusters.js';
export { U64_MAX } from './schemas.js';
export {
  solanaSignatureFromSendParams,
  solanaSignatureFromWire,
  type SolanaWireEncoding,
} from '../jsonrpc/transaction-id.js';
export type { RequestOptions, RpcRequester } from '../pool/request-options.js';
export {
  onSlot,
  onAccountChange,
  onProgramAccountChange,
  onLogs,
  onSignature,
  type SolanaSubscriptions,
  type SlotNotification,
  type AccountInfo,
  type AccountChangeNotification,
  type ProgramAccountChangeNotification,
  type LogsNotification,
  type LogsFilter,
  type AccountEncoding,
  type AccountSubscribeParameters,
  type ProgramSubscribeParameters,
  type OnSignatureParameters,
  type SignatureConfirmation,
} from '../subscriptions/solana-helpers.js';
