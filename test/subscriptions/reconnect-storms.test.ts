/**
 * Reconnect storms (issue 25): a node that confirms and drops at once, and an endpoint
 * holding many subscriptions that dies. Counted where it hurts: at the fixture node, on a
 * fake clock the pool and the nodes share.
 */
import { describe, expect, it } from 'vitest';
import { createSeededRandom, HttpTransportPool } from '../../src/index.js';
import { createFakeClock } from '../../src/testing/index.js';
import { advanceWithIo } from './drive.js';
import { trackedWebSocketNodes } from './helpers.js';

const { pools, node } = trackedWebSocketNodes();

describe('an endpoint whose sockets keep dying', () => {
  it('is reconnected to after a growing pause, though every socket confirms before it dies (default backoff 250 ms … 10 s)', async () => {
    const clock = createFakeClock();
    const a = await node(clock);
    a.ws!.setSubscribeAnswer('drop');
    const pool = new HttpTransportPool({ endpoints: [{ id: 'a', url: a.url, wsUrl: a.wsUrl! }], clock, random: createSeededRandom(5) });
    pools.push(pool);
    await pool.subscribe('programSubscribe', ['prog']);
    // Socket opens per second of the clock, over 40 s.
    const opens: number[] = [];
    let seen = a.ws!.upgrades;
    await advanceWithIo(clock, 40_000, {
      stepMs: 50,
      ioMs: 4,
      each: (nowMs) => {
        const second = Math.floor((nowMs - 1) / 1000);
        opens[second] = (opens[second] ?? 0) + a.ws!.upgrades - seen;
        seen = a.ws!.upgrades;
      },
    });
    const total = opens.reduce((sum, n) => sum + (n ?? 0), 0);
    const lastTen = opens.slice(30).reduce((sum, n) => sum + (n ?? 0), 0);
    // 250 + 250…500 + 250…1000 + … + 250…10 000 ms: well under 20 opens in 40 s, at most ~1 per 4 s at the end.
    expect(total).toBeLessThanOrEqual(20);
    expect(lastTen).toBeLessThanOrEqual(4);
    expect(opens.slice(0, 3).reduce((sum, n) => sum + (n ?? 0), 0)).toBeGreaterThanOrEqual(2);
    expect(pool.snapshot().subscriptions[0]!.consecutiveFailures).toBeGreaterThanOrEqual(6);
  }, 60_000);
});

describe('resubscribes after an endpoint dies', () => {
  it("reach the survivor metered by its role's rate (50/s, burst 10) and jittered, not all at once", async () => {
    const clock = createFakeClock();
    const [a, b] = [await node(clock), await node(clock)];
    const pool = new HttpTransportPool({
      endpoints: [
        { id: 'a', url: a.url, wsUrl: a.wsUrl!, tier: 0 },
        { id: 'b', url: b.url, wsUrl: b.wsUrl!, tier: 1, requestsPerSecond: 50, burstCapacity: 10 },
      ],
      clock,
      random: createSeededRandom(11),
    });
    pools.push(pool);
    const subs = await Promise.all(Array.from({ length: 100 }, (_, i) => pool.subscribe('accountSubscribe', [`acc${i}`])));
    expect(a.ws!.subscriptions()).toBe(100);
    const droppedAt = clock.now();
    a.ws!.drop();
    await advanceWithIo(clock, 5_000, { stepMs: 10, ioMs: 3, done: () => b.ws!.subscriptions() === 100 });
    expect(b.ws!.subscriptions()).toBe(100);
    const arrivals = b.requests.filter((r) => r.method === 'accountSubscribe').map((r) => r.atMs - droppedAt);
    expect(arrivals).toHaveLength(100);
    // The burst, then 50/s: no more than 10 + 50·t by any instant t (s), so the 100th no sooner than 1.8 s.
    for (const [i, atMs] of arrivals.entries()) expect(i + 1).toBeLessThanOrEqual(10 + Math.floor((50 * atMs) / 1000) + 1);
    expect(arrivals.at(-1)!).toBeGreaterThanOrEqual(1_780);
    // Jitter on the first retry: the burst itself is spread over the initial backoff (250 ms), not sent at one instant.
    const burst = arrivals.slice(0, 10);
    expect(new Set(burst).size).toBeGreaterThan(5);
    expect(Math.max(...burst)).toBeLessThan(250);
    await Promise.all(subs.map((s) => s.close()));
  }, 60_000);
});
