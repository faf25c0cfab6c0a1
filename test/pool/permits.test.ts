import { describe, expect, it } from 'vitest';
import { createTestPool, endpoint, roleOf, track } from './pool-fixtures.js';

describe('concurrency permits', () => {
  it('admits at most maxConcurrentRequests calls at once', async () => {
    const { pool, clock } = createTestPool([endpoint('a', { maxConcurrentRequests: 2 })]);
    const first = await pool.acquireForRequestKind('read');
    const second = await pool.acquireForRequestKind('read');
    const third = track(pool.acquireForRequestKind('read', { timeoutMs: 1_000 }), clock);
    await clock.advance(999);
    expect(third.settled).toBe(false);
    expect(roleOf(pool, 'a').inFlight).toBe(2);
    first.release();
    second.release();
  });

  it('wakes a waiter at the same instant a permit is released, without time advancing', async () => {
    const { pool, clock } = createTestPool([endpoint('a', { maxConcurrentRequests: 1 })]);
    await clock.advance(10);
    const held = await pool.acquireForRequestKind('read');
    const waiter = track(pool.acquireForRequestKind('read', { timeoutMs: 1_000 }), clock);
    await clock.advance(40);
    expect(waiter.settled).toBe(false);
    held.release();
    await clock.flush();
    expect(waiter.settled).toBe(true);
    expect(waiter.atMs).toBe(50);
    expect(waiter.value?.endpointId).toBe('a');
  });

  it('releases a permit exactly once: a second release neither drives in-flight negative nor admits an extra waiter', async () => {
    const { pool, clock } = createTestPool([endpoint('a', { maxConcurrentRequests: 1 })]);
    const held = await pool.acquireForRequestKind('read');
    const w1 = track(pool.acquireForRequestKind('read', { timeoutMs: 1_000 }), clock);
    const w2 = track(pool.acquireForRequestKind('read', { timeoutMs: 1_000 }), clock);
    held.release();
    held.release();
    await clock.flush();
    expect(w1.settled).toBe(true);
    expect(w2.settled).toBe(false);
    expect(roleOf(pool, 'a').inFlight).toBe(1);
    w1.value?.release();
    await clock.flush();
    expect(w2.settled).toBe(true);
    w2.value?.release();
    w2.value?.release();
    expect(roleOf(pool, 'a').inFlight).toBe(0);
  });

  it('keeps the in-flight count at zero, never negative, after a lone permit is released twice', async () => {
    const { pool } = createTestPool([endpoint('a', { maxConcurrentRequests: 3 })]);
    const permit = await pool.acquireForRequestKind('read');
    expect(roleOf(pool, 'a').inFlight).toBe(1);
    permit.release();
    permit[Symbol.dispose]();
    permit.release();
    expect(roleOf(pool, 'a').inFlight).toBe(0);
    expect(permit.released).toBe(true);
  });

  it('releases the permit at the end of a `using` block and wakes the waiter', async () => {
    const { pool, clock } = createTestPool([endpoint('a', { maxConcurrentRequests: 1 })]);
    let waiter: ReturnType<typeof track> | undefined;
    {
      using permit = await pool.acquireForMethod('getBalance', { timeoutMs: 500 });
      expect(permit.endpointId).toBe('a');
      waiter = track(pool.acquireForMethod('getBalance', { timeoutMs: 500 }), clock);
      await clock.flush();
      expect(waiter.settled).toBe(false);
      expect(roleOf(pool, 'a').inFlight).toBe(1);
    }
    await clock.flush();
    expect(waiter.settled).toBe(true);
    expect(waiter.error).toBeUndefined();
    expect(roleOf(pool, 'a').inFlight).toBe(1);
  });

  it('counts a permit that is released with `using` and then explicitly only once', async () => {
    const { pool } = createTestPool([endpoint('a', { maxConcurrentRequests: 2 })]);
    {
      using permit = await pool.acquireForRequestKind('read');
      permit.release();
      expect(roleOf(pool, 'a').inFlight).toBe(0);
    }
    expect(roleOf(pool, 'a').inFlight).toBe(0);
  });

  it('frees the permit of a finished pool.request so the next call is admitted', async () => {
    const { pool, executor } = createTestPool([endpoint('a', { maxConcurrentRequests: 1 })]);
    await pool.request('getSlot', []);
    await pool.request('getSlot', []);
    expect(executor.countFor('a')).toBe(2);
    expect(roleOf(pool, 'a').inFlight).toBe(0);
  });
});
