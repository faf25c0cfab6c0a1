import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../src/admission/token-bucket.js';
import { createTestPool, endpoint, track } from '../pool/pool-fixtures.js';

describe('TokenBucket', () => {
  it('lets a burst of exactly its capacity through at once, then refuses', () => {
    const bucket = new TokenBucket(10, 3, 0);
    expect([bucket.tryTake(0), bucket.tryTake(0), bucket.tryTake(0)]).toEqual([true, true, true]);
    expect(bucket.tryTake(0)).toBe(false);
    expect(bucket.available(0)).toBe(0);
  });

  it('reports the exact wait until the next whole token instead of blocking', () => {
    // 125 rps = 0.125 token/ms, exact in binary floating point.
    const bucket = new TokenBucket(125, 1, 0);
    expect(bucket.waitMs(0)).toBe(0);
    expect(bucket.tryTake(0)).toBe(true);
    expect(bucket.waitMs(0)).toBe(8);
    expect(bucket.waitMs(2)).toBe(6);
    expect(bucket.tryTake(7)).toBe(false);
    expect(bucket.tryTake(8)).toBe(true);
  });

  it('refills continuously but never above its capacity', () => {
    const bucket = new TokenBucket(250, 2, 0);
    bucket.tryTake(0);
    bucket.tryTake(0);
    expect(bucket.available(2)).toBe(0.5);
    expect(bucket.available(1_000_000)).toBe(2);
  });

  it('never holds more than its capacity nor fewer than zero tokens, and admits at most capacity + rate·T over T ms', () => {
    const step = fc.oneof(
      fc.record({ op: fc.constant('advance' as const), ms: fc.double({ min: 0, max: 2_000, noNaN: true }) }),
      fc.record({ op: fc.constant('take' as const), ms: fc.constant(0) }),
    );
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 1_000, noNaN: true }),
        fc.double({ min: 1, max: 200, noNaN: true }),
        fc.array(step, { maxLength: 200 }),
        (requestsPerSecond, capacity, steps) => {
          const bucket = new TokenBucket(requestsPerSecond, capacity, 0);
          let now = 0;
          let taken = 0;
          for (const { op, ms } of steps) {
            if (op === 'advance') now += ms;
            else if (bucket.tryTake(now)) taken++;
            const tokens = bucket.available(now);
            expect(tokens).toBeGreaterThanOrEqual(0);
            expect(tokens).toBeLessThanOrEqual(capacity);
            // Tiny slack for the bucket's float tolerance on each take.
            expect(taken).toBeLessThanOrEqual(capacity + (requestsPerSecond / 1000) * now + 1e-6 * (taken + 1));
          }
        },
      ),
      { seed: 42, numRuns: 300 },
    );
  });
});

describe('token bucket through the pool', () => {
  it('defaults the burst to one second of RPS: 5 rps admits 5 at once and the 6th exactly 200 ms later', async () => {
    const { pool, clock } = createTestPool([endpoint('a', { requestsPerSecond: 5 })]);
    for (let i = 0; i < 5; i++) await pool.acquireForRequestKind('read', { timeoutMs: 1_000 });
    const sixth = track(pool.acquireForRequestKind('read', { timeoutMs: 1_000 }), clock);
    await clock.advance(199);
    expect(sixth.settled).toBe(false);
    await clock.advance(1);
    expect(sixth.settled).toBe(true);
    expect(sixth.error).toBeUndefined();
    expect(sixth.atMs).toBe(200);
  });

  it('gives a fractional RPS a burst of one: 0.5 rps admits one call, the next 2 s later', async () => {
    const { pool, clock } = createTestPool([endpoint('a', { requestsPerSecond: 0.5 })]);
    expect(pool.snapshot().roles[0]?.burstCapacity).toBe(1);
    await pool.acquireForRequestKind('read');
    const second = track(pool.acquireForRequestKind('read', { timeoutMs: 5_000 }), clock);
    await clock.advance(1_999);
    expect(second.settled).toBe(false);
    await clock.advance(1);
    expect(second.atMs).toBe(2_000);
    expect(second.error).toBeUndefined();
  });

  it('honours an explicit burst larger than one second of RPS', async () => {
    const { pool, clock } = createTestPool([endpoint('a', { requestsPerSecond: 2, burstCapacity: 4 })]);
    for (let i = 0; i < 4; i++) await pool.acquireForRequestKind('read');
    const fifth = track(pool.acquireForRequestKind('read', { timeoutMs: 5_000 }), clock);
    await clock.advance(499);
    expect(fifth.settled).toBe(false);
    await clock.advance(1);
    expect(fifth.atMs).toBe(500);
  });
});
