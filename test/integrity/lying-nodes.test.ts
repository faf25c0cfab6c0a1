import { afterEach, describe, expect, it } from 'vitest';
import { createFixtureServer } from '../../src/testing/fixture-server.js';
import { resultFixture } from '../../src/testing/fixtures.js';
import { createFakeClock, createSeededRandom } from '../../src/testing/index.js';
import { closePools, createPool, rejection } from '../helpers/pools.js';
import { closeServers, expectLieCaught, liarAndHonest, lyingAnswer } from './helpers.js';

/**
 * Issue 28 §1: one lying fixture node per check, over real loopback sockets. The lie never
 * reaches the caller; the call succeeds on the honest node; the failure names the check.
 */

afterEach(async () => {
  await closePools();
  await closeServers();
});

const hash = (digit: string) => `0x${digit.repeat(64)}`;
const ASKED = hash('a');
const OTHER = hash('b');
const ADDRESS = '0x00000000000000000000000000000000000000aa';
const OTHER_ADDRESS = '0x00000000000000000000000000000000000000bb';
const TOPIC = hash('c');
const log = (fields: Record<string, unknown>) => ({ address: ADDRESS, blockNumber: '0x10', blockHash: hash('d'), logIndex: '0x0', topics: [TOPIC], data: '0x', removed: false, ...fields });

describe('EVM answers about another transaction or block than asked', () => {
  it('a receipt of another transaction (receipt-hash) is asked of the honest node', async () => {
    const truth = { transactionHash: ASKED, blockNumber: '0x10', status: '0x1' };
    const nodes = await liarAndHonest(...lyingAnswer('evm', 'eth_getTransactionReceipt', [ASKED], { ...truth, transactionHash: OTHER }, truth));
    await expectLieCaught(nodes, 'eth_getTransactionReceipt', [ASKED], truth, 'receipt-hash');
  });

  it('a transaction of another hash (transaction-hash) is asked of the honest node', async () => {
    const truth = { hash: ASKED, blockNumber: '0x10', nonce: '0x1' };
    const nodes = await liarAndHonest(...lyingAnswer('evm', 'eth_getTransactionByHash', [ASKED], { ...truth, hash: OTHER }, truth));
    await expectLieCaught(nodes, 'eth_getTransactionByHash', [ASKED], truth, 'transaction-hash');
  });

  it('a block of another number (block-number) is asked of the honest node', async () => {
    const truth = { number: '0x10', hash: ASKED, parentHash: OTHER };
    const nodes = await liarAndHonest(...lyingAnswer('evm', 'eth_getBlockByNumber', ['0x10', false], { ...truth, number: '0x11' }, truth));
    await expectLieCaught(nodes, 'eth_getBlockByNumber', ['0x10', false], truth, 'block-number');
  });

  it('a block of another hash (block-hash) is asked of the honest node', async () => {
    const truth = { number: '0x10', hash: ASKED, parentHash: OTHER };
    const nodes = await liarAndHonest(...lyingAnswer('evm', 'eth_getBlockByHash', [ASKED, false], { ...truth, hash: OTHER }, truth));
    await expectLieCaught(nodes, 'eth_getBlockByHash', [ASKED, false], truth, 'block-hash');
  });
});

describe('eth_getLogs answers outside the filter asked', () => {
  const FILTER = { fromBlock: '0x10', toBlock: '0x12', address: ADDRESS, topics: [TOPIC] };
  const truth = [log({ logIndex: '0x0' }), log({ logIndex: '0x1' }), log({ blockNumber: '0x12', blockHash: hash('e'), logIndex: '0x0' })];

  it.each([
    ['log-block-range', [...truth, log({ blockNumber: '0x13', blockHash: hash('f') })]],
    ['log-address', [log({ address: OTHER_ADDRESS })]],
    ['log-topics', [log({ topics: [OTHER] })]],
    ['log-order', [log({ logIndex: '0x1' }), log({ logIndex: '0x0' })]],
  ])('a log that breaks %s is asked of the honest node', async (check, lie) => {
    const nodes = await liarAndHonest(...lyingAnswer('evm', 'eth_getLogs', [FILTER], lie, truth));
    await expectLieCaught(nodes, 'eth_getLogs', [FILTER], truth, check);
  });

  it('a log of another block than the blockHash asked (log-block-hash) is asked of the honest node', async () => {
    const filter = { blockHash: hash('d') };
    const nodes = await liarAndHonest(...lyingAnswer('evm', 'eth_getLogs', [filter], [log({ blockHash: hash('e') })], [log({})]));
    await expectLieCaught(nodes, 'eth_getLogs', [filter], [log({})], 'log-block-hash');
  });
});

describe('Solana answers that contradict the question', () => {
  const SIGNATURE = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';
  const OTHER_SIGNATURE = '4VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';

  it('a getTransaction without the asked signature (transaction-signature) is asked of the honest node', async () => {
    const params = [SIGNATURE, { encoding: 'json', maxSupportedTransactionVersion: 0 }];
    const truth = { slot: 100, transaction: { signatures: [SIGNATURE], message: {} }, meta: null };
    const lie = { ...truth, transaction: { signatures: [OTHER_SIGNATURE], message: {} } };
    const nodes = await liarAndHonest(...lyingAnswer('solana', 'getTransaction', params, lie, truth));
    await expectLieCaught(nodes, 'getTransaction', params, truth, 'transaction-signature');
  });

  it('a context slot below the minContextSlot sent (min-context-slot) is asked of the honest node', async () => {
    const params = ['83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a', { commitment: 'confirmed', minContextSlot: 1_000 }];
    const truth = { context: { slot: 1_000 }, value: 5 };
    const nodes = await liarAndHonest(...lyingAnswer('solana', 'getBalance', params, { context: { slot: 999 }, value: 7 }, truth));
    await expectLieCaught(nodes, 'getBalance', params, truth, 'min-context-slot');
  });
});

describe('chain facts that contradict the verified chain', () => {
  // The liar passes the chain guard's check (its 1st answer), then lies (every 2nd answer).
  it('eth_chainId off expectedChain after verification (chain-id) is asked of the honest node', async () => {
    const chainId = [resultFixture('evm', 'eth_chainId', [], '0x1')];
    const nodes = await liarAndHonest(
      { fixtures: chainId, behaviours: [{ type: 'wrong-genesis', evmChainId: 5, everyNth: 2 }] },
      { fixtures: chainId },
      { expectedChain: { chainId: 1 } },
    );
    await expectLieCaught(nodes, 'eth_chainId', [], '0x1', 'chain-id', 1);
  });

  it('a Solana genesis hash off expectedChain after verification (genesis-hash) is asked of the honest node', async () => {
    const mainnet = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';
    const genesis = [resultFixture('solana', 'getGenesisHash', [], mainnet)];
    const nodes = await liarAndHonest(
      { fixtures: genesis, behaviours: [{ type: 'wrong-genesis', everyNth: 2 }] },
      { fixtures: genesis },
      { expectedChain: { genesisHash: mainnet } },
    );
    await expectLieCaught(nodes, 'getGenesisHash', [], mainnet, 'genesis-hash', 1);
  });

  it('an EVM block 0 of another hash than expectedChain.genesisHash (genesis-hash) is asked of the honest node', async () => {
    const block0 = { number: '0x0', hash: ASKED, parentHash: hash('0') };
    const fixtures = [resultFixture('evm', 'eth_getBlockByNumber', ['0x0', false], block0)];
    const nodes = await liarAndHonest(
      { fixtures, behaviours: [{ type: 'wrong-genesis', evmGenesisHash: OTHER, everyNth: 2 }] },
      { fixtures },
      { expectedChain: { genesisHash: ASKED } },
    );
    await expectLieCaught(nodes, 'eth_getBlockByNumber', ['0x0', false], block0, 'genesis-hash', 1);
  });

  it('an endpoint with verifyChain: false is not held to expectedChain', async () => {
    const clock = createFakeClock();
    const node = await createFixtureServer({ fixtures: [resultFixture('evm', 'eth_chainId', [], '0x5')], clock });
    try {
      const pool = createPool({ endpoints: [{ id: 'opted-out', url: node.url, verifyChain: false }], expectedChain: { chainId: 1 }, clock, random: createSeededRandom(28) });
      await expect(pool.request('eth_chainId', [])).resolves.toBe('0x5');
    } finally {
      await closePools();
      await node.close();
    }
  });
});

describe('a lie with nowhere else to go, and the switch', () => {
  const truth = { number: '0x10', hash: ASKED };
  const lie = { number: '0x11', hash: ASKED };

  it('fails INVALID_RESPONSE naming the check, with no URL or key in the message', async () => {
    const nodes = await liarAndHonest(...lyingAnswer('evm', 'eth_getBlockByNumber', ['0x10', false], lie, truth), { retry: { maxRetries: 0 } }, false);
    const error = await rejection(nodes.pool.request('eth_getBlockByNumber', ['0x10', false]));
    expect(error).toMatchObject({ code: 'INVALID_RESPONSE', endpointId: 'liar', context: { reason: 'integrity', check: 'block-number' } });
    expect(error.message).toContain('integrity: block-number');
    expect(`${error.message} ${JSON.stringify(error.context)}`).not.toMatch(/SECRET|127\.0\.0\.1/);
  });

  it('integrity: false takes the answer as it comes', async () => {
    const nodes = await liarAndHonest(...lyingAnswer('evm', 'eth_getBlockByNumber', ['0x10', false], lie, truth), { integrity: false });
    await expect(nodes.pool.request('eth_getBlockByNumber', ['0x10', false])).resolves.toEqual(lie);
    expect(nodes.honest.count()).toBe(0);
  });

  it('a batch item that lies is asked again of the honest node; the others keep their answers', async () => {
    const [liar, honest] = lyingAnswer('evm', 'eth_getBlockByNumber', ['0x10', false], lie, truth);
    const chainId = resultFixture('evm', 'eth_chainId', [], '0x1');
    const nodes = await liarAndHonest({ fixtures: [...liar.fixtures, chainId] }, { fixtures: [...honest.fixtures, chainId] });
    const results = await nodes.pool.batch([
      { method: 'eth_chainId', params: [] },
      { method: 'eth_getBlockByNumber', params: ['0x10', false] },
    ]);
    expect(results).toEqual([expect.objectContaining({ ok: true, result: '0x1' }), expect.objectContaining({ ok: true, result: truth })]);
    expect(nodes.honest.count('eth_getBlockByNumber')).toBe(1);
    expect(nodes.failures).toEqual([expect.objectContaining({ endpointId: 'liar', detail: 'integrity', check: 'block-number' })]);
  });
});
