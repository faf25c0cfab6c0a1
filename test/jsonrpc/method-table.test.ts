import { describe, expect, it } from 'vitest';
import {
  EMPTY_RESULT_METHODS,
  METHOD_TABLE,
  UNKNOWN_METHOD_CLASSIFICATION,
  classifyMethod,
  isEmptyResult,
  isUnexpectedEmptyResult,
} from '../../src/jsonrpc/method-table.js';

const SOLANA_STANDARD = [
  'getAccountInfo', 'getBalance', 'getBlock', 'getBlockHeight', 'getBlockProduction', 'getBlockCommitment',
  'getBlocks', 'getBlocksWithLimit', 'getBlockTime', 'getClusterNodes', 'getEpochInfo', 'getEpochSchedule',
  'getFeeForMessage', 'getFirstAvailableBlock', 'getGenesisHash', 'getHealth', 'getHighestSnapshotSlot',
  'getIdentity', 'getInflationGovernor', 'getInflationRate', 'getInflationReward', 'getLargestAccounts',
  'getLatestBlockhash', 'getLeaderSchedule', 'getMaxRetransmitSlot', 'getMaxShredInsertSlot',
  'getMinimumBalanceForRentExemption', 'getMultipleAccounts', 'getProgramAccounts',
  'getRecentPerformanceSamples', 'getRecentPrioritizationFees', 'getSignatureStatuses',
  'getSignaturesForAddress', 'getSlot', 'getSlotLeader', 'getSlotLeaders', 'getStakeMinimumDelegation',
  'getSupply', 'getTokenAccountBalance', 'getTokenAccountsByDelegate', 'getTokenAccountsByOwner',
  'getTokenLargestAccounts', 'getTokenSupply', 'getTransaction', 'getTransactionCount', 'getVersion',
  'getVoteAccounts', 'isBlockhashValid', 'minimumLedgerSlot', 'simulateTransaction',
  'getConfirmedBlock', 'getConfirmedTransaction', 'getRecentBlockhash', 'getFees', 'getStakeActivation',
];

const EVM_READS = [
  'eth_blockNumber', 'eth_call', 'eth_chainId', 'eth_estimateGas', 'eth_feeHistory', 'eth_gasPrice',
  'eth_getBalance', 'eth_getBlockByHash', 'eth_getBlockByNumber', 'eth_getCode', 'eth_getLogs',
  'eth_getProof', 'eth_getStorageAt', 'eth_getTransactionByHash', 'eth_getTransactionCount',
  'eth_getTransactionReceipt', 'eth_maxPriorityFeePerGas', 'eth_syncing', 'net_version', 'net_listening',
  'net_peerCount', 'web3_clientVersion', 'web3_sha3', 'txpool_content', 'txpool_status',
  'debug_traceTransaction', 'debug_traceCall', 'debug_traceBlockByNumber',
];

const SUBMITS = [
  'sendTransaction', 'requestAirdrop', 'eth_sendRawTransaction', 'eth_sendTransaction', 'eth_sign',
  'eth_signTransaction', 'eth_signTypedData', 'eth_signTypedData_v4', 'personal_sign',
  'personal_sendTransaction', 'personal_unlockAccount',
];

const FILTERS = [
  'eth_newFilter', 'eth_newBlockFilter', 'eth_newPendingTransactionFilter', 'eth_getFilterChanges',
  'eth_uninstallFilter',
];

describe('classifyMethod', () => {
  it.each(SOLANA_STANDARD)('classifies Solana %s as an idempotent read', (method) => {
    expect(classifyMethod(method)).toEqual({ kind: 'read', retryClass: 'idempotent', known: true });
  });

  it.each(EVM_READS)('classifies EVM %s as an idempotent read', (method) => {
    expect(classifyMethod(method)).toEqual({ kind: 'read', retryClass: 'idempotent', known: true });
  });

  it.each(SUBMITS)('never resends %s after dispatch and routes it to submit roles', (method) => {
    expect(classifyMethod(method)).toEqual({ kind: 'submit', retryClass: 'never-after-dispatch', known: true });
  });

  it.each(FILTERS)('treats the server-state filter method %s as a read never resent after dispatch', (method) => {
    expect(classifyMethod(method)).toEqual({ kind: 'read', retryClass: 'never-after-dispatch', known: true });
  });

  it.each(['eth_subscribe', 'eth_unsubscribe'])('never retries %s, which needs a WebSocket', (method) => {
    expect(classifyMethod(method)).toEqual({ kind: 'read', retryClass: 'not-applicable', known: true });
  });

  it.each([
    ['personal_someFutureMethod', 'submit', 'never-after-dispatch'],
    ['eth_signTypedData_v5', 'submit', 'never-after-dispatch'],
    ['debug_traceChain', 'read', 'idempotent'],
  ])('classifies the family member %s by prefix', (method, kind, retryClass) => {
    expect(classifyMethod(method)).toEqual({ kind, retryClass, known: true });
  });

  it.each(['myBundleSend', 'eth_sendBundle', 'getAsset', 'toString', '__proto__', 'constructor', '', 'GETBALANCE'])(
    'defaults the unknown method %j to a read never resent after dispatch',
    (method) => {
      expect(classifyMethod(method)).toEqual({ kind: 'read', retryClass: 'never-after-dispatch', known: false });
    },
  );

  it('makes the unknown default the safe class', () => {
    expect(UNKNOWN_METHOD_CLASSIFICATION.retryClass).toBe('never-after-dispatch');
  });

  it('lets overrides classify unknown methods and reclassify built-in ones', () => {
    const overrides = {
      myBundleSend: { kind: 'submit', retryClass: 'never-after-dispatch' },
      getAsset: { kind: 'das', retryClass: 'idempotent' },
      getBalance: { kind: 'read', retryClass: 'not-applicable' },
    } as const;
    expect(classifyMethod('myBundleSend', overrides)).toEqual({ kind: 'submit', retryClass: 'never-after-dispatch', known: true });
    expect(classifyMethod('getAsset', overrides)).toEqual({ kind: 'das', retryClass: 'idempotent', known: true });
    expect(classifyMethod('getBalance', overrides)).toEqual({ kind: 'read', retryClass: 'not-applicable', known: true });
    expect(classifyMethod('getSlot', overrides)).toEqual({ kind: 'read', retryClass: 'idempotent', known: true });
  });

  it('ignores inherited properties of the overrides object', () => {
    expect(classifyMethod('toString', {})).toEqual({ kind: 'read', retryClass: 'never-after-dispatch', known: false });
  });

  it('only lists methods whose class is one of the three retry classes', () => {
    for (const [, c] of METHOD_TABLE) {
      expect(['idempotent', 'never-after-dispatch', 'not-applicable']).toContain(c.retryClass);
      expect(['read', 'submit']).toContain(c.kind);
    }
  });
});

describe('empty results', () => {
  it.each([[null], [[]], [{}]])('treats %j as empty', (value) => {
    expect(isEmptyResult(value)).toBe(true);
  });

  it.each([[0], [''], ['0x'], [false], [[null]], [{ a: undefined }], [{ context: {}, value: null }]])(
    'does not treat %j as empty',
    (value) => {
      expect(isEmptyResult(value)).toBe(false);
    },
  );

  it.each([
    ['eth_getLogs', []],
    ['eth_getFilterChanges', []],
    ['eth_getTransactionReceipt', null],
    ['eth_getBlockByNumber', null],
    ['eth_getTransactionByHash', null],
    ['getSignaturesForAddress', []],
    ['getBlocks', []],
    ['getProgramAccounts', []],
    ['getTokenAccountsByOwner', []],
    ['getTransaction', null],
    ['getBlockTime', null],
  ])('accepts an empty answer from %s', (method, result) => {
    expect(EMPTY_RESULT_METHODS.has(method)).toBe(true);
    expect(isUnexpectedEmptyResult(method, result)).toBe(false);
  });

  it.each([
    ['getBalance', {}],
    ['getSlot', null],
    ['getVersion', {}],
    ['eth_blockNumber', null],
    ['eth_chainId', []],
    ['eth_getBalance', null],
    ['sendTransaction', null],
  ])('flags an empty answer from %s', (method, result) => {
    expect(isUnexpectedEmptyResult(method, result)).toBe(true);
  });

  it('does not judge methods outside the built-in table', () => {
    expect(isUnexpectedEmptyResult('myCustomMethod', null)).toBe(false);
  });

  it('lists only built-in methods as allowed to be empty', () => {
    for (const method of EMPTY_RESULT_METHODS) expect(METHOD_TABLE.has(method)).toBe(true);
  });
});
