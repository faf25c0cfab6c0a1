import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createSolanaClient } from '../../src/solana/client.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { closeAllServers, sendBody, sendResult, startRpcServer, type RpcServer } from '../helpers/loopback.js';
import { signatureOf, wireTransaction } from '../helpers/solana-wire.js';

afterEach(closeAllServers);

const ADDRESS = '83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaY3mDLVcri';

/**
 * A Solana fixture node at `slot()` that honours `minContextSlot` as a real node does: below it,
 * -32016 "Minimum context slot has not been reached" (never processed). Its sends land at its
 * slot; its statuses say so.
 */
async function solanaNode(slot: () => number): Promise<RpcServer & { refused: number }> {
  const state = { refused: 0 };
  const server = await startRpcServer((request, { res }) => {
    const params = (request.params ?? []) as unknown[];
    const config = params.find((p): p is { minContextSlot?: number } => typeof p === 'object' && p !== null && !Array.isArray(p));
    const now = slot();
    if (config?.minContextSlot !== undefined && config.minContextSlot > now) {
      state.refused++;
      const body = { jsonrpc: '2.0', id: request.id, error: { code: -32016, message: 'Minimum context slot has not been reached', data: { contextSlot: now } } };
      return sendBody(res, JSON.stringify(body));
    }
    const context = `{"apiVersion":"2.2.1","slot":${now}}`;
    switch (request.method) {
      case 'sendTransaction':
        return sendResult(res, request.id, JSON.stringify(signatureOf(params[0] as string)));
      case 'getSignatureStatuses':
        return sendResult(res, request.id, `{"context":${context},"value":[{"slot":${now},"confirmations":0,"err":null,"confirmationStatus":"confirmed"}]}`);
      case 'getBalance':
        return sendResult(res, request.id, `{"context":${context},"value":5000}`);
      default:
        return sendResult(res, request.id, String(now));
    }
  });
  return Object.defineProperty(server, 'refused', { get: () => state.refused }) as RpcServer & { refused: number };
}

/** One node 6 slots ahead of the other (inside the sync allowance: both serve reads). */
async function twoNodes() {
  let tip = 10_000;
  const ahead = await solanaNode(() => tip);
  const behind = await solanaNode(() => tip - 6);
  const pool = new HttpTransportPool({
    endpoints: [
      { id: 'ahead', url: ahead.url, operator: 'alpha-rpc.com' },
      { id: 'behind', url: behind.url, operator: 'beta-node.net' },
    ],
    // A clock that stands still: a retry that had to wait for a backoff would never end.
    clock: createFakeClock(),
    random: createSeededRandom(5),
    balance: false,
    hedge: false,
    coalesce: false,
  });
  return { ahead, behind, pool, advance: () => (tip += 2) };
}

/** `cycles` send → confirmed status (seen on the node ahead, as a confirmation often is first) → balance reads; how many reads came back older than the send's slot. */
async function cycles(requester: HttpTransportPool | ReturnType<HttpTransportPool['session']>, advance: () => void, count: number) {
  const client = createSolanaClient(requester);
  let older = 0;
  for (let i = 0; i < count; i++) {
    advance();
    const signature = (await requester.request('sendTransaction', [wireTransaction(i), { encoding: 'base64' }])) as string;
    const statuses = (await requester.request('getSignatureStatuses', [[signature]], { endpoint: 'ahead' })) as { value: [{ slot: number }] };
    const sentAt = BigInt(statuses.value[0].slot);
    for (let read = 0; read < 2; read++) {
      const balance = await client.getBalance(ADDRESS);
      if (balance.slot < sentAt) older++;
    }
  }
  return older;
}

describe('sessions on Solana: minContextSlot from the floor', () => {
  it('a read after a confirmed send never returns a context slot below the send’s; the node behind refuses (-32016) and the other answers at once, at no cost to its reputation', async () => {
    const { ahead, behind, pool, advance } = await twoNodes();
    const session = pool.session();
    const older = await cycles(session, advance, 50);
    expect(older).toBe(0);
    expect(session.floor('slot')).toBeGreaterThanOrEqual(10_000n);
    // The node behind was asked with the floor and refused some reads; the pool went elsewhere.
    expect(behind.refused).toBeGreaterThan(0);
    expect(behind.received.some((r) => JSON.stringify(r.params).includes('"minContextSlot"'))).toBe(true);
    expect(ahead.count('getBalance')).toBeGreaterThan(0);
    // Lag, not failure: its reputation is untouched.
    const view = pool.snapshot().endpoints.find((e) => e.endpointId === 'behind')!;
    expect(view.reputation?.band).toBe('good');
    await pool.close();
  });

  it('without a session (the plain pool) reads after a confirmed send do come back older: the number for docs/reads.md', async () => {
    const { pool, advance } = await twoNodes();
    const older = await cycles(pool, advance, 50);
    console.log(`solana, plain pool: ${older} of 100 reads after a confirmed send older than the send`);
    expect(older).toBeGreaterThan(0);
    await pool.close();
  });

  it('a call may opt out (floor: false): nothing is added to its params, and its answer still raises the floor', async () => {
    const { behind, pool } = await twoNodes();
    const session = pool.session();
    session.raiseFloor('slot', 20_000n);
    const slot = await session.request('getSlot', [], { floor: false, endpoint: 'behind' });
    expect(slot).toBe(9_994);
    expect(behind.received.at(-1)?.params).toEqual([]);
    expect(session.floor('slot')).toBe(20_000n);
    await session.request('getSlot', [{ commitment: 'confirmed' }], { floor: false, endpoint: 'behind' });
    expect(behind.received.at(-1)?.params).toEqual([{ commitment: 'confirmed' }]);
    await pool.close();
  });

  it('many sessions share one pool and a dropped one leaves nothing: each keeps its own floor', async () => {
    const { pool } = await twoNodes();
    const a = pool.session();
    const b = pool.session();
    await a.request('getSlot', [], { endpoint: 'ahead' });
    expect(a.floor('slot')).toBe(10_000n);
    expect(b.floor('slot')).toBeUndefined();
    await pool.close();
  });
});
