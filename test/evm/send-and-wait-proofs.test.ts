import { afterEach, describe, expect, it } from 'vitest';
import { createEvmClient, type SendAndWaitReturnType } from '../../src/evm/index.js';
import { createFakeClock, type FakeClock } from '../../src/testing/index.js';
import { closeAllServers, loadFixture } from '../helpers/loopback.js';
import { drive, lyingFleet, type NodeScript } from '../helpers/lying-nodes.js';
import { closePools } from '../helpers/pools.js';
import { rejection, stub } from '../helpers/stub-requester.js';

/**
 * `sendAndWait`'s `expired` and `confirmed` are proofs (issue 24 §1): with two honest nodes
 * and one liar on loopback, no lie of one node makes a transaction that gets mined
 * `expired`, carries another transaction's receipt, or counts more confirmations than the
 * honest chain has.
 */

const RAW = loadFixture('evm-eth_sendRawTransaction').request.params[0] as string;
const HASH = loadFixture('evm-eth_sendRawTransaction').expect?.['result'] as string;
const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const TO = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const OTHER_HASH = `0x${'ab'.repeat(32)}`;

/** The honest chain: block 100 at t = 0, one block a second. */
const headAt = (nowMs: number) => 100 + Math.floor(nowMs / 1_000);
const hex = (n: number) => `0x${n.toString(16)}`;

function receipt(transactionHash: string, blockNumber: number, status: '0x1' | '0x0') {
  return {
    transactionHash,
    transactionIndex: '0x0',
    blockHash: `0x${'cd'.repeat(32)}`,
    blockNumber: hex(blockNumber),
    from: FROM,
    to: TO,
    cumulativeGasUsed: '0x5208',
    gasUsed: '0x5208',
    effectiveGasPrice: '0x3b9aca00',
    contractAddress: null,
    logs: [],
    logsBloom: `0x${'00'.repeat(256)}`,
    status,
    type: '0x2',
  };
}

/** When the transaction is mined (fake-clock ms). */
interface Landing {
  landsAtMs: number;
}

function honestNode(landing: Landing): NodeScript {
  return (method, params, nowMs) => {
    const mined = nowMs >= landing.landsAtMs;
    const minedAt = headAt(landing.landsAtMs);
    switch (method) {
      case 'eth_sendRawTransaction':
        return HASH;
      case 'eth_getTransactionReceipt':
        return params[0] === HASH && mined ? receipt(HASH, minedAt, '0x1') : null;
      case 'eth_getTransactionByHash':
        if (params[0] !== HASH) return null;
        return {
          hash: HASH, nonce: '0x0', from: FROM, to: TO, value: '0xde0b6b3a7640000', gas: '0x5208', input: '0x', type: '0x2', chainId: '0x7a69',
          blockHash: mined ? `0x${'cd'.repeat(32)}` : null, blockNumber: mined ? hex(minedAt) : null, transactionIndex: mined ? '0x0' : null,
        };
      case 'eth_getTransactionCount': {
        // Any other account has used 5 nonces.
        if (String(params[0]).toLowerCase() !== FROM) return '0x5';
        const block = params[1] === 'latest' ? headAt(nowMs) : Number(BigInt(params[1] as string));
        return mined && block >= minedAt ? '0x1' : '0x0';
      }
      case 'eth_blockNumber':
        return hex(headAt(nowMs));
      case 'eth_chainId':
        return '0x7a69';
      default:
        return undefined;
    }
  };
}

const liarWith = (honest: NodeScript, lie: NodeScript): NodeScript => (method, params, nowMs) => lie(method, params, nowMs) ?? honest(method, params, nowMs);

async function runs(clock: FakeClock, count: number, run: () => Promise<SendAndWaitReturnType>): Promise<SendAndWaitReturnType[]> {
  const outcomes: SendAndWaitReturnType[] = [];
  for (let i = 0; i < count; i++) outcomes.push(await drive(clock, run()));
  return outcomes;
}

afterEach(async () => {
  await closePools();
  await closeAllServers();
});

describe('EVM sendAndWait proves expiry and depth with two operators and the trusted head', () => {
  it('a node answering eth_getTransactionCount 0x100: 0 of 6 expired, all 6 confirmed once mined 1.5 s later', async () => {
    const clock = createFakeClock();
    const landing: Landing = { landsAtMs: 0 };
    const honest = honestNode(landing);
    const liar = liarWith(honest, (method) => (method === 'eth_getTransactionCount' ? '0x100' : undefined));
    const { pool, liar: liarServer } = await lyingFleet(clock, honest, liar, 'evm');
    const evm = createEvmClient(pool, { clock });
    const outcomes = await runs(clock, 6, () => {
      landing.landsAtMs = clock.now() + 1_500;
      return evm.sendAndWait(RAW, { timeoutMs: 20_000 });
    });
    expect(outcomes.map((o) => o.status)).toEqual(Array(6).fill('confirmed'));
    expect(liarServer.count('eth_getTransactionCount')).toBeGreaterThan(0);
  });

  it('a node answering another transaction’s (reverted) receipt: 0 of 6 foreign receipts, in sendAndWait and the typed getTransactionReceipt', async () => {
    const clock = createFakeClock();
    const landing: Landing = { landsAtMs: 0 };
    const honest = honestNode(landing);
    const liar = liarWith(honest, (method, _, nowMs) => (method === 'eth_getTransactionReceipt' ? receipt(OTHER_HASH, headAt(nowMs), '0x0') : undefined));
    const { pool, liar: liarServer } = await lyingFleet(clock, honest, liar, 'evm');
    const evm = createEvmClient(pool, { clock });
    const outcomes = await runs(clock, 6, () => {
      landing.landsAtMs = clock.now() + 1_500;
      return evm.sendAndWait(RAW, { timeoutMs: 20_000 });
    });
    expect(outcomes.map((o) => [o.status, o.status === 'confirmed' ? o.receipt.transactionHash : null, o.status === 'confirmed' ? o.receipt.status : null])).toEqual(
      Array(6).fill(['confirmed', HASH, 'success']),
    );
    const typed = await Promise.all(Array.from({ length: 6 }, () => drive(clock, evm.getTransactionReceipt(HASH, { coalesce: false }))));
    expect(typed.map((r) => r?.transactionHash)).toEqual(Array(6).fill(HASH));
    expect(liarServer.count('eth_getTransactionReceipt')).toBeGreaterThan(0);
  });

  it('the typed getTransactionReceipt refuses a receipt of another transaction from any requester (INVALID_RESPONSE)', async () => {
    const { requester } = stub(() => receipt(OTHER_HASH, 5, '0x0'));
    const error = await rejection(createEvmClient(requester).getTransactionReceipt(HASH));
    expect(error).toMatchObject({ code: 'INVALID_RESPONSE', context: { reason: 'integrity', check: 'receipt-hash' } });
    const byHash = stub(() => ({ hash: OTHER_HASH }));
    expect(await rejection(createEvmClient(byHash.requester).getTransactionByHash(HASH))).toMatchObject({ code: 'INVALID_RESPONSE', context: { reason: 'integrity', check: 'transaction-hash' } });
  });

  it('a node whose eth_blockNumber is 10^6 too high: depth never above what the honest chain allows', async () => {
    const clock = createFakeClock();
    const landing: Landing = { landsAtMs: 0 };
    const honest = honestNode(landing);
    const liar = liarWith(honest, (method, _, nowMs) => (method === 'eth_blockNumber' ? hex(headAt(nowMs) + 1_000_000) : undefined));
    const { pool, liar: liarServer } = await lyingFleet(clock, honest, liar, 'evm');
    const evm = createEvmClient(pool, { clock });
    // Mined now; 5 s later the honest chain is ≤ 6 blocks on top: 12 confirmations cannot be had.
    landing.landsAtMs = clock.now();
    const early = await drive(clock, evm.sendAndWait(RAW, { confirmations: 12, timeoutMs: 5_000 }));
    expect(early).toMatchObject({ status: 'unknown', receipt: { transactionHash: HASH } });
    // Given time, it is confirmed, with no more confirmations than the honest chain has.
    landing.landsAtMs = clock.now();
    const minedAt = BigInt(headAt(landing.landsAtMs));
    const later = await drive(clock, evm.sendAndWait(RAW, { confirmations: 12, timeoutMs: 60_000 }));
    expect(later.status).toBe('confirmed');
    const depth = (later as { confirmations: bigint }).confirmations;
    expect(depth).toBeGreaterThanOrEqual(12n);
    expect(depth).toBeLessThanOrEqual(BigInt(headAt(clock.now())) - minedAt + 1n);
    expect(liarServer.count('eth_blockNumber')).toBeGreaterThan(0);
  });

  it('a node naming another sender (one whose nonce is used) in eth_getTransactionByHash: 0 of 6 expired, all 6 confirmed', async () => {
    const clock = createFakeClock();
    const landing: Landing = { landsAtMs: 0 };
    const honest = honestNode(landing);
    const liar = liarWith(honest, (method, params, nowMs) => {
      if (method !== 'eth_getTransactionByHash') return undefined;
      return { ...(honest(method, params, nowMs) as object), from: TO };
    });
    const { pool, liar: liarServer } = await lyingFleet(clock, honest, liar, 'evm');
    const evm = createEvmClient(pool, { clock });
    const outcomes = await runs(clock, 6, () => {
      landing.landsAtMs = clock.now() + 1_500;
      return evm.sendAndWait(RAW, { timeoutMs: 20_000 });
    });
    expect(outcomes.map((o) => o.status)).toEqual(Array(6).fill('confirmed'));
    expect(liarServer.count('eth_getTransactionByHash')).toBeGreaterThan(0);
  });

  it('a replacement is still proven expired by the two honest operators', async () => {
    const clock = createFakeClock();
    const landing: Landing = { landsAtMs: Number.POSITIVE_INFINITY };
    const base = honestNode(landing);
    // Another transaction used nonce 0 at block 100: the count is 1 from there on, and this one is never mined.
    const replaced: NodeScript = (method, params, nowMs) => (method === 'eth_getTransactionCount' ? (Number(BigInt(params[1] as string)) >= 100 ? '0x1' : '0x0') : base(method, params, nowMs));
    const { pool } = await lyingFleet(clock, replaced, replaced, 'evm');
    const outcome = await drive(clock, createEvmClient(pool, { clock }).sendAndWait(RAW, { timeoutMs: 20_000 }));
    expect(outcome).toMatchObject({ status: 'expired', reason: 'nonce-used-by-another-transaction', nonce: 0n });
  });
});
