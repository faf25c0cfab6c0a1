import { base58, base64 } from '@scure/base';
import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import type { HttpExecutor, RawOutcome } from '../../src/http/executor.js';
import { createUndiciExecutor } from '../../src/http/undici-executor.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createSolanaClient } from '../../src/solana/client.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { closeAllServers, sendBody, sendResult, startRpcServer, type RpcHandler } from '../helpers/loopback.js';
import { closePools, createPool, rejection } from '../helpers/pools.js';
import { signatureOf, wireTransaction } from '../helpers/solana-wire.js';
import { createTestPool, endpoint, track } from '../pool/pool-fixtures.js';

/**
 * Safety rules that users depend on, each held at the server (loopback sockets) or at the
 * caller, independently of the unit tests that hold them too.
 */

afterEach(async () => {
  await closeAllServers();
  await closePools();
});

/** A node: `sendTransaction` answered with the transaction's signature, anything else with 42. */
const echoSignature: RpcHandler = (request, { res }) =>
  sendResult(res, request.id, request.method === 'sendTransaction' ? JSON.stringify(signatureOf((request.params as [string])[0])) : '42');
const answer42: RpcHandler = (request, { res }) => sendResult(res, request.id, '42');

describe('a custom executor that breaks its contract during a send', () => {
  /** Writes the request for real (undici), then breaks the contract the way `misbehave` says. */
  const brokenAfterWriting = (misbehave: (real: RawOutcome) => unknown): HttpExecutor => {
    const inner = createUndiciExecutor();
    return {
      async execute(request) {
        return misbehave(await inner.execute(request)) as RawOutcome;
      },
      close: () => inner.close(),
    };
  };

  it.each<[string, (real: RawOutcome) => unknown]>([
    ['throws after the node received the send', () => {
      throw new Error('executor bug');
    }],
    ['resolves with garbage after the node received the send', () => ({ type: 'response', status: 200 })],
    ['resolves with an unknown outcome type', () => ({ type: 'maybe' })],
  ])('%s: one arrival, AMBIGUOUS_DISPATCH with the signature, the peer gets nothing', async (_, misbehave) => {
    const primary = await startRpcServer(echoSignature);
    const peer = await startRpcServer(echoSignature);
    const pool = createPool({
      endpoints: [{ id: 'primary', url: primary.url, tier: 0 }, { id: 'peer', url: peer.url, tier: 1 }],
      executor: brokenAfterWriting(misbehave),
    });
    const tx = wireTransaction(41);
    const error = await rejection(createSolanaClient(pool).sendTransaction(tx));
    expect(error.code).toBe('AMBIGUOUS_DISPATCH');
    expect(error.signature).toBe(signatureOf(tx));
    expect([primary.count('sendTransaction'), peer.count()]).toEqual([1, 0]);
  });

  it('one that throws before writing anything is still treated as possibly dispatched: nothing goes to the peer', async () => {
    const peer = await startRpcServer(echoSignature);
    const pool = createPool({
      endpoints: [{ id: 'primary', url: 'http://127.0.0.1:9/', tier: 0 }, { id: 'peer', url: peer.url, tier: 1 }],
      executor: {
        execute: () => Promise.reject(new Error('executor bug')),
        close: () => Promise.resolve(),
      },
    });
    const error = await rejection(createSolanaClient(pool).sendTransaction(wireTransaction(42)));
    expect(error.code).toBe('AMBIGUOUS_DISPATCH');
    expect(peer.count()).toBe(0);
  });
});

describe('FIFO fairness: a newcomer never overtakes a queued caller at a refill instant', () => {
  it.each([
    ['pool.request()', 'request'],
    ['acquireForRequestKind()', 'acquire'],
  ] as const)('%s arriving at the very instant a token refills waits behind the caller queued before it', async (_, path) => {
    const t = createTestPool([endpoint('a', { requestsPerSecond: 1, burstCapacity: 1 })]);
    t.executor.script('a', (request, id) => ({ type: 'response', status: 200, headers: {}, body: JSON.stringify({ jsonrpc: '2.0', id, result: request.body.includes('"queued"') ? 'queued' : 'newcomer' }) }));
    await t.pool.request('getSlot', ['first']);
    // Registered before the queued caller exists, this timer fires at the refill instant
    // (1 000 ms) before the queue's own wake-up: the newcomer arrives first and finds a token.
    let newcomer: ReturnType<typeof track> | undefined;
    t.clock.setTimer(() => {
      newcomer = track(
        path === 'request' ? t.pool.request('getSlot', ['newcomer'], { timeoutMs: 5_000 }) : t.pool.acquireForRequestKind('read', { timeoutMs: 5_000 }),
        t.clock,
      );
    }, 1_000);
    const queued = track(t.pool.request('getSlot', ['queued'], { timeoutMs: 5_000 }), t.clock);
    await t.clock.flush();
    await t.clock.advance(1_000);
    expect(queued.value).toBe('queued');
    expect(queued.atMs).toBe(1_000);
    expect(newcomer?.settled).toBe(false);
    await t.clock.advance(1_000);
    expect(newcomer?.atMs).toBe(2_000);
    if (path === 'request') expect(t.executor.received.map((r) => (JSON.parse(r.body) as { params: string[] }).params[0])).toEqual(['first', 'queued', 'newcomer']);
  });
});

describe('aborts, at the server', () => {
  const oneAtATime = (url: string) => createPool({ endpoints: [{ id: 'a', url, maxConcurrentRequests: 1 }] });

  it('an aborted waiter leaves the queue at once: it rejects now, and the next caller takes the freed permit', async () => {
    const server = await startRpcServer(answer42);
    const pool = oneAtATime(server.url);
    const held = await pool.acquireForRequestKind('read', { timeoutMs: 1_000 });
    const controller = new AbortController();
    const aborted = pool.request('getSlot', ['aborted'], { signal: controller.signal, timeoutMs: 5_000 });
    const next = pool.request('getSlot', ['next'], { timeoutMs: 5_000 });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ code: 'ABORTED' });
    held.release();
    await expect(next).resolves.toBe(42);
    expect(server.received.map((r) => r.params)).toEqual([['next']]);
  });

  it('a request whose signal is already aborted is never written', async () => {
    const server = await startRpcServer(answer42);
    const pool = oneAtATime(server.url);
    await expect(pool.request('getSlot', [], { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(pool.request('getSlot', ['after'])).resolves.toBe(42);
    expect(server.received.map((r) => r.params)).toEqual([['after']]);
  });

  it('an abort in the same tick as the call sends nothing, a send included', async () => {
    const server = await startRpcServer(echoSignature);
    const pool = oneAtATime(server.url);
    const controller = new AbortController();
    const call = createSolanaClient(pool).sendTransaction(wireTransaction(43), {}, { signal: controller.signal });
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(pool.request('getSlot', [])).resolves.toBeDefined();
    expect(server.count('sendTransaction')).toBe(0);
  });

  it('an abort right after admission, before the attempt, sends nothing', async () => {
    const server = await startRpcServer(echoSignature);
    const pool = oneAtATime(server.url);
    const held = await pool.acquireForRequestKind('submit', { timeoutMs: 1_000 });
    const controller = new AbortController();
    const call = createSolanaClient(pool).sendTransaction(wireTransaction(44), {}, { signal: controller.signal, timeoutMs: 5_000 });
    await new Promise((resolve) => setImmediate(resolve));
    held.release(); // admits the waiting send synchronously…
    controller.abort(); // …and the caller aborts before its attempt starts
    await expect(call).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(pool.request('getSlot', [])).resolves.toBeDefined();
    expect(server.count('sendTransaction')).toBe(0);
  });
});

describe('a provider’s cooldown is capped at 60 s, at the server', () => {
  it('Retry-After: 3600 keeps the endpoint quiet for exactly 60 s, then it is used again', async () => {
    let answered = 0;
    const server = await startRpcServer((request, { res }) => {
      if (answered++ === 0) sendBody(res, 'Too Many Requests', 429, { 'retry-after': '3600' });
      else sendResult(res, request.id, '7');
    });
    const clock = createFakeClock();
    const pool = new HttpTransportPool({ endpoints: [{ id: 'a', url: server.url }], clock, random: createSeededRandom(3), retry: { maxRetries: 0 } });
    try {
      await expect(pool.request('getSlot', [], { timeoutMs: 1_000 })).rejects.toMatchObject({ code: 'RATE_LIMITED' });
      await clock.advance(59_999);
      await expect(pool.request('getSlot', [], { timeoutMs: 1 })).rejects.toMatchObject({ code: 'RATE_LIMITED', context: { retryAfterMs: 1 } });
      expect(server.count()).toBe(1);
      await clock.advance(1);
      await expect(pool.request('getSlot', [], { timeoutMs: 1_000 })).resolves.toBe(7);
      expect(server.count()).toBe(2);
    } finally {
      await pool.close();
    }
  });
});

describe('the base58 default of sendTransaction’s encoding', () => {
  it('a send with no encoding is read as base58: the ambiguous error carries its true signature', async () => {
    const server = await startRpcServer((_request, { socket }) => socket.resetAndDestroy());
    const pool = createPool({ endpoints: [{ id: 'a', url: server.url }] });
    const tx58 = base58.encode(base64.decode(wireTransaction(45)));
    const error = await rejection(pool.request('sendTransaction', [tx58]));
    expect(error.code).toBe('AMBIGUOUS_DISPATCH');
    expect(error.signature).toBe(signatureOf(wireTransaction(45)));
    expect(server.count('sendTransaction')).toBe(1);
  });

  it('a base58 send answered with its own signature resolves; answered with another, it is ambiguous', async () => {
    const tx58 = base58.encode(base64.decode(wireTransaction(46)));
    const honest = await startRpcServer((request, { res }) => sendResult(res, request.id, JSON.stringify(signatureOf(wireTransaction(46)))));
    await expect(createPool({ endpoints: [{ url: honest.url }] }).request('sendTransaction', [tx58])).resolves.toBe(signatureOf(wireTransaction(46)));
    const liar = await startRpcServer((request, { res }) => sendResult(res, request.id, JSON.stringify(signatureOf(wireTransaction(47)))));
    const error = await rejection(createPool({ endpoints: [{ url: liar.url }] }).request('sendTransaction', [tx58]));
    expect(error).toMatchObject({ code: 'AMBIGUOUS_DISPATCH', context: { reason: 'send-result-mismatch' } });
  });
});
