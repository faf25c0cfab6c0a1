import { describe, expect, it } from 'vitest';
import { isEmptyAnswer, judgeAnswer } from '../../src/cache/answer-class.js';
import { READ_RULES, requestRuleOf, type RequestRule } from '../../src/cache/read-rules.js';

/** The read cache's classification table: one row per method (docs/reads.md "Read cache"). */

const HASH = `0x${'ab'.repeat(32)}`;
const ADDRESS = `0x${'11'.repeat(20)}`;
const at = (number: number): RequestRule => ({ rule: 'at-block', number });
const never: RequestRule = { rule: 'never' };
const realtime: RequestRule = { rule: 'realtime' };
const immutable: RequestRule = { rule: 'immutable' };
const unfinalized: RequestRule = { rule: 'unfinalized' };

/** [method, params, rule]: every method of the table appears at least once. */
const ROWS: readonly (readonly [string, readonly unknown[], RequestRule])[] = [
  // EVM
  ['eth_chainId', [], immutable],
  ['net_version', [], immutable],
  ['eth_getBlockByNumber', ['0x10', false], at(16)],
  ['eth_getBlockByNumber', ['earliest', false], at(0)],
  ['eth_getBlockByNumber', ['latest', false], realtime],
  ['eth_getBlockByNumber', ['finalized', false], { rule: 'finality' }],
  ['eth_getBlockByNumber', ['safe', false], realtime],
  ['eth_getBlockByNumber', ['pending', false], never],
  ['eth_getBlockReceipts', ['0x20'], at(32)],
  ['eth_getBlockTransactionCountByNumber', ['0x1'], at(1)],
  ['eth_getTransactionByBlockNumberAndIndex', ['0x2', '0x0'], at(2)],
  ['eth_getUncleCountByBlockNumber', ['0x3'], at(3)],
  ['eth_getBlockByHash', [HASH, false], immutable],
  ['eth_getBlockByHash', ['0x12', false], never],
  ['eth_getBlockTransactionCountByHash', [HASH], immutable],
  ['eth_getTransactionByBlockHashAndIndex', [HASH, '0x0'], immutable],
  ['eth_getTransactionByHash', [HASH], { rule: 'answer-block' }],
  ['eth_getTransactionReceipt', [HASH], { rule: 'answer-block' }],
  ['eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x5' }], at(5)],
  ['eth_getLogs', [{ blockHash: HASH }], immutable],
  ['eth_getLogs', [{ fromBlock: '0x1' }], realtime],
  ['eth_getLogs', [{ fromBlock: '0x1', toBlock: 'pending' }], never],
  ['eth_getBalance', [ADDRESS, '0x9'], at(9)],
  ['eth_getBalance', [ADDRESS, 'latest'], never],
  ['eth_getBalance', [ADDRESS, { blockHash: HASH }], immutable],
  ['eth_getCode', [ADDRESS, '0x9'], at(9)],
  ['eth_getTransactionCount', [ADDRESS, 'pending'], never],
  ['eth_getStorageAt', [ADDRESS, '0x0', '0x9'], at(9)],
  ['eth_call', [{ to: ADDRESS, data: '0x' }, '0x9'], at(9)],
  ['eth_call', [{ to: ADDRESS, data: '0x' }], never],
  ['eth_blockNumber', [], realtime],
  ['eth_sendRawTransaction', ['0x00'], never],
  ['eth_sendTransaction', [{}], never],
  ['eth_newFilter', [{}], never],
  ['eth_newBlockFilter', [], never],
  ['eth_getFilterChanges', ['0x1'], never],
  ['eth_getFilterLogs', ['0x1'], never],
  ['eth_uninstallFilter', ['0x1'], never],
  ['eth_gasPrice', [], never],
  ['eth_maxPriorityFeePerGas', [], never],
  ['eth_feeHistory', ['0x4', 'latest', []], never],
  ['eth_estimateGas', [{}], never],
  // Solana
  ['getGenesisHash', [], immutable],
  ['getBlockTime', [5], immutable],
  ['getInflationReward', [[ADDRESS], { epoch: 500 }], immutable],
  ['getInflationReward', [[ADDRESS]], realtime],
  ['getBlock', [5, { commitment: 'finalized' }], immutable],
  ['getBlock', [5], immutable],
  ['getBlock', [5, { commitment: 'confirmed' }], unfinalized],
  ['getBlock', [5, { commitment: 'processed' }], never],
  ['getTransaction', ['sig', { commitment: 'finalized', maxSupportedTransactionVersion: 0 }], immutable],
  ['getTransaction', ['sig', { commitment: 'confirmed' }], unfinalized],
  ['getBalance', ['acct', { commitment: 'finalized' }], realtime],
  ['getAccountInfo', ['acct', { commitment: 'finalized', minContextSlot: 10 }], realtime],
  ['getMultipleAccounts', [['acct']], realtime],
  ['getProgramAccounts', ['prog'], realtime],
  ['getTokenAccountBalance', ['acct'], realtime],
  ['getTokenAccountsByOwner', ['acct', {}], realtime],
  ['getTokenSupply', ['mint'], realtime],
  ['getSlot', [{ commitment: 'finalized' }], realtime],
  ['getBlockHeight', [], realtime],
  ['getEpochInfo', [], realtime],
  ['getSignaturesForAddress', ['acct'], realtime],
  ['getTransactionCount', [], realtime],
  ['getSupply', [], realtime],
  ['sendTransaction', ['AQ=='], never],
  ['simulateTransaction', ['AQ=='], never],
  ['requestAirdrop', ['acct', 1], never],
  ['getLatestBlockhash', [{ commitment: 'finalized' }], never],
  ['getRecentBlockhash', [], never],
  ['isBlockhashValid', ['hash'], never],
  ['getFeeForMessage', ['msg'], never],
  ['getSignatureStatuses', [['sig']], never],
  ['getRecentPrioritizationFees', [], never],
  ['getLeaderSchedule', [], never],
  ['getSlotLeaders', [1, 2], never],
  // Outside the table
  ['some_customMethod', [], never],
];

describe('read cache classification', () => {
  it.each(ROWS)('%s %j is %o', (method, params, rule) => {
    expect(requestRuleOf(method, params)).toEqual(rule);
  });

  it('has a row above for every method of the table', () => {
    const covered = new Set(ROWS.map(([method]) => method));
    expect([...READ_RULES.keys()].filter((method) => !covered.has(method))).toEqual([]);
  });

  it('keeps a by-number answer as finalized only when the answering endpoint finalized that block', () => {
    const block = { number: '0x10', hash: HASH };
    expect(judgeAnswer(at(16), block, 16)).toEqual({ class: 'finalized' });
    expect(judgeAnswer(at(16), block, 15)).toEqual({ class: 'unfinalized', number: 16 });
    expect(judgeAnswer(at(16), block, undefined)).toEqual({ class: 'unfinalized', number: 16 });
  });

  it('judges a receipt by its own blockNumber, and a pending one (no block) never', () => {
    const rule: RequestRule = { rule: 'answer-block' };
    expect(judgeAnswer(rule, { blockNumber: '0x5', status: '0x1' }, 9)).toEqual({ class: 'finalized' });
    expect(judgeAnswer(rule, { blockNumber: '0xa', status: '0x1' }, 9)).toEqual({ class: 'unfinalized', number: 10 });
    expect(judgeAnswer(rule, { blockNumber: null, hash: HASH }, 9)).toEqual({ class: 'never' });
  });

  it.each([null, undefined, '', '0x', '0x0', [], {}])('never keeps the empty answer %j, even by hash', (result) => {
    expect(isEmptyAnswer(result)).toBe(true);
    expect(judgeAnswer(immutable, result, 100)).toEqual({ class: 'never' });
  });
});
