import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom, type Clock } from '../../src/clock.js';
import type { ExecuteRequest, HttpExecutor, RawOutcome } from '../../src/http/executor.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { closePools, createPool } from '../helpers/pools.js';

/**
 * Micro-batching (`batch: { waitMs, maxSize }`) and token accounting of batches, on the
 * fake clock with an in-memory node that answers batches item by item and logs every
 * request it received — what the node observed, at which instant.
 */

afterEach(closePools);

interface Item {
  readonly id: number;
  readonly method: string;
}

/** A node answering each item with its method name; `latencyMs` of clock time per request (0: at once). */
function batchNode(clock: Clock, latencyMs = 0) {
  const requests: { atMs: number; items: Item[]; endpointId: string }[] = [];
  const executor: HttpExecutor = {
    execute(request: ExecuteRequest): Promise<RawOutcome> {
      const parsed = JSON.parse(request.body) as Item | Item[];
      const items = Array.isArray(parsed) ? parsed : [parsed];
      requests.push({ atMs: clock.now(), items, endpointId: request.target.endpointId });
      const answers = items.map((item) => ({ jsonrpc: '2.0', id: item.id, result: item.method }));
      const outcome: RawOutcome = { type: 'response', status: 200, headers: {}, body: JSON.stringify(Array.isArray(parsed) ? answers : answers[0]) };
      if (latencyMs === 0) return Promise.resolve(outcome);
      return new Promise((resolve) => {
        const timer = clock.setTimer(() => resolve(outcome), latencyMs);
        request.signal.addEventListener('abort', () => {
          timer.cancel();
          resolve({ type: 'error', kind: 'aborted', dispatched: true });
        });
      });
    },
    close: async () => undefined,
  };
  return { executor, requests, sizes: () => requests.map((r) => r.items.length) };
}

function setup(options: { waitMs?: number; maxSize?: number } | undefined, endpoint: Record<string, unknown> = {}) {
  const clock = createFakeClock();
  const node = batchNode(clock);
  const pool = createPool({
    endpoints: [{ id: 'a', url: 'https://a.example.com/', ...endpoint }],
    executor: node.executor,
    clock,
    random: createSeededRandom(1),
    ...(options === undefined ? {} : { batch: options }),
  });
  return { clock, node, pool };
}

describe('micro-batching (pool option batch)', () => {
  it('waitMs 0: calls made in the same tick leave as one batch at the next timer turn', async () => {
    const { clock, node, pool } = setup({ waitMs: 0 });
    const calls = [pool.request('getSlot', []), pool.request('getBlockHeight', []), pool.request('getEpochInfo', [])];
    await clock.flush();
    expect(node.requests).toHaveLength(0);
    await clock.advance(0);
    expect(await Promise.all(calls)).toEqual(['getSlot', 'getBlockHeight', 'getEpochInfo']);
    expect(node.sizes()).toEqual([3]);
  });

  it('waitMs 10: calls within 10 ms of the first go together; a later call starts the next batch', async () => {
    const { clock, node, pool } = setup({ waitMs: 10 });
    const calls = [pool.request('getSlot', [])];
    await clock.advance(5);
    calls.push(pool.request('getBlockHeight', []));
    await clock.advance(4);
    expect(node.requests).toHaveLength(0);
    await clock.advance(1);
    expect(node.requests.map((r) => [r.atMs, r.items.length])).toEqual([[10, 2]]);
    calls.push(pool.request('getEpochInfo', []));
    await clock.advance(10);
    await Promise.all(calls);
    expect(node.requests.map((r) => [r.atMs, r.items.length])).toEqual([
      [10, 2],
      [20, 1],
    ]);
  });

  it('maxSize: a full batch leaves at once, without waiting', async () => {
    const { clock, node, pool } = setup({ waitMs: 50, maxSize: 2 });
    const calls = [pool.request('getSlot', []), pool.request('getBlockHeight', []), pool.request('getEpochInfo', [])];
    await clock.flush();
    expect(node.requests.map((r) => [r.atMs, r.items.length])).toEqual([[0, 2]]);
    await clock.advance(50);
    await Promise.all(calls);
    expect(node.requests.map((r) => [r.atMs, r.items.length])).toEqual([
      [0, 2],
      [50, 1],
    ]);
  });

  it('a caller that aborts before its batch leaves is dropped from it: nothing is sent for it', async () => {
    const { clock, node, pool } = setup({ waitMs: 10 });
    const controller = new AbortController();
    const leaving = pool.request('getSlot', [], { signal: controller.signal });
    const staying = [pool.request('getBlockHeight', []), pool.request('getEpochInfo', [])];
    controller.abort();
    await expect(leaving).rejects.toMatchObject({ code: 'ABORTED' });
    await clock.advance(10);
    await Promise.all(staying);
    expect(node.requests.map((r) => r.items.map((item) => item.method))).toEqual([['getBlockHeight', 'getEpochInfo']]);
  });

  it('sends, pinned calls and unknown methods never join a micro-batch', async () => {
    const { clock, node, pool } = setup({ waitMs: 0 });
    const calls = [
      pool.request('getSlot', []),
      pool.request('getBlockHeight', []),
      pool.request('getEpochInfo', [], { endpoint: 'a' }),
      pool.request('myIndexerRead', []),
      pool.request('eth_getFilterChanges', ['0x1']),
    ];
    await clock.advance(0);
    await Promise.all(calls);
    expect(node.sizes().sort()).toEqual([1, 1, 1, 2]);
  });

  it('pool.close() fails calls still waiting for their batch with POOL_CLOSED, and leaves no timer', async () => {
    const { clock, node, pool } = setup({ waitMs: 10 });
    const call = pool.request('getSlot', []);
    await pool.close();
    await expect(call).rejects.toMatchObject({ code: 'POOL_CLOSED' });
    expect(clock.pendingTimers).toBe(0);
    expect(node.requests).toHaveLength(0);
  });

  it('off by default: the same calls go one request each (after coalescing)', async () => {
    const { clock, node, pool } = setup(undefined);
    await Promise.all([pool.request('getSlot', []), pool.request('getBlockHeight', []), pool.request('getSlot', [])]);
    await clock.flush();
    expect(node.sizes()).toEqual([1, 1]);
  });
});

describe('a batch against the RPS bucket', () => {
  it('takes one token per item: after a batch of 10 at 10 RPS (burst 10), the next call waits 100 ms for its token', async () => {
    const { clock, node, pool } = setup(undefined, { requestsPerSecond: 10, burstCapacity: 10 });
    await pool.batch(Array.from({ length: 10 }, (_, i) => ({ method: 'getBlockHeight', params: [{ minContextSlot: i }] })));
    expect(node.sizes()).toEqual([10]);
    const next = pool.request('getSlot', []);
    await clock.advance(99);
    expect(node.requests).toHaveLength(1);
    await clock.advance(1);
    expect(await next).toBe('getSlot');
    expect(node.requests.map((r) => r.atMs)).toEqual([0, 100]);
  });
});

describe('coalescing and hedging', () => {
  it('a coalesced read is hedged once, not once per caller', async () => {
    const clock = createFakeClock();
    const slow = batchNode(clock, 1_000);
    const fast = batchNode(clock);
    const executor: HttpExecutor = {
      execute: (request) => (request.target.endpointId === 'slow' ? slow.executor.execute(request) : fast.executor.execute(request)),
      close: async () => undefined,
    };
    const pool = createPool({
      endpoints: [
        { id: 'slow', url: 'https://slow.example.com/', tier: 0 },
        { id: 'fast', url: 'https://fast.example.net/', tier: 1 },
      ],
      hedge: { delayMs: 100, budgetRatio: 1 },
      executor,
      clock,
      random: createSeededRandom(1),
    });
    const calls = Array.from({ length: 10 }, () => pool.request('getSlot', []));
    await clock.advance(100);
    expect(await Promise.all(calls)).toEqual(Array.from({ length: 10 }, () => 'getSlot'));
    expect([slow.requests.length, fast.requests.length]).toEqual([1, 1]);
  });
});
