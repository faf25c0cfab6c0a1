import { describe, expect, it } from 'vitest';
import { isTransportError } from '../../src/errors/transport-error.js';
import { acquireNow, createTestPool, endpoint, roleOf, track } from './pool-fixtures.js';

describe('waiting for admission', () => {
  it('serves waiters on a saturated role in arrival order as permits are released', async () => {
    const t = createTestPool([endpoint('a', { maxConcurrentRequests: 1 })]);
    const order: number[] = [];
    let [held] = await acquireNow(t, 1);
    const waiters = [1, 2, 3].map((n) =>
      t.pool.acquireForRequestKind('read', { timeoutMs: 10_000 }).then((permit) => {
        order.push(n);
        return permit;
      }),
    );
    for (let i = 0; i < 3; i++) {
      held?.release();
      await t.clock.flush();
      expect(order).toEqual([1, 2, 3].slice(0, i + 1));
      held = await waiters[i];
    }
    expect(t.clock.now()).toBe(0);
  });

  it('does not let a newcomer overtake a queued waiter when a permit frees up', async () => {
    const t = createTestPool([endpoint('a', { maxConcurrentRequests: 1 })]);
    const [held] = await acquireNow(t, 1);
    const early = track(t.pool.acquireForRequestKind('read', { timeoutMs: 1_000 }), t.clock);
    await t.clock.advance(10);
    const late = track(t.pool.acquireForRequestKind('read', { timeoutMs: 1_000 }), t.clock);
    held?.release();
    await t.clock.flush();
    expect(early.settled).toBe(true);
    expect(late.settled).toBe(false);
  });

  it('serves waiters in arrival order as tokens refill, one per refill instant', async () => {
    const t = createTestPool([endpoint('a', { requestsPerSecond: 1 })]);
    await acquireNow(t, 1);
    const waiters = [1, 2, 3].map(() => track(t.pool.acquireForRequestKind('read', { timeoutMs: 10_000 }), t.clock));
    await t.clock.advance(5_000);
    expect(waiters.map((w) => w.atMs)).toEqual([1_000, 2_000, 3_000]);
    expect(waiters.every((w) => w.error === undefined)).toBe(true);
  });

  it('admits a waiter exactly at the refill instant, not a millisecond later', async () => {
    const t = createTestPool([endpoint('a', { requestsPerSecond: 4 })]);
    await acquireNow(t, 4);
    const waiter = track(t.pool.acquireForRequestKind('read', { timeoutMs: 251 }), t.clock);
    await t.clock.advance(249);
    expect(waiter.settled).toBe(false);
    await t.clock.advance(1);
    expect(waiter.atMs).toBe(250);
    expect(waiter.value?.endpointId).toBe('a');
  });

  it('rejects with DEADLINE_EXCEEDED exactly at the deadline, to the millisecond', async () => {
    const t = createTestPool([endpoint('a', { maxConcurrentRequests: 1 })]);
    await acquireNow(t, 1);
    const waiter = track(t.pool.acquireForRequestKind('read', { timeoutMs: 500 }), t.clock);
    await t.clock.advance(499);
    expect(waiter.settled).toBe(false);
    await t.clock.advance(1);
    expect(waiter.atMs).toBe(500);
    expect(isTransportError(waiter.error, 'DEADLINE_EXCEEDED')).toBe(true);
  });

  it('defaults the deadline to the largest plus the smallest requestTimeoutMs among roles serving the kind (room for one failover)', async () => {
    const t = createTestPool([
      endpoint('a', { maxConcurrentRequests: 1, requestTimeoutMs: 3_000 }),
      endpoint('b', { maxConcurrentRequests: 1, requestTimeoutMs: 2_000 }),
      endpoint('s', { kinds: ['submit'], requestTimeoutMs: 500 }),
    ]);
    await acquireNow(t, 2);
    const waiter = track(t.pool.acquireForRequestKind('read'), t.clock);
    await t.clock.advance(4_999);
    expect(waiter.settled).toBe(false);
    await t.clock.advance(1);
    expect(waiter.atMs).toBe(5_000);
    expect(waiter.error).toMatchObject({ code: 'DEADLINE_EXCEEDED' });
  });

  it('the pool option timeoutMs replaces that default for every call', async () => {
    const t = createTestPool([endpoint('a', { maxConcurrentRequests: 1, requestTimeoutMs: 3_000 })], { timeoutMs: 1_234 });
    await acquireNow(t, 1);
    const waiter = track(t.pool.acquireForRequestKind('read'), t.clock);
    await t.clock.advance(1_233);
    expect(waiter.settled).toBe(false);
    await t.clock.advance(1);
    expect(waiter.error).toMatchObject({ code: 'DEADLINE_EXCEEDED', context: { timeoutMs: 1_234 } });
  });

  it('rejects an aborted waiter with ABORTED at once and takes it out of the queue', async () => {
    const t = createTestPool([endpoint('a', { maxConcurrentRequests: 1 })]);
    const [held] = await acquireNow(t, 1);
    const controller = new AbortController();
    const aborted = track(t.pool.acquireForRequestKind('read', { timeoutMs: 1_000, signal: controller.signal }), t.clock);
    const next = track(t.pool.acquireForRequestKind('read', { timeoutMs: 1_000 }), t.clock);
    await t.clock.advance(10);
    controller.abort();
    await t.clock.flush();
    expect(aborted.atMs).toBe(10);
    expect(aborted.error).toMatchObject({ code: 'ABORTED' });
    held?.release();
    await t.clock.flush();
    expect(next.value?.endpointId).toBe('a');
    expect(roleOf(t.pool, 'a').inFlight).toBe(1);
  });

  it('rejects a call whose signal is already aborted with ABORTED without waiting or taking a permit', async () => {
    const t = createTestPool([endpoint('a', { maxConcurrentRequests: 1 })]);
    const signal = AbortSignal.abort();
    await expect(t.pool.acquireForRequestKind('read', { signal })).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(t.pool.acquireForMethod('getSlot', { signal })).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(t.pool.request('getSlot', [], { signal })).rejects.toMatchObject({ code: 'ABORTED' });
    expect(roleOf(t.pool, 'a').inFlight).toBe(0);
    expect(t.executor.received).toHaveLength(0);
  });

  it('rejects every waiter with POOL_CLOSED on close() and leaves no timer running', async () => {
    const t = createTestPool([
      endpoint('a', { kinds: ['read'], requestsPerSecond: 1 }),
      endpoint('s', { kinds: ['submit'], maxConcurrentRequests: 1 }),
    ]);
    await acquireNow(t, 1, 'read');
    await acquireNow(t, 1, 'submit');
    const waiters = [
      track(t.pool.acquireForRequestKind('read', { timeoutMs: 5_000 }), t.clock),
      track(t.pool.acquireForRequestKind('read', { timeoutMs: 5_000 }), t.clock),
      track(t.pool.acquireForRequestKind('submit', { timeoutMs: 5_000 }), t.clock),
    ];
    await t.clock.advance(100);
    expect(t.clock.pendingTimers).toBeGreaterThan(0);
    await t.pool.close();
    await t.clock.flush();
    expect(waiters.map((w) => [w.atMs, (w.error as { code?: string } | undefined)?.code])).toEqual([
      [100, 'POOL_CLOSED'],
      [100, 'POOL_CLOSED'],
      [100, 'POOL_CLOSED'],
    ]);
    expect(t.clock.pendingTimers).toBe(0);
    expect(t.executor.closed).toBe(true);
  });

  it('rejects acquires and requests made after close() with POOL_CLOSED', async () => {
    const t = createTestPool([endpoint('a')]);
    await t.pool.close();
    await expect(t.pool.acquireForRequestKind('read')).rejects.toMatchObject({ code: 'POOL_CLOSED' });
    await expect(t.pool.acquireForMethod('getSlot')).rejects.toMatchObject({ code: 'POOL_CLOSED' });
    await expect(t.pool.request('getSlot', [])).rejects.toMatchObject({ code: 'POOL_CLOSED' });
    expect(t.executor.received).toHaveLength(0);
  });

  for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
    it(`rejects timeoutMs ${timeoutMs} with INVALID_INPUT before waiting or sending`, async () => {
      const t = createTestPool([endpoint('a')]);
      await expect(t.pool.acquireForRequestKind('read', { timeoutMs })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await expect(t.pool.acquireForMethod('getSlot', { timeoutMs })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await expect(t.pool.request('getSlot', [], { timeoutMs })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      expect(roleOf(t.pool, 'a').inFlight).toBe(0);
      expect(t.executor.received).toHaveLength(0);
      expect(t.clock.pendingTimers).toBe(0);
    });
  }
});
