/**
 * What the main providers bill per JSON-RPC method, as data: each table names its source
 * and the date it was read, because providers change them (Alchemy's `eth_getLogs` was 75
 * compute units in its own worked example and is 60 in its table). A number marked
 * uncertain below is the best reading of a page that does not state it plainly; a user's
 * `cost` wins over any of them.
 */
import type { CreditTable } from '../admission/credit-meter.js';

/** The providers with a built-in table. */
export type CreditProvider = 'alchemy' | 'quicknode' | 'helius' | 'infura';

const ALCHEMY_20 = [
  'eth_getTransactionReceipt', 'eth_getUncleByBlockHashAndIndex', 'eth_getUncleByBlockNumberAndIndex',
  'eth_getTransactionByBlockHashAndIndex', 'eth_getTransactionByBlockNumberAndIndex', 'eth_getUncleCountByBlockHash',
  'eth_getUncleCountByBlockNumber', 'web3_clientVersion', 'web3_sha3', 'eth_getBlockByNumber', 'eth_getStorageAt',
  'eth_getTransactionByHash', 'eth_gasPrice', 'eth_getBalance', 'eth_getCode', 'eth_getFilterChanges', 'eth_newBlockFilter',
  'eth_newFilter', 'eth_newPendingTransactionFilter', 'eth_getBlockTransactionCountByHash', 'eth_getBlockTransactionCountByNumber',
  'eth_getProof', 'eth_getBlockByHash', 'eth_getTransactionCount', 'eth_estimateGas', 'eth_getBlockReceipts',
] as const;

const each = (methods: readonly string[], cost: number): Record<string, number> => Object.fromEntries(methods.map((method) => [method, cost]));

/** Alchemy compute units (EVM standard methods). */
const alchemy: CreditTable = {
  source: 'https://www.alchemy.com/docs/reference/compute-unit-costs',
  readOn: '2026-12-02',
  // Uncertain: the table gives no figure for unlisted methods; 20 is its most common cost.
  defaultCost: 20,
  methods: {
    ...each(['net_version', 'eth_chainId', 'eth_syncing', 'eth_protocolVersion', 'net_listening'], 0),
    ...each(['eth_uninstallFilter', 'eth_accounts', 'eth_blockNumber', 'eth_subscribe', 'eth_unsubscribe', 'eth_feeHistory', 'eth_maxPriorityFeePerGas', 'eth_createAccessList'], 10),
    ...each(ALCHEMY_20, 20),
    eth_call: 26,
    eth_simulateV1: 40,
    eth_sendRawTransaction: 40,
    eth_getFilterLogs: 60,
    eth_getLogs: 60,
  },
  throughput: { eth_sendRawTransaction: 250, eth_getBlockReceipts: 500 },
};

/** QuickNode API credits, Ethereum mainnet. */
const quicknode: CreditTable = {
  source: 'https://www.quicknode.com/api-credits (per chain: GET https://api.quicknode.com/v0/api-credits/{chain})',
  readOn: '2026-12-02',
  // Uncertain: QuickNode serves its per-method table from its admin API; its docs state the
  // Ethereum chain default (20 credits per call, as in its add-on examples) and no exceptions.
  defaultCost: 20,
  methods: {},
};

/** Helius credits (Solana). */
const helius: CreditTable = {
  source: 'https://www.helius.dev/docs/billing/credits',
  readOn: '2026-12-02',
  defaultCost: 1,
  methods: {
    getProgramAccounts: 10,
    // Archival calls.
    ...each(['getBlock', 'getBlocks', 'getBlocksWithLimit', 'getSignaturesForAddress', 'getTransaction', 'getBlockTime', 'getInflationReward'], 10),
    // Uncertain: 10 with `searchTransactionHistory`, 1 without (the table cannot see params; 1 is the default call).
    getSignatureStatuses: 1,
    getTransactionsForAddress: 100,
    // Digital Asset Standard API.
    ...each(['getAsset', 'getAssetProof', 'getAssetsByOwner', 'getAssetsByAuthority', 'getAssetsByCreator', 'getAssetsByGroup', 'searchAssets', 'getSignaturesForAsset', 'getTokenAccounts', 'getNFTEditions'], 10),
    // Uncertain: the page's versions disagree (1 credit, 10 on staked connections, 0 via Sender).
    sendTransaction: 1,
  },
};

/** Infura credits (Ethereum, the baseline for every network it serves). */
const infura: CreditTable = {
  source: 'https://docs.metamask.io/services/get-started/pricing/credit-cost',
  readOn: '2026-12-02',
  defaultCost: 80,
  methods: {
    ...each(['eth_chainId', 'eth_hashrate', 'eth_mining', 'eth_protocolVersion', 'eth_subscribe', 'eth_syncing', 'net_listening', 'net_version'], 5),
    eth_unsubscribe: 10,
    eth_getFilterChanges: 140,
    ...each(['eth_getBlockTransactionCountByHash', 'eth_getBlockTransactionCountByNumber', 'eth_getProof', 'eth_getTransactionByBlockHashAndIndex', 'eth_getTransactionByBlockNumberAndIndex', 'eth_getUncleByBlockHashAndIndex', 'eth_getUncleByBlockNumberAndIndex', 'eth_getUncleCountByBlockHash', 'eth_getUncleCountByBlockNumber'], 150),
    eth_getLogs: 255,
    eth_getFilterLogs: 255,
    ...each(['eth_blobBaseFee', 'eth_estimateGas', 'trace_block', 'trace_call', 'trace_callMany', 'trace_filter', 'trace_transaction'], 300),
    ...each(['eth_getBlockReceipts', 'debug_storageRangeAt', 'debug_traceBlock', 'debug_traceBlockByHash', 'debug_traceBlockByNumber', 'debug_traceCall', 'debug_traceTransaction'], 1000),
  },
};

/** The built-in tables, by provider: pass one as an endpoint's `plan.table`. */
export const creditTables: Readonly<Record<CreditProvider, CreditTable>> = { alchemy, quicknode, helius, infura };
