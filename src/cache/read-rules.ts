/**
 * The read cache's classification table (docs/reads.md "Read cache"; field facts in
 * REFERENCE.md): what a request can ever be, decided from its method and params alone.
 * Pure. Whether an answer is then kept, and as what, is `judgeAnswer` (`answer-class.ts`):
 * a by-number read is finalized only once the answering endpoint's finalized head covers it.
 */

/** How long an answer may be kept: forever, a TTL keyed so a reorg misses, a short TTL, or not at all. */
export type ReadClass = 'finalized' | 'unfinalized' | 'realtime' | 'never';

/** What the request alone says; `at-block` and `answer-block` need the answer and the answerer's finalized head. */
export type RequestRule =
  | { readonly rule: 'never' }
  | { readonly rule: 'realtime' }
  /** Content that cannot change: by hash, the chain id, Solana reads asked at `finalized`. */
  | { readonly rule: 'immutable' }
  /** Solana `confirmed` blocks and transactions: kept for the unfinalized TTL only. */
  | { readonly rule: 'unfinalized' }
  /** An EVM read at block `number`: finalized when the answerer's finalized head is ≥ it. */
  | { readonly rule: 'at-block'; readonly number: number }
  /** A transaction or receipt by hash: judged from the answer's `blockNumber`. */
  | { readonly rule: 'answer-block' }
  /** `eth_getBlockByNumber('finalized')`: realtime, and the answer is where the answering endpoint's finality stands. */
  | { readonly rule: 'finality' };

const NEVER: RequestRule = Object.freeze({ rule: 'never' });
const REALTIME: RequestRule = Object.freeze({ rule: 'realtime' });
const IMMUTABLE: RequestRule = Object.freeze({ rule: 'immutable' });
const UNFINALIZED: RequestRule = Object.freeze({ rule: 'unfinalized' });
const ANSWER_BLOCK: RequestRule = Object.freeze({ rule: 'answer-block' });
const FINALITY: RequestRule = Object.freeze({ rule: 'finality' });

type Rule = (params: readonly unknown[]) => RequestRule;
const always =
  (rule: RequestRule): Rule =>
  () =>
    rule;

/** A block reference: a number (hex quantity), `earliest` (0), a tag that follows the head, or `pending`. */
function blockRef(ref: unknown, atTag: RequestRule): RequestRule {
  if (ref === undefined || ref === 'latest' || ref === 'safe' || ref === 'finalized') return atTag;
  if (ref === 'earliest') return { rule: 'at-block', number: 0 };
  if (typeof ref === 'string' && /^0x[0-9a-fA-F]{1,13}$/.test(ref)) return { rule: 'at-block', number: Number.parseInt(ref, 16) };
  // EIP-1898: `{ blockHash }` names content that cannot change; `{ blockNumber }` a number.
  if (typeof ref === 'object' && ref !== null) {
    const { blockHash, blockNumber } = ref as { blockHash?: unknown; blockNumber?: unknown };
    if (typeof blockHash === 'string' && isHash(blockHash)) return IMMUTABLE;
    if (blockNumber !== undefined) return blockRef(blockNumber, atTag);
  }
  // `pending`, malformed refs: never kept.
  return NEVER;
}

function isHash(value: unknown): boolean {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{64}$/.test(value);
}

/** A state read at a block (param `at`): at a tag it follows the tip, and the issue keeps balances at the tip out. */
const stateAt =
  (at: number): Rule =>
  (params) =>
    blockRef(params[at] ?? 'latest', NEVER);
/** A block read by number (param 0): at a tag it is realtime (a short TTL when asked). */
const blockByNumber: Rule = (params) => blockRef(params[0], REALTIME);
/** A block by number; at `finalized`, the caller's own read tells the cache where finality stands. */
const blockOrFinality: Rule = (params) => (params[0] === 'finalized' ? FINALITY : blockRef(params[0], REALTIME));
const byHash: Rule = (params) => (isHash(params[0]) ? IMMUTABLE : NEVER);

function logsRule(params: readonly unknown[]): RequestRule {
  const filter = params[0];
  if (typeof filter !== 'object' || filter === null) return NEVER;
  const { blockHash, fromBlock, toBlock } = filter as { blockHash?: unknown; fromBlock?: unknown; toBlock?: unknown };
  if (blockHash !== undefined) return isHash(blockHash) ? IMMUTABLE : NEVER;
  // The range is as final as its last block; a missing bound is `latest`.
  const to = blockRef(toBlock ?? 'latest', REALTIME);
  const from = blockRef(fromBlock ?? 'latest', REALTIME);
  if (to.rule !== 'at-block' || from.rule !== 'at-block') return to.rule === 'never' || from.rule === 'never' ? NEVER : REALTIME;
  return to.number >= from.number ? to : from;
}

/** Solana: the commitment of a read's config object (param `at`); the node's default is `finalized`. */
function commitmentOf(params: readonly unknown[], at: number): unknown {
  const config = params[at];
  if (typeof config === 'string') return config;
  if (typeof config === 'object' && config !== null) return (config as { commitment?: unknown }).commitment ?? 'finalized';
  return 'finalized';
}

/** getBlock / getTransaction: immutable once finalized; `confirmed` may still be dropped (TTL). */
const solanaLedger: Rule = (params) => {
  const commitment = commitmentOf(params, 1);
  return commitment === 'finalized' ? IMMUTABLE : commitment === 'confirmed' ? UNFINALIZED : NEVER;
};

/** Without an explicit epoch the answer is the previous epoch's, which moves on: realtime then. */
const inflationReward: Rule = (params) => {
  const config = params[1];
  const epoch = typeof config === 'object' && config !== null ? (config as { epoch?: unknown }).epoch : undefined;
  return typeof epoch === 'number' ? IMMUTABLE : REALTIME;
};

/** The table: one row per method. A method not in it is never cached. */
export const READ_RULES: ReadonlyMap<string, Rule> = new Map<string, Rule>([
  // ——— EVM ———
  ['eth_chainId', always(IMMUTABLE)],
  ['net_version', always(IMMUTABLE)],
  ['eth_getBlockByNumber', blockOrFinality],
  ['eth_getBlockReceipts', blockByNumber],
  ['eth_getBlockTransactionCountByNumber', blockByNumber],
  ['eth_getTransactionByBlockNumberAndIndex', blockByNumber],
  ['eth_getUncleCountByBlockNumber', blockByNumber],
  ['eth_getBlockByHash', byHash],
  ['eth_getBlockTransactionCountByHash', byHash],
  ['eth_getTransactionByBlockHashAndIndex', byHash],
  ['eth_getTransactionByHash', (params) => (isHash(params[0]) ? ANSWER_BLOCK : NEVER)],
  ['eth_getTransactionReceipt', (params) => (isHash(params[0]) ? ANSWER_BLOCK : NEVER)],
  ['eth_getLogs', logsRule],
  ['eth_getBalance', stateAt(1)],
  ['eth_getCode', stateAt(1)],
  ['eth_getTransactionCount', stateAt(1)],
  ['eth_getStorageAt', stateAt(2)],
  ['eth_call', stateAt(1)],
  ['eth_blockNumber', always(REALTIME)],
  // Sends, filters, fees and estimates: never.
  ['eth_sendRawTransaction', always(NEVER)],
  ['eth_sendTransaction', always(NEVER)],
  ['eth_newFilter', always(NEVER)],
  ['eth_newBlockFilter', always(NEVER)],
  ['eth_getFilterChanges', always(NEVER)],
  ['eth_getFilterLogs', always(NEVER)],
  ['eth_uninstallFilter', always(NEVER)],
  ['eth_gasPrice', always(NEVER)],
  ['eth_maxPriorityFeePerGas', always(NEVER)],
  ['eth_feeHistory', always(NEVER)],
  ['eth_estimateGas', always(NEVER)],
  // ——— Solana ———
  ['getGenesisHash', always(IMMUTABLE)],
  ['getBlockTime', always(IMMUTABLE)],
  ['getInflationReward', inflationReward],
  ['getBlock', solanaLedger],
  ['getTransaction', solanaLedger],
  // Everything that follows the head is realtime at every commitment (`finalized` is the latest root, ~400 ms);
  // `minContextSlot` is a freshness floor, never a promotion.
  ...[
    'getBalance',
    'getAccountInfo',
    'getMultipleAccounts',
    'getProgramAccounts',
    'getTokenAccountBalance',
    'getTokenAccountsByOwner',
    'getTokenSupply',
    'getSlot',
    'getBlockHeight',
    'getEpochInfo',
    'getSignaturesForAddress',
    'getTransactionCount',
    'getSupply',
  ].map((method): [string, Rule] => [method, always(REALTIME)]),
  ...[
    'sendTransaction',
    'simulateTransaction',
    'requestAirdrop',
    'getLatestBlockhash',
    'getRecentBlockhash',
    'isBlockhashValid',
    'getFeeForMessage',
    'getSignatureStatuses',
    'getRecentPrioritizationFees',
    'getLeaderSchedule',
    'getSlotLeaders',
  ].map((method): [string, Rule] => [method, always(NEVER)]),
]);

/** The request's rule; a method outside the table is never cached. */
export function requestRuleOf(method: string, params: readonly unknown[]): RequestRule {
  const rule = READ_RULES.get(method);
  return rule === undefined ? NEVER : rule(params);
}
