import { afterEach, describe, expect, it } from 'vitest';
import { LatencyQuantile, RetryBudget, hedgeDelayMs } from '../../src/balance/hedge-policy.js';
import type { EndpointConfig, HttpTransportPoolOptions } from '../../src/config/types.js';
import type { HedgeEvent } from '../../src/api/events.js';
import { createSolanaClient } from '../../src/solana/client.js';
import { closeAllServers, sendResult, startRpcServer, type RpcHandler } from '../helpers/loopback.js';
import { closePools, createPool, rejection } from '../helpers/pools.js';
import { answerAfter, type Script } from '../helpers/scripted-executor.js';
import { signatureOf, wireTransaction } from '../helpers/solana-wire.js';
import { createTestPool, track, type TestPool } from '../pool/pool-fixtures.js';

afterEach(async () => {
  await closeAllServers();
  await closePools();
});

describe('hedge policy', () => {
  it("'auto' waits maxDelayMs until 32 answers were seen, then the clamped p95 of good answers", () => {
    const q = new LatencyQuantile(0.95);
    expect(hedgeDelayMs({}, q)).toBe(2_000);
    for (let i = 0; i < 32; i++) q.observe(10);
    expect(hedgeDelayMs({}, q)).toBe(50); // p95 10 ms, clamped up to 50
    // Recomputed every 64 answers: at 160 answers, the slowest 10 % decide the p95.
    for (let i = 32; i < 160; i++) q.observe(i < 144 ? 10 : 900);
    expect(hedgeDelayMs({}, q)).toBe(900);
    expect(hedgeDelayMs({ maxDelayMs: 500 }, q)).toBe(500);
    const fast = new LatencyQuantile(0.95);
    for (let i = 0; i < 64; i++) fast.observe(3);
    expect(hedgeDelayMs({}, fast)).toBe(50);
    expect(hedgeDelayMs({ delayMs: 120 }, fast)).toBe(120);
  });

  it('hedges spend only tokens earned by calls, keeping half for retries; retries have a floor per second', () => {
    const budget = new RetryBudget(0.1, 0);
    let hedges = 0;
    for (let call = 0; call < 1_000; call++) {
      budget.deposit();
      if (budget.tryHedge()) hedges++;
    }
    // The 20-token bucket starts full: 10 above half, then 0.1 per call.
    expect(hedges).toBeLessThanOrEqual(10 + 100);
    expect(hedges).toBeGreaterThanOrEqual(100);
    let retries = 0;
    while (budget.tryRetry(0)) retries++;
    expect(retries).toBeLessThanOrEqual(20);
    expect(budget.tryRetry(0)).toBe(false);
    expect(budget.tryRetry(100)).toBe(true); // 10 per second: one more after 100 ms
  });
});

const after = (t: TestPool, latencyMs: number, result: unknown = 'x'): Script => answerAfter(t.clock, latencyMs, result);

function hedged(endpoints: EndpointConfig[], options: Partial<HttpTransportPoolOptions> = {}) {
  const t = createTestPool(endpoints, { hedge: { delayMs: 100 }, ...options });
  const hedges: HedgeEvent[] = [];
  const failures: string[] = [];
  t.pool.on('hedge', (e) => hedges.push(e));
  t.pool.on('failure', (e) => failures.push(`${e.endpointId}:${e.cause}`));
  return { ...t, hedges, failures };
}

const two = (): EndpointConfig[] => [
  { id: 'slow', url: 'https://slow-rpc.com/', tier: 0 },
  { id: 'fast', url: 'https://fast-rpc.net/', tier: 0 },
];

describe('hedged reads', () => {
  it('a read still unanswered after the delay goes to another endpoint; the first answer wins and the loser is cancelled, no-fault', async () => {
    const t = hedged([{ id: 'slow', url: 'https://slow-rpc.com/', tier: 0 }, { id: 'fast', url: 'https://fast-rpc.net/', tier: 1 }]);
    t.executor.script('slow', after(t, 5_000, 'from-slow'));
    t.executor.script('fast', after(t, 10, 'from-fast'));
    const call = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.advance(109);
    expect(call.settled).toBe(false);
    await t.clock.advance(1);
    expect(call.value).toBe('from-fast');
    expect(call.atMs).toBe(110);
    expect(t.executor.received.map((r) => r.endpointId)).toEqual(['slow', 'fast']);
    expect(t.hedges.map((e) => `${e.phase}:${e.endpointId}->${e.hedgeEndpointId}`)).toEqual(['started:slow->fast', 'won:slow->fast']);
    // The cancelled loser costs its endpoint nothing: no failure, no reputation change, no failure count.
    expect(t.failures).toEqual([]);
    const slow = t.pool.snapshot();
    expect(slow.endpoints.find((e) => e.endpointId === 'slow')?.reputation?.score).toBe(80);
    expect(slow.roles.find((r) => r.endpointId === 'slow' && r.kind === 'read')).toMatchObject({ failures: 0, inFlight: 0 });
    expect(slow.kinds.find((k) => k.kind === 'read')?.hedges).toEqual({ started: 1, won: 1, lost: 0 });
  });

  it('when the first attempt answers before the hedge, the hedge is cancelled (lost) and costs nothing', async () => {
    const t = hedged([{ id: 'a', url: 'https://a-rpc.com/', tier: 0 }, { id: 'b', url: 'https://b-rpc.net/', tier: 1 }]);
    t.executor.script('a', after(t, 150, 'from-a'));
    t.executor.script('b', after(t, 5_000, 'from-b'));
    const call = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.advance(200);
    expect(call.value).toBe('from-a');
    expect(t.hedges.map((e) => e.phase)).toEqual(['started', 'lost']);
    expect(t.failures).toEqual([]);
    expect(t.pool.snapshot().roles.find((r) => r.endpointId === 'b' && r.kind === 'read')).toMatchObject({ failures: 0, inFlight: 0 });
  });

  it('prefers another operator for the hedge (PATH excludes the first attempt’s eTLD+1)', async () => {
    const t = hedged([
      { id: 'a1', url: 'https://one.alpha-rpc.com/', tier: 0 },
      { id: 'a2', url: 'https://two.alpha-rpc.com/', tier: 0 },
      { id: 'b1', url: 'https://beta-node.net/', tier: 1 },
    ]);
    for (const id of ['a1', 'a2']) t.executor.script(id, after(t, 5_000));
    t.executor.script('b1', after(t, 10));
    for (let i = 0; i < 6; i++) {
      const call = track(t.pool.request('getSlot', [i]), t.clock);
      await t.clock.advance(200);
      expect(call.settled).toBe(true);
    }
    expect(t.hedges.filter((e) => e.phase === 'started').map((e) => e.hedgeEndpointId)).toEqual(Array(6).fill('b1'));
  });

  it.each([
    ['sendTransaction', [wireTransaction(60), { encoding: 'base64' }]],
    ['eth_sendRawTransaction', ['0x02abcd']],
    ['eth_getFilterChanges', ['0x1']],
    ['relay_unknownMethod', [1]],
  ] as const)('never hedges %s: one request, however late the answer', async (method, params) => {
    const t = hedged(two(), { hedge: { delayMs: 10 } });
    t.executor.script('slow', after(t, 1_000));
    t.executor.script('fast', after(t, 1_000));
    const call = track(t.pool.request(method, [...params], { timeoutMs: 5_000 }), t.clock);
    await t.clock.advance(2_000);
    expect(call.settled).toBe(true);
    expect(t.executor.received).toHaveLength(1);
    expect(t.hedges).toEqual([]);
  });

  it('never hedges a call pinned to one endpoint', async () => {
    const t = hedged(two());
    t.executor.script('slow', after(t, 1_000));
    const call = track(t.pool.request('getSlot', [], { endpoint: 'slow' }), t.clock);
    await t.clock.advance(1_000);
    expect(call.value).toBe('x');
    expect(t.executor.received).toHaveLength(1);
  });

  it('hedges and retries stay within the budget: 200 late reads make at most 10 + 10 % hedges', async () => {
    const t = hedged([{ id: 'slow', url: 'https://slow-rpc.com/', tier: 0 }, { id: 'fast', url: 'https://fast-rpc.net/', tier: 1 }], {
      balance: false,
    });
    t.executor.script('slow', after(t, 500));
    t.executor.script('fast', after(t, 10));
    for (let i = 0; i < 200; i++) {
      const call = track(t.pool.request('getSlot', [i]), t.clock);
      await t.clock.advance(600);
      expect(call.settled).toBe(true);
    }
    const started = t.hedges.filter((e) => e.phase === 'started').length;
    expect(started).toBeGreaterThanOrEqual(20);
    expect(started).toBeLessThanOrEqual(10 + 20);
    expect(t.executor.received.length / 200).toBeLessThanOrEqual(1.15);
  });

  it('with hedge: false nothing is hedged', async () => {
    const t = hedged(two(), { hedge: false });
    t.executor.script('slow', after(t, 1_000));
    t.executor.script('fast', after(t, 1_000));
    const call = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.advance(1_000);
    expect(call.settled).toBe(true);
    expect(t.executor.received).toHaveLength(1);
  });
});

describe('hedging at the server (loopback)', () => {
  const slowly =
    (ms: number, answer: (params: unknown) => string): RpcHandler =>
    (request, { res }) => {
      setTimeout(() => {
        if (!res.destroyed) sendResult(res, request.id, answer(request.params));
      }, ms);
    };

  it('a read to a node answering in 800 ms is answered by the peer after the hedge delay; each node received one request', async () => {
    const slow = await startRpcServer(slowly(800, () => '1'));
    const fast = await startRpcServer(slowly(0, () => '2'));
    const pool = createPool({ endpoints: [{ id: 'slow', url: slow.url, tier: 0 }, { id: 'fast', url: fast.url, tier: 1 }], hedge: { delayMs: 50 } });
    const started = performance.now();
    await expect(pool.request('getSlot', [])).resolves.toBe(2);
    expect(performance.now() - started).toBeLessThan(600);
    expect([slow.count(), fast.count()]).toEqual([1, 1]);
  });

  it('a send to a node answering in 800 ms is never hedged: the peer receives nothing', async () => {
    const echo = (params: unknown) => JSON.stringify(signatureOf((params as [string])[0]));
    const slow = await startRpcServer(slowly(800, echo));
    const fast = await startRpcServer(slowly(0, echo));
    const pool = createPool({ endpoints: [{ id: 'slow', url: slow.url, tier: 0 }, { id: 'fast', url: fast.url, tier: 1 }], hedge: { delayMs: 10 } });
    const tx = wireTransaction(61);
    await expect(createSolanaClient(pool).sendTransaction(tx)).resolves.toBe(signatureOf(tx));
    expect([slow.count('sendTransaction'), fast.count()]).toEqual([1, 0]);
    // And an ambiguous one stays ambiguous: nothing reaches the peer.
    const dead = await startRpcServer((_request, { socket }) => setTimeout(() => socket.destroy(), 100));
    const pool2 = createPool({ endpoints: [{ id: 'dead', url: dead.url, tier: 0 }, { id: 'fast', url: fast.url, tier: 1 }], hedge: { delayMs: 10 } });
    const error = await rejection(createSolanaClient(pool2).sendTransaction(wireTransaction(62)));
    expect(error.code).toBe('AMBIGUOUS_DISPATCH');
    expect(fast.count()).toBe(0);
  });
});

describe('hedging and close()', () => {
  it('close() while a hedge race runs ends both attempts and leaves no timer behind', async () => {
    const t = hedged([{ id: 'slow', url: 'https://slow-rpc.com/', tier: 0 }, { id: 'fast', url: 'https://fast-rpc.net/', tier: 1 }]);
    t.executor.script('slow', after(t, 5_000));
    t.executor.script('fast', after(t, 5_000));
    const call = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.advance(150);
    expect(t.hedges.map((e) => e.phase)).toEqual(['started']);
    await t.pool.close();
    await t.clock.flush();
    expect(call.error).toMatchObject({ code: 'POOL_CLOSED' });
    expect(t.clock.pendingTimers).toBe(0);
    expect(t.pool.snapshot().roles.every((r) => r.inFlight === 0)).toBe(true);
  });
});
