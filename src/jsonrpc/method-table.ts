/**
 * The method table: every standard Solana and EVM JSON-RPC method, classified
 * by request kind (which endpoint roles may serve it) and retry class (whether it may be
 * sent again after a failure).
 *
 * The retry class is about what a second copy of the request does on a server, not about
 * whether the method "reads": `eth_getFilterChanges` reads, but each poll consumes the
 * changes since the previous one, so a lost response loses events; `eth_newFilter` creates
 * server state. Both are `never-after-dispatch`.
 */
import type { RequestKind, RetryClass } from '../retry/causes.js';

export interface MethodClassification {
  readonly kind: RequestKind;
  readonly retryClass: RetryClass;
}

export interface ClassifyMethodResult extends MethodClassification {
  /** False when neither the overrides nor the built-in table know the method. */
  readonly known: boolean;
}

/** User classifications (the pool's `methods` option); they win over the built-in table, field by field. */
export type MethodOverrides = Readonly<Record<string, Partial<MethodClassification>>>;

const READ: MethodClassification = Object.freeze({ kind: 'read', retryClass: 'idempotent' });
const READ_ONCE: MethodClassification = Object.freeze({ kind: 'read', retryClass: 'never-after-dispatch' });
const SUBMIT: MethodClassification = Object.freeze({ kind: 'submit', retryClass: 'never-after-dispatch' });
/** Subscriptions need a WebSocket; over HTTP they can only fail, so never retry them. */
const NOT_OVER_HTTP: MethodClassification = Object.freeze({ kind: 'read', retryClass: 'not-applicable' });

/**
 * Unknown methods: `never-after-dispatch`. A custom method may send a transaction or
 * mutate server state (bundle sends, private mempools, filter-like polls); resending it
 * after an ambiguous failure could act twice, which is the one mistake this library
 * exists to prevent. Failures that provably did not reach a server are still retried, and
 * users classify their methods through the `methods` option to unlock full retries.
 */
export const UNKNOWN_METHOD_CLASSIFICATION: MethodClassification = READ_ONCE;

const SOLANA_READS = [
  'getAccountInfo', 'getBalance', 'getBlock', 'getBlockHeight', 'getBlockProduction',
  'getBlockCommitment', 'getBlocks', 'getBlocksWithLimit', 'getBlockTime', 'getClusterNodes',
  'getEpochInfo', 'getEpochSchedule', 'getFeeForMessage', 'getFirstAvailableBlock',
  'getGenesisHash', 'getHealth', 'getHighestSnapshotSlot', 'getIdentity', 'getInflationGovernor',
  'getInflationRate', 'getInflationReward', 'getLargestAccounts', 'getLatestBlockhash',
  'getLeaderSchedule', 'getMaxRetransmitSlot', 'getMaxShredInsertSlot',
  'getMinimumBalanceForRentExemption', 'getMultipleAccounts', 'getProgramAccounts',
  'getRecentPerformanceSamples', 'getRecentPrioritizationFees', 'getSignatureStatuses',
  'getSignaturesForAddress', 'getSlot', 'getSlotLeader', 'getSlotLeaders',
  'getStakeMinimumDelegation', 'getSupply', 'getTokenAccountBalance', 'getTokenAccountsByDelegate',
  'getTokenAccountsByOwner', 'getTokenLargestAccounts', 'getTokenSupply', 'getTransaction',
  'getTransactionCount', 'getVersion', 'getVoteAccounts', 'isBlockhashValid', 'minimumLedgerSlot',
  // Simulation executes nothing on chain: it is a read, safe to repeat.
  'simulateTransaction',
  // Deprecated, still served by many nodes.
  'getConfirmedBlock', 'getConfirmedBlocks', 'getConfirmedBlocksWithLimit',
  'getConfirmedSignaturesForAddress2', 'getConfirmedTransaction', 'getFeeCalculatorForBlockhash',
  'getFeeRateGovernor', 'getFees', 'getRecentBlockhash', 'getSnapshotSlot', 'getStakeActivation',
] as const;

const SOLANA_SUBMITS = ['sendTransaction', 'requestAirdrop'] as const;

const EVM_READS = [
  'eth_accounts', 'eth_blobBaseFee', 'eth_blockNumber', 'eth_call', 'eth_chainId', 'eth_coinbase',
  'eth_createAccessList', 'eth_estimateGas', 'eth_feeHistory', 'eth_gasPrice', 'eth_getBalance',
  'eth_getBlockByHash', 'eth_getBlockByNumber', 'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByHash', 'eth_getBlockTransactionCountByNumber', 'eth_getCode',
  'eth_getLogs', 'eth_getProof', 'eth_getStorageAt', 'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByBlockNumberAndIndex', 'eth_getTransactionByHash', 'eth_getTransactionCount',
  'eth_getTransactionReceipt', 'eth_getUncleByBlockHashAndIndex', 'eth_getUncleByBlockNumberAndIndex',
  'eth_getUncleCountByBlockHash', 'eth_getUncleCountByBlockNumber', 'eth_getWork', 'eth_hashrate',
  'eth_maxPriorityFeePerGas', 'eth_mining', 'eth_protocolVersion', 'eth_simulateV1', 'eth_syncing',
  'net_listening', 'net_peerCount', 'net_version', 'web3_clientVersion', 'web3_sha3',
  'txpool_content', 'txpool_contentFrom', 'txpool_inspect', 'txpool_status',
  'debug_traceBlock', 'debug_traceBlockByHash', 'debug_traceBlockByNumber', 'debug_traceCall',
  'debug_traceTransaction', 'debug_getRawBlock', 'debug_getRawHeader', 'debug_getRawReceipts',
  'debug_getRawTransaction', 'debug_getBadBlocks',
  'trace_block', 'trace_call', 'trace_callMany', 'trace_filter', 'trace_get', 'trace_rawTransaction',
  'trace_replayBlockTransactions', 'trace_replayTransaction', 'trace_transaction',
  // ERC-4337 bundler reads.
  'eth_estimateUserOperationGas', 'eth_getUserOperationByHash', 'eth_getUserOperationReceipt',
  'eth_supportedEntryPoints',
] as const;

/** Server-state filters: a lost response loses events or leaks a filter; never resend. */
const EVM_FILTERS = [
  'eth_newFilter', 'eth_newBlockFilter', 'eth_newPendingTransactionFilter', 'eth_getFilterChanges',
  'eth_getFilterLogs', 'eth_uninstallFilter',
] as const;

const EVM_SUBMITS = [
  'eth_sendRawTransaction', 'eth_sendRawTransactionConditional', 'eth_sendTransaction', 'eth_sign',
  'eth_signTransaction', 'eth_signTypedData', 'eth_signTypedData_v1', 'eth_signTypedData_v3',
  'eth_signTypedData_v4', 'eth_submitWork', 'eth_submitHashrate', 'eth_sendUserOperation',
  'personal_sign', 'personal_sendTransaction', 'personal_signTransaction', 'personal_ecRecover',
  'personal_importRawKey', 'personal_listAccounts', 'personal_lockAccount', 'personal_newAccount',
  'personal_unlockAccount',
] as const;

const EVM_SUBSCRIPTIONS = ['eth_subscribe', 'eth_unsubscribe'] as const;

function buildTable(): ReadonlyMap<string, MethodClassification> {
  const table = new Map<string, MethodClassification>();
  for (const m of SOLANA_READS) table.set(m, READ);
  for (const m of EVM_READS) table.set(m, READ);
  for (const m of SOLANA_SUBMITS) table.set(m, SUBMIT);
  for (const m of EVM_SUBMITS) table.set(m, SUBMIT);
  for (const m of EVM_FILTERS) table.set(m, READ_ONCE);
  for (const m of EVM_SUBSCRIPTIONS) table.set(m, NOT_OVER_HTTP);
  return table;
}

/** The built-in classification of every standard method. */
export const METHOD_TABLE: ReadonlyMap<string, MethodClassification> = buildTable();

/** Families classified by prefix when a member is missing from the table. */
const PREFIX_RULES: readonly (readonly [prefix: string, classification: MethodClassification])[] = [
  ['personal_', SUBMIT],
  ['eth_signTypedData', SUBMIT],
  ['debug_trace', READ],
];

/**
 * Classifies a method: overrides first, then the built-in table, then prefix families
 * (`personal_*`, `eth_signTypedData*`, `debug_trace*`), else the safe unknown default
 * (`read`, `never-after-dispatch`: never sent again once it may have reached a node).
 */
export function classifyMethod(method: string, overrides?: MethodOverrides): ClassifyMethodResult {
  // hasOwn, not `in`/indexing: `toString` or `__proto__` must not resolve to Object.prototype.
  if (overrides !== undefined && Object.hasOwn(overrides, method)) {
    const own = overrides[method];
    if (own?.kind !== undefined && own.retryClass !== undefined) return { kind: own.kind, retryClass: own.retryClass, known: true };
    // An entry with one field (or only `consensus`) keeps the other from the built-in table.
    if (own !== undefined) {
      const base = builtInClassification(method);
      return { kind: own.kind ?? base.kind, retryClass: own.retryClass ?? base.retryClass, known: true };
    }
  }
  return builtInClassification(method);
}

function builtInClassification(method: string): ClassifyMethodResult {
  const builtIn = METHOD_TABLE.get(method) ?? prefixClassification(method);
  if (builtIn !== undefined) return { kind: builtIn.kind, retryClass: builtIn.retryClass, known: true };
  return { ...UNKNOWN_METHOD_CLASSIFICATION, known: false };
}

function prefixClassification(method: string): MethodClassification | undefined {
  for (const [prefix, classification] of PREFIX_RULES) {
    if (method.startsWith(prefix)) return classification;
  }
  return undefined;
}

/**
 * Methods whose result may legitimately be empty: `null` (not found), `[]` or `{}`.
 * For every other built-in method an empty result is a lying or broken node (a PATH
 * gateway heuristic): the classifier reports it as `invalid-response`.
 */
export const EMPTY_RESULT_METHODS: ReadonlySet<string> = new Set<string>([
  // Solana
  'getBlock', 'getBlocks', 'getBlocksWithLimit', 'getBlockTime', 'getInflationReward',
  'getLeaderSchedule', 'getProgramAccounts', 'getRecentPerformanceSamples',
  'getRecentPrioritizationFees', 'getSignaturesForAddress', 'getSlotLeaders',
  'getTokenAccountsByDelegate', 'getTokenAccountsByOwner', 'getTransaction',
  'getConfirmedBlock', 'getConfirmedBlocks', 'getConfirmedBlocksWithLimit',
  'getConfirmedSignaturesForAddress2', 'getConfirmedTransaction', 'getFeeCalculatorForBlockhash',
  // EVM: lookups that answer null for an unknown hash/number, lists that may be empty
  'eth_accounts', 'eth_getLogs', 'eth_getBlockByHash', 'eth_getBlockByNumber', 'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByHash', 'eth_getBlockTransactionCountByNumber',
  'eth_getTransactionByHash', 'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByBlockNumberAndIndex', 'eth_getTransactionReceipt',
  'eth_getUncleByBlockHashAndIndex', 'eth_getUncleByBlockNumberAndIndex',
  'eth_getUncleCountByBlockHash', 'eth_getUncleCountByBlockNumber',
  'eth_getFilterChanges', 'eth_getFilterLogs', 'eth_getUserOperationByHash',
  'eth_getUserOperationReceipt', 'eth_supportedEntryPoints', 'eth_coinbase', 'eth_simulateV1',
  'txpool_contentFrom', 'debug_getBadBlocks', 'debug_getRawReceipts', 'personal_listAccounts',
  'trace_block', 'trace_filter', 'trace_get', 'trace_transaction', 'trace_replayBlockTransactions',
  'trace_callMany', 'debug_traceBlock', 'debug_traceBlockByHash', 'debug_traceBlockByNumber',
]);

/** `null`, `[]` or `{}` (a plain object with no own keys). */
export function isEmptyResult(value: unknown): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') {
    for (const key in value) if (Object.hasOwn(value, key)) return false;
    return true;
  }
  return false;
}

/**
 * Whether an empty result for `method` is a protocol violation. Only methods in the
 * built-in table are judged: a user's own method may well answer `null`.
 */
export function isUnexpectedEmptyResult(method: string, result: unknown): boolean {
  return METHOD_TABLE.has(method) && !EMPTY_RESULT_METHODS.has(method) && isEmptyResult(result);
}
