import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FleetGrant } from '../../src/fleet/backend.js';
import { LeasedBucket, leaseSizeOf, localShareOf } from '../../src/fleet/lease-bucket.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';

/** A bucket whose store answers what the test says, when the test says. */
function scripted(spec = { key: 'k', requestsPerSecond: 100, burstCapacity: 100 }, random = () => 0.5) {
  const clock = createFakeClock();
  const asks: { want: number; answer: (grant: FleetGrant | undefined) => void }[] = [];
  let changed = 0;
  const bucket = new LeasedBucket(spec, 100, clock, random, {
    take: (want) => new Promise((resolve) => asks.push({ want, answer: resolve })),
    changed: () => changed++,
  });
  return { clock, bucket, asks, changed: () => changed };
}

describe('lease arithmetic', () => {
  it('a lease is leaseMs of the quota, at least one token and at most the burst', () => {
    expect(leaseSizeOf(50, 50, 100)).toBe(5);
    expect(leaseSizeOf(3, 3, 100)).toBe(1);
    expect(leaseSizeOf(10_000, 200, 100)).toBe(200);
    expect(localShareOf(50, 50, 4)).toEqual({ requestsPerSecond: 12.5, burstCapacity: 12.5 });
    expect(localShareOf(50, 2, 8)).toEqual({ requestsPerSecond: 6.25, burstCapacity: 1 });
    expect(localShareOf(50, 50, 0)).toEqual({ requestsPerSecond: 50, burstCapacity: 50 });
  });

  it('a process never holds more than one lease of unspent tokens, whatever the store grants and however calls take', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(fc.constant('take' as const), fc.integer({ min: 0, max: 30 })), { maxLength: 60 }), async (steps) => {
        const { bucket, asks } = scripted();
        bucket.prime();
        for (const step of steps) {
          if (step === 'take') bucket.tryTake(0);
          else {
            // The store never grants more than it was asked for.
            const ask = asks.shift();
            ask?.answer({ granted: Math.min(step, ask.want), waitMs: 10 });
          }
          await Promise.resolve();
          expect(bucket.heldTokens).toBeLessThanOrEqual(bucket.leaseSize);
        }
      }),
    );
  });

  it('an empty grant waits for the whole request, spread by the random source so processes do not ask in lockstep', async () => {
    for (const [random, expected] of [
      [0, 100],
      [0.5, 125],
      [0.98, 149],
    ] as const) {
      const { bucket, asks, changed } = scripted(undefined, () => random);
      expect(bucket.waitMs(0)).toBe(Number.POSITIVE_INFINITY); // asks for a lease
      asks[0]!.answer({ granted: 0, waitMs: 100 });
      await Promise.resolve();
      expect(changed()).toBe(1);
      expect(bucket.waitMs(0)).toBe(expected);
      expect(asks).toHaveLength(1); // no second ask before then
    }
  });
});

describe('a batch charged to a lease', () => {
  it('spends its other items from the lease, into debt that the next lease pays back before any call is admitted', async () => {
    const { bucket, asks } = scripted(); // lease of 10 tokens
    bucket.prime();
    asks.shift()!.answer({ granted: 10, waitMs: 10 });
    await Promise.resolve();
    expect(bucket.tryTake(0)).toBe(true); // the batch's first item
    bucket.charge(14, 0); // its 14 other items: 9 held, 5 owed
    expect(bucket.available(0)).toBe(-5);
    expect(bucket.tryTake(0)).toBe(false);
    expect(bucket.waitMs(0)).toBe(Number.POSITIVE_INFINITY); // asks the fleet for the debt plus a lease
    const ask = asks.shift()!;
    expect(ask.want).toBe(15);
    ask.answer({ granted: 6, waitMs: 10 });
    await Promise.resolve();
    expect(bucket.available(0)).toBe(1);
    expect(bucket.tryTake(0)).toBe(true);
    expect(bucket.tryTake(0)).toBe(false);
  });

  it('in local mode charges what the lease lacks to the local share', () => {
    const { bucket, clock } = scripted();
    bucket.goLocal(clock.now(), 4); // local share 25/s, starting empty
    bucket.charge(5, clock.now());
    expect(bucket.available(clock.now())).toBe(-5);
    expect(bucket.waitMs(clock.now())).toBeCloseTo(240, 6); // 6 tokens at 25/s before the next call
  });
});

describe('a local share across mode changes', () => {
  it('the first fall-back starts empty; a later one resumes where the last stopped (not refilled while shared, not empty again)', async () => {
    const { bucket, clock } = scripted(); // 100/s quota
    bucket.goLocal(clock.now(), 4); // 25/s, empty
    expect(bucket.available(clock.now())).toBe(0);
    await clock.advance(200); // 5 tokens
    expect(bucket.tryTake(clock.now())).toBe(true); // 4 left
    bucket.goShared();
    await clock.advance(1_000); // shared: the local share does not refill meanwhile
    bucket.goLocal(clock.now(), 4);
    expect(bucket.available(clock.now())).toBeCloseTo(4, 6);
    // Calls are served at once, not after a refill from zero at every change.
    for (let i = 0; i < 4; i++) expect(bucket.tryTake(clock.now())).toBe(true);
    expect(bucket.tryTake(clock.now())).toBe(false);
  });
});
