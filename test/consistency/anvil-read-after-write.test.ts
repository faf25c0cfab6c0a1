/**
 * Read-after-write on real anvils (issue 27 §Tests; the set-up is `helpers/lagging-chain.ts`):
 * three nodes of one chain behind loopback load balancers, node 2 one or two blocks behind
 * (inside the sync allowance), the pool rotating round-robin as a load balancer does. 200
 * cycles of send → wait for the receipt → read the receipt again and the recipient's balance,
 * through the plain pool, a session, and viem's `waitForTransactionReceipt` over each.
 */
import { createPublicClient, custom, TransactionReceiptNotFoundError, WaitForTransactionReceiptTimeoutError } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sturdyTransport } from '../../src/adapters/viem.js';
import type { RpcRequester } from '../../src/api/request-options.js';
import type { PoolSession } from '../../src/consistency/session.js';
import { LaggingChain, RECIPIENT, rawApp, type App, type Observed } from '../helpers/lagging-chain.js';
import { closeAllServers } from '../helpers/loopback.js';

const CYCLES = 200;
let chain: LaggingChain;

beforeAll(async () => {
  chain = await LaggingChain.start();
}, 30_000);
afterEach(closeAllServers);
afterAll(async () => {
  await chain.stop();
});

function viemApp(requester: RpcRequester): App {
  const client = createPublicClient({ transport: sturdyTransport(requester, { custom }), pollingInterval: 5 });
  return {
    send: (serializedTransaction) => client.sendRawTransaction({ serializedTransaction }),
    // Bounded: a wait that reached a node without the transaction waits for a block that never comes (counted wrong).
    waitForReceipt: (hash) =>
      client.waitForTransactionReceipt({ hash, pollingInterval: 5, timeout: 5_000 }).then(
        () => true,
        (error: unknown) => {
          if (error instanceof WaitForTransactionReceiptTimeoutError) return false;
          throw error;
        },
      ),
    receipt: (hash) =>
      client.getTransactionReceipt({ hash }).catch((error: unknown) => {
        if (error instanceof TransactionReceiptNotFoundError) return null;
        throw error;
      }),
    balance: () => client.getBalance({ address: RECIPIENT }),
  };
}

/** The cycles through the plain pool, then through a session of a fresh pool (what reached a node below its floor counted). */
async function plainAndSession(appOf: (requester: RpcRequester) => App) {
  const plainPool = await chain.pool({ belowFloor: 0, reads: 0 }, () => undefined);
  const plain = await chain.cycles(appOf(plainPool), CYCLES);
  await plainPool.close();
  let session: PoolSession | undefined;
  const seen: Observed = { belowFloor: 0, reads: 0 };
  const pool = await chain.pool(seen, () => session?.floor('block'));
  session = pool.session();
  const throughSession = await chain.cycles(appOf(session), CYCLES);
  await pool.close();
  return { plain, throughSession, seen };
}

describe('read-after-write on anvils a block or two apart, behind load balancers', () => {
  it('through a session: 0 null receipts, 0 balances older than the send, no read reaches a node below the floor; the plain pool reads the node behind', async () => {
    const { plain, throughSession, seen } = await plainAndSession(rawApp);
    process.stdout.write(`${CYCLES} cycles: plain pool ${JSON.stringify(plain)}; session ${JSON.stringify(throughSession)}, ${seen.belowFloor} of ${seen.reads} reads below the floor\n`);
    expect(throughSession).toEqual({ nullReceipts: 0, olderBalances: 0 });
    expect(seen.belowFloor).toBe(0);
    expect(plain.nullReceipts + plain.olderBalances).toBeGreaterThan(0);
  }, 120_000);

  it("through viem's waitForTransactionReceipt over a session: the same; over the plain pool, wrong answers", async () => {
    const { plain, throughSession, seen } = await plainAndSession(viemApp);
    process.stdout.write(`${CYCLES} viem cycles: plain pool ${JSON.stringify(plain)}; session ${JSON.stringify(throughSession)}, ${seen.belowFloor} of ${seen.reads} reads below the floor\n`);
    expect(throughSession).toEqual({ nullReceipts: 0, olderBalances: 0 });
    expect(seen.belowFloor).toBe(0);
    expect(plain.nullReceipts + plain.olderBalances).toBeGreaterThan(0);
  }, 120_000);
});
