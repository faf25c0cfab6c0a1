import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom, HttpTransportPool } from '../../src/index.js';
import { createFakeClock, createFixtureServer, type FixtureServer } from '../../src/testing/index.js';
import { until } from './helpers.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const servers: FixtureServer[] = [];
const pools: HttpTransportPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function heapAfterGc(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

describe('leaks', () => {
  it('opening and closing 10 000 subscriptions leaves sockets, timers, node-side subscriptions and heap at the baseline', async () => {
    const clock = createFakeClock();
    const server = await createFixtureServer({ fixtures: [], websocket: { slotIntervalMs: 0 } });
    servers.push(server);
    const pool = new HttpTransportPool({
      endpoints: [{ id: 'a', url: server.url, wsUrl: server.wsUrl! }],
      clock,
      random: createSeededRandom(2),
      subscriptions: { maxSubscriptionsPerSocket: 250 },
    });
    pools.push(pool);
    const BATCH = 500;
    let subscribed = 0;
    let unsubscribed = 0;
    const cycle = async () => {
      const subs = await Promise.all(Array.from({ length: BATCH }, (_, i) => pool.subscribe('accountSubscribe', [`acc${i}`])));
      await Promise.all(subs.map((s) => s.close()));
      subscribed += server.count('accountSubscribe');
      unsubscribed += server.count('accountUnsubscribe');
      // The server's own request log would grow with every call: it is not ours to measure.
      server.reset();
    };
    const settle = async () => {
      await clock.advance(1_000); // idle sockets close
      await until(() => server.ws!.connections === 0, 5_000, 'sockets closed');
    };
    await cycle();
    await settle();
    const baseline = heapAfterGc();
    for (let i = 0; i < 10_000 / BATCH; i++) await cycle();
    await settle();
    const after = heapAfterGc();

    expect(subscribed).toBe(10_500);
    expect(unsubscribed).toBe(10_500);
    expect(server.ws!.subscriptions()).toBe(0);
    expect(pool.snapshot().subscriptions).toEqual([expect.objectContaining({ sockets: 0, subscriptions: 0 })]);
    expect(clock.pendingTimers).toBe(0);
    // A leaked subscription holds its buffer, tracker and closures (> 1 KiB each): 10 000 would be > 10 MB.
    expect(after - baseline).toBeLessThan(2 * 1024 * 1024);
  }, 60_000);

  it('opening and closing 10 000 shared subscriptions (10 callers on each node subscription) leaves sockets, timers, node-side subscriptions and heap at the baseline', async () => {
    const clock = createFakeClock();
    const server = await createFixtureServer({ fixtures: [], websocket: { slotIntervalMs: 0 } });
    servers.push(server);
    const pool = new HttpTransportPool({ endpoints: [{ id: 'a', url: server.url, wsUrl: server.wsUrl! }], clock, random: createSeededRandom(2) });
    pools.push(pool);
    const BATCH = 500;
    const CALLERS_EACH = 10;
    // One signal for every caller, never aborted: each caller's listener on it must go with its close.
    const signal = new AbortController().signal;
    let subscribed = 0;
    let unsubscribed = 0;
    const cycle = async () => {
      const subs = await Promise.all(Array.from({ length: BATCH }, (_, i) => pool.subscribe('accountSubscribe', [`acc${i % (BATCH / CALLERS_EACH)}`], { signal })));
      expect(pool.snapshot().subscriptions[0]).toMatchObject({ subscriptions: BATCH / CALLERS_EACH, callers: BATCH, shared: BATCH / CALLERS_EACH });
      await Promise.all(subs.map((s) => s.close()));
      subscribed += server.count('accountSubscribe');
      unsubscribed += server.count('accountUnsubscribe');
      server.reset();
    };
    const settle = async () => {
      await clock.advance(1_000);
      await until(() => server.ws!.connections === 0, 5_000, 'sockets closed');
    };
    await cycle();
    await settle();
    const baseline = heapAfterGc();
    for (let i = 0; i < 10_000 / BATCH; i++) await cycle();
    await settle();
    const after = heapAfterGc();

    expect(subscribed).toBe(21 * (BATCH / CALLERS_EACH));
    expect(unsubscribed).toBe(subscribed);
    expect(server.ws!.subscriptions()).toBe(0);
    expect(pool.snapshot().subscriptions).toEqual([expect.objectContaining({ sockets: 0, subscriptions: 0, callers: 0 })]);
    expect(clock.pendingTimers).toBe(0);
    expect(after - baseline).toBeLessThan(2 * 1024 * 1024);
  }, 60_000);
});
