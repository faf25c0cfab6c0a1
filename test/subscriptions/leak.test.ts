import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom, HttpTransportPool } from '../../src/index.js';
import { createFakeClock, createFixtureServer, resultFixture, type FakeClock, type FixtureServer } from '../../src/testing/index.js';
import { drive } from '../helpers/lying-nodes.js';
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

/** Heap growth over `cycles` more cycles after a first one, the sockets let close after each run: what a leak shows. */
async function heapGrowth(clock: FakeClock, server: FixtureServer, cycle: () => Promise<void>, cycles: number): Promise<number> {
  const settle = async () => {
    await clock.advance(1_000); // idle sockets close
    await until(() => server.ws!.connections === 0, 5_000, 'sockets closed');
  };
  await cycle();
  await settle();
  const baseline = heapAfterGc();
  for (let i = 0; i < cycles; i++) await cycle();
  await settle();
  return heapAfterGc() - baseline;
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
    const grown = await heapGrowth(clock, server, cycle, 10_000 / BATCH);

    expect(subscribed).toBe(10_500);
    expect(unsubscribed).toBe(10_500);
    expect(server.ws!.subscriptions()).toBe(0);
    expect(pool.snapshot().subscriptions).toEqual([expect.objectContaining({ sockets: 0, subscriptions: 0 })]);
    expect(clock.pendingTimers).toBe(0);
    // A leaked subscription holds its buffer, tracker and closures (> 1 KiB each): 10 000 would be > 10 MB.
    expect(grown).toBeLessThan(2 * 1024 * 1024);
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
    const grown = await heapGrowth(clock, server, cycle, 10_000 / BATCH);

    expect(subscribed).toBe(21 * (BATCH / CALLERS_EACH));
    expect(unsubscribed).toBe(subscribed);
    expect(server.ws!.subscriptions()).toBe(0);
    expect(pool.snapshot().subscriptions).toEqual([expect.objectContaining({ sockets: 0, subscriptions: 0, callers: 0 })]);
    expect(clock.pendingTimers).toBe(0);
    expect(grown).toBeLessThan(2 * 1024 * 1024);
  }, 60_000);

  it('10 000 EVM logs subscriptions, each reading the head it covers from (backfill): sockets, timers, calls and heap back to the baseline', async () => {
    const clock = createFakeClock();
    const head = resultFixture('evm', 'eth_getBlockByNumber', ['latest', false], { number: '0x10', hash: `0x${'11'.repeat(32)}`, parentHash: `0x${'10'.repeat(32)}` });
    const server = await createFixtureServer({ fixtures: [head], websocket: { slotIntervalMs: 0 } });
    servers.push(server);
    const pool = new HttpTransportPool({
      endpoints: [{ id: 'a', url: server.url, wsUrl: server.wsUrl! }],
      clock,
      random: createSeededRandom(2),
      cache: false,
      subscriptions: { maxSubscriptionsPerSocket: 250 },
    });
    pools.push(pool);
    const BATCH = 500;
    const counts = { subscribed: 0, unsubscribed: 0, heads: 0 };
    const cycle = async () => {
      const subs = await Promise.all(Array.from({ length: BATCH }, (_, i) => pool.subscribe('eth_subscribe', ['logs', { topics: [`0x${i.toString(16).padStart(64, '0')}`] }])));
      // Half are closed while their head read is still in flight: its call is aborted, not left behind.
      await Promise.all(subs.slice(0, BATCH / 2).map((s) => s.close()));
      // Identical head reads in flight share one request (the pool's coalescing).
      await drive(clock, until(() => server.count('eth_getBlockByNumber') >= 1, 10_000, 'head read'));
      await Promise.all(subs.slice(BATCH / 2).map((s) => s.close()));
      counts.subscribed += server.count('eth_subscribe');
      counts.unsubscribed += server.count('eth_unsubscribe');
      counts.heads += server.count('eth_getBlockByNumber');
      server.reset();
    };
    const grown = await heapGrowth(clock, server, cycle, 10_000 / BATCH);

    expect(counts.subscribed).toBe(10_500);
    expect(counts.unsubscribed).toBe(10_500);
    expect(counts.heads).toBeGreaterThanOrEqual(21);
    expect(server.ws!.subscriptions()).toBe(0);
    expect(clock.pendingTimers).toBe(0);
    expect(grown).toBeLessThan(2 * 1024 * 1024);
  }, 120_000);
});
