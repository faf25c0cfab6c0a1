import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { closePools, createPool, rejection } from '../helpers/pools.js';
import { createScriptedExecutor, ok } from '../helpers/scripted-executor.js';
import { signatureOf, wireTransaction } from '../helpers/solana-wire.js';

/**
 * The browser build's send ids: the pool here runs with `send-ids.browser.ts` in place of
 * `send-ids.ts`, as scripts/build-browser.mjs builds it, so a send's id is computed by code
 * loaded on the first send. A plain `pool.request` or `pool.batch` of a send still carries the
 * id its bytes give (an answer that is another id is ambiguous, with the id computed locally),
 * and when that code cannot be loaded the call fails with `LOAD_FAILED` and nothing reaches a
 * node; the next send loads it again. Scripted executor, fake clock: what the executor received
 * is what the nodes saw. (Node imports the reader statically: the send tests of
 * test/integration and test/pool cover it.)
 */
vi.mock('../../src/pipeline/send-ids.js', () => import('../../src/pipeline/send-ids.browser.js'));

afterEach(async () => {
  vi.doUnmock('../../src/jsonrpc/transaction-id.js');
  await closePools();
});

const RAW_TX = `0x02${'ab'.repeat(80)}`;
const HASH = `0x${bytesToHex(keccak_256(hexToBytes(RAW_TX.slice(2))))}`;
const OTHER_HASH = `0x${'11'.repeat(32)}`;

function poolAnswering(result: unknown) {
  const executor = createScriptedExecutor({ a: [(request, id) => ok(request.body.includes('"getSignatureStatuses"') ? null : result, id)] });
  const pool = createPool({
    endpoints: [{ id: 'a', url: 'http://127.0.0.1:1', tier: 0 }],
    executor,
    clock: createFakeClock(),
    random: createSeededRandom(7),
    retry: { maxRetries: 0 },
  });
  return { pool, executor };
}

// First in the file: the load has not happened yet in this module registry.
describe('when the code that computes a send id cannot be loaded', () => {
  it('fails the send with LOAD_FAILED, sends nothing, and loads again on the next send', async () => {
    vi.doMock('../../src/jsonrpc/transaction-id.js', () => {
      throw new Error('chunk transaction-id.js: network error');
    });
    const { pool, executor } = poolAnswering(HASH);
    const error = await rejection(pool.request('eth_sendRawTransaction', [RAW_TX]));
    expect(error.code).toBe('LOAD_FAILED');
    expect(error.context).toEqual({ module: 'transaction-id' });
    expect(executor.received).toEqual([]);
    // Reads need no send id: they go out while the send code is unavailable.
    await expect(pool.request('eth_blockNumber', [])).resolves.toBe(HASH);
    expect(executor.countFor('a', 'eth_blockNumber')).toBe(1);

    vi.doUnmock('../../src/jsonrpc/transaction-id.js');
    await expect(pool.request('eth_sendRawTransaction', [RAW_TX])).resolves.toBe(HASH);
    expect(executor.countFor('a', 'eth_sendRawTransaction')).toBe(1);
  });
});

describe('a send made with pool.request or pool.batch', () => {
  it('carries the EVM hash its bytes give: another hash in the answer is AMBIGUOUS_DISPATCH with the local hash', async () => {
    const { pool, executor } = poolAnswering(OTHER_HASH);
    const error = await rejection(pool.request('eth_sendRawTransaction', [RAW_TX]));
    expect(error.code).toBe('AMBIGUOUS_DISPATCH');
    expect(error.context).toMatchObject({ transactionHash: HASH, reason: 'send-result-mismatch' });
    expect(executor.countFor('a', 'eth_sendRawTransaction')).toBe(1);
  });

  it('carries the Solana signature its wire bytes give, in a batch too', async () => {
    const wire = wireTransaction(3);
    const { pool, executor } = poolAnswering('not-the-signature');
    const [item] = await pool.batch([{ method: 'sendTransaction', params: [wire, { encoding: 'base64' }] }]);
    expect(item).toMatchObject({ ok: false });
    const error = (item as { error: { code: string; context: unknown } }).error;
    expect(error.code).toBe('AMBIGUOUS_DISPATCH');
    expect(error.context).toMatchObject({ signature: signatureOf(wire) });
    expect(executor.countFor('a', 'sendTransaction')).toBe(1);
  });
});
