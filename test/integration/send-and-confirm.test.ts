import { afterEach, describe, expect, it } from 'vitest';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createSolanaClient } from '../../src/solana/index.js';
import { createFakeClock } from '../../src/testing/index.js';
import { closeAllServers, loadFixture, sendBody, startRpcServer } from '../helpers/loopback.js';

/**
 * sendAndConfirm through the real pool and sockets against a fake Solana node (there is
 * no real Solana node here): a send whose answer is lost after the node read it is never
 * sent again, and still ends confirmed — what a wallet needs to know before re-signing.
 */

const WIRE = loadFixture('solana-sendTransaction').request.params[0] as string;
const SIGNATURE = loadFixture('solana-sendTransaction').expect?.['signature'] as string;

const pools: HttpTransportPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  await closeAllServers();
});

/** A node that processes the send (it "lands" at once), then resets the socket instead of answering. */
async function losingNode() {
  let landed = false;
  return startRpcServer((request, { res, socket }) => {
    const id = request.id;
    if (request.method === 'sendTransaction') {
      landed = true;
      socket.resetAndDestroy();
      return;
    }
    if (request.method === 'getSignatureStatuses') {
      const status = landed ? { slot: 77, confirmations: 3, err: null, status: { Ok: null }, confirmationStatus: 'confirmed' } : null;
      return sendBody(res, JSON.stringify({ jsonrpc: '2.0', id, result: { context: { slot: 80 }, value: [status] } }));
    }
    sendBody(res, JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }));
  });
}

describe('sendAndConfirm through the pool', () => {
  it('a send whose answer is lost after the node read it ends confirmed, with one arrival at the node', async () => {
    const node = await losingNode();
    const clock = createFakeClock();
    const pool = new HttpTransportPool({ endpoints: [{ id: 'node', url: node.url }], chain: 'solana', clock });
    pools.push(pool);
    const outcome = await createSolanaClient(pool, { clock }).sendAndConfirm(WIRE, { lastValidBlockHeight: 1_000 });
    expect(outcome).toEqual({ status: 'confirmed', signature: SIGNATURE, slot: 77n, err: null, confirmationStatus: 'confirmed', dispatch: 'ambiguous' });
    expect(node.count('sendTransaction')).toBe(1);
    expect(node.received.map((r) => r.method)).toEqual(['sendTransaction', 'getSignatureStatuses']);
  });

  it('with two endpoints, the lost send is still not sent to the other one', async () => {
    const node = await losingNode();
    const other = await losingNode();
    const clock = createFakeClock();
    const pool = new HttpTransportPool({
      endpoints: [
        { id: 'a', url: node.url, tier: 0 },
        { id: 'b', url: other.url, tier: 1 },
      ],
      chain: 'solana',
      clock,
    });
    pools.push(pool);
    const outcome = await createSolanaClient(pool, { clock }).sendAndConfirm(WIRE, { lastValidBlockHeight: 1_000 });
    expect(outcome).toMatchObject({ status: 'confirmed', dispatch: 'ambiguous' });
    expect(node.count('sendTransaction') + other.count('sendTransaction')).toBe(1);
  });
});
