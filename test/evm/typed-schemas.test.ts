import { describe, expect, it } from 'vitest';
import { createEvmClient, type EvmClient } from '../../src/evm/index.js';
import { answering, rejection, stub } from '../helpers/stub-requester.js';

/**
 * Every new typed EVM call: a malformed answer is `INVALID_RESPONSE` naming the path and
 * the check, and bad input is `INVALID_INPUT` with nothing sent. (The well-formed answers
 * come from a real anvil in `typed-anvil.test.ts`.)
 */

const ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const HASH = `0x${'ab'.repeat(32)}`;
const log = { address: ADDRESS, topics: [HASH], data: '0x', blockNumber: '0x1', blockHash: HASH, transactionHash: HASH, transactionIndex: '0x0', logIndex: '0x0', removed: false };
const receipt = {
  transactionHash: HASH,
  transactionIndex: '0x0',
  blockHash: HASH,
  blockNumber: '0x1',
  from: ADDRESS,
  to: ADDRESS,
  cumulativeGasUsed: '0x5208',
  gasUsed: '0x5208',
  contractAddress: null,
  logs: [log],
  logsBloom: `0x${'00'.repeat(256)}`,
  status: '0x1',
};
const tx = { hash: HASH, nonce: '0x0', blockHash: null, blockNumber: null, transactionIndex: null, from: ADDRESS, to: null, value: '0x0', gas: '0x5208', input: '0x' };
const block = {
  number: '0x1',
  hash: HASH,
  parentHash: HASH,
  timestamp: '0x6553f100',
  gasLimit: '0x1c9c380',
  gasUsed: '0x0',
  miner: ADDRESS,
  stateRoot: HASH,
  transactionsRoot: HASH,
  receiptsRoot: HASH,
  logsBloom: `0x${'00'.repeat(256)}`,
  extraData: '0x',
  transactions: [HASH],
};

type Call = (evm: EvmClient) => Promise<unknown>;
const malformed: readonly (readonly [string, Call, unknown, string])[] = [
  ['eth_call', (e) => e.call({ to: ADDRESS }), '0x123', 'result: invalid_format'],
  ['eth_estimateGas', (e) => e.estimateGas({ to: ADDRESS }), 21000, 'result: invalid_type'],
  ['eth_getTransactionCount', (e) => e.getTransactionCount(ADDRESS, 'pending'), '0x', 'result: invalid_format'],
  ['eth_getCode', (e) => e.getCode(ADDRESS), null, 'result: invalid_type'],
  ['eth_getTransactionReceipt', (e) => e.getTransactionReceipt(HASH), { ...receipt, status: '0x2' }, 'status: invalid_value'],
  ['eth_getTransactionReceipt', (e) => e.getTransactionReceipt(HASH), { ...receipt, logs: [{ ...log, topics: [HASH, HASH, HASH, HASH, HASH] }] }, 'logs.0.topics: too_big'],
  ['eth_getTransactionByHash', (e) => e.getTransactionByHash(HASH), { ...tx, from: '0x1' }, 'from: invalid_format'],
  ['eth_getBlockByNumber', (e) => e.getBlockByNumber(1n), { ...block, timestamp: 1 }, 'timestamp: invalid_type'],
  ['eth_getBlockByNumber', (e) => e.getBlockByNumber(1n, { includeTransactions: true }), block, 'transactions.0: invalid_type'],
  ['eth_getBlockByHash', (e) => e.getBlockByHash(HASH), { ...block, hash: '0x12' }, 'hash: invalid_format'],
  ['eth_getLogs', (e) => e.getLogs({ fromBlock: 1n, toBlock: 2n }), [{ ...log, data: '0xabc' }], '0.data: invalid_format'],
  ['eth_getLogs', (e) => e.getLogs({ fromBlock: 1n, toBlock: 2n }), {}, 'result: invalid_type'],
  ['eth_feeHistory', (e) => e.feeHistory(2, 'latest', [50]), { oldestBlock: '0x1', baseFeePerGas: ['0x1', '0x2', '0x3'], gasUsedRatio: [0.5, 0.5], reward: [['0x1']] }, 'reward: length'],
  ['eth_feeHistory', (e) => e.feeHistory(2, 'latest', [25, 75]), { oldestBlock: '0x1', baseFeePerGas: ['0x1', '0x2', '0x3'], gasUsedRatio: [0.5, 0.5], reward: [['0x1'], ['0x1']] }, 'reward: percentiles'],
  ['eth_feeHistory', (e) => e.feeHistory(2), { oldestBlock: '0x1', baseFeePerGas: ['0x1'], gasUsedRatio: [0.5, 0.5] }, 'baseFeePerGas: length'],
  ['eth_feeHistory', (e) => e.feeHistory(1), { oldestBlock: '0x1', baseFeePerGas: ['0x1', '0x2', '0x3'], gasUsedRatio: [0.5, 0.5] }, 'gasUsedRatio: too_big'],
  ['eth_gasPrice', (e) => e.gasPrice(), '1', 'result: invalid_format'],
  ['eth_maxPriorityFeePerGas', (e) => e.maxPriorityFeePerGas(), [], 'result: invalid_type'],
];

describe('a malformed answer is INVALID_RESPONSE naming where it broke', () => {
  it.each(malformed.map(([method, call, result, reason]) => [method, reason, call, result] as const))('%s: %s', async (method, reason, call, result) => {
    const error = await rejection(call(createEvmClient(answering(result).requester)));
    expect(error.code).toBe('INVALID_RESPONSE');
    expect(error.method).toBe(method);
    expect(error.context).toEqual({ reason });
  });
});

describe('quantities become exact bigints', () => {
  it('reads a receipt, mapping status to success/reverted', async () => {
    const big = `0x${'f'.repeat(40)}`;
    const parsed = await createEvmClient(answering({ ...receipt, gasUsed: big, status: '0x0', effectiveGasPrice: '0x3b9aca00' }).requester).getTransactionReceipt(HASH);
    expect(parsed).toMatchObject({ gasUsed: BigInt(big), status: 'reverted', effectiveGasPrice: 1_000_000_000n, blockNumber: 1n, logs: [{ logIndex: 0n, removed: false }] });
    await expect(createEvmClient(answering(null).requester).getTransactionReceipt(HASH)).resolves.toBeNull();
  });

  it('sends block numbers and quantities as hex, tags as they are', async () => {
    const { requester, calls } = answering('0x01');
    const evm = createEvmClient(requester);
    await evm.getTransactionCount(ADDRESS, 'pending');
    await evm.estimateGas({ from: ADDRESS, to: ADDRESS, value: 10n ** 18n, data: '0xabcd' });
    await evm.call({ to: ADDRESS, data: '0x' }, 255);
    await evm.feeHistory(4n, 'safe', [10, 90]).catch(() => undefined);
    expect(calls.map((c) => c.params)).toEqual([
      [ADDRESS, 'pending'],
      [{ from: ADDRESS, to: ADDRESS, value: '0xde0b6b3a7640000', data: '0xabcd' }],
      [{ to: ADDRESS, data: '0x' }, '0xff'],
      ['0x4', 'safe', [10, 90]],
    ]);
  });
});

describe('bad input is INVALID_INPUT, and nothing is sent', () => {
  const cases: readonly (readonly [string, Call])[] = [
    ['request.to', (e) => e.call({ data: '0x' })],
    ['request.data', (e) => e.call({ to: ADDRESS, data: '0x1' })],
    ['request.value', (e) => e.estimateGas({ value: -1n })],
    ['request.gasPrice', (e) => e.estimateGas({ gasPrice: 1n, maxFeePerGas: 2n })],
    ['request', (e) => e.call(null as never)],
    ['blockTag', (e) => e.getTransactionCount(ADDRESS, 'newest' as never)],
    ['blockTag', (e) => e.getCode(ADDRESS, -1)],
    ['address', (e) => e.getCode('0x12')],
    ['hash', (e) => e.getTransactionReceipt('0x12')],
    ['hash', (e) => e.getTransactionByHash(HASH.slice(0, 10))],
    ['block', (e) => e.getBlockByNumber(1.5)],
    ['includeTransactions', (e) => e.getBlockByHash(HASH, { includeTransactions: 'yes' as never })],
    ['blockCount', (e) => e.feeHistory(-1)],
    ['rewardPercentiles', (e) => e.feeHistory(1, 'latest', [90, 10])],
    ['filter.address', (e) => e.getLogs({ address: '0x1' })],
    ['filter.topics', (e) => e.getLogs({ topics: [null, null, null, null, null] })],
    ['filter.topics.0.1', (e) => e.getLogs({ topics: [[HASH, '0x1']] })],
    ['filter.blockHash', (e) => e.getLogs({ blockHash: HASH, fromBlock: 1n })],
    ['filter.fromBlock', (e) => e.getLogs({ fromBlock: 10n, toBlock: 9n })],
    ['maxBlockRange', (e) => e.getLogs({ fromBlock: 1n, toBlock: 9n }, { maxBlockRange: 0 })],
    ['maxConcurrentParts', (e) => e.getLogs({ fromBlock: 1n, toBlock: 9n }, { maxConcurrentParts: 0 })],
    ['serializedTransaction', (e) => e.sendAndWait('0x')],
    ['serializedTransaction', (e) => e.sendAndWait('0x0102')],
    ['confirmations', (e) => e.sendAndWait('0xf86c808504a817c800825208940000000000000000000000000000000000000000880de0b6b3a76400008025a00000000000000000000000000000000000000000000000000000000000000001a00000000000000000000000000000000000000000000000000000000000000001', { confirmations: 0 })],
  ];
  it.each(cases)('%s', async (field, call) => {
    const { requester, calls } = stub();
    const error = await rejection(call(createEvmClient(requester)));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.context).toEqual({ field });
    expect(calls).toHaveLength(0);
  });
});
