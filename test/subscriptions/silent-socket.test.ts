import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom, HttpTransportPool, type SubscriptionEvent, type SubscriptionSettings } from '../../src/index.js';
import { createFakeClock, createFixtureServer, type FixtureServer } from '../../src/testing/index.js';
import { drive } from './drive.js';

const servers: FixtureServer[] = [];
const pools: HttpTransportPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** Two nodes ticking slots every 400 ms on `clock`, and a pool preferring a (tier 0) over b (tier 1). */
async function twoNodes(clock: ReturnType<typeof createFakeClock>, subscriptions: SubscriptionSettings) {
  const a = await createFixtureServer({ fixtures: [], clock, websocket: { slotIntervalMs: 400 } });
  const b = await createFixtureServer({ fixtures: [], clock, websocket: { slotIntervalMs: 400 } });
  servers.push(a, b);
  const pool = new HttpTransportPool({
    endpoints: [
      { id: 'a', url: a.url, wsUrl: a.wsUrl!, tier: 0 },
      { id: 'b', url: b.url, wsUrl: b.wsUrl!, tier: 1 },
    ],
    clock,
    random: createSeededRandom(1),
    subscriptions,
  });
  pools.push(pool);
  return { a, b, pool };
}

describe('a silent socket', () => {
  it('is declared dead while pongs still arrive, and the first notification from another endpoint comes within 2.4 s (default settings)', async () => {
    const clock = createFakeClock();
    // Pings every 300 ms so they keep coming while the stream is silent; a lost pong would take 60 s.
    const { a, b, pool } = await twoNodes(clock, { pingIntervalMs: 300, pongTimeoutMs: 60_000 });
    const events: SubscriptionEvent[] = [];
    pool.on('subscription', (e) => events.push(e));
    const sub = await pool.subscribe('slotSubscribe', []);
    const before = await drive(clock, sub, (items) => items.length === 3);
    expect(before.every((i) => i.kind === 'notification' && i.endpointId === 'a')).toBe(true);
    const lastFromA = before.at(-1)!.atMs;

    a.ws!.setSilent(true);
    const pingsBefore = a.ws!.pings;
    const after = await drive(clock, sub, (items) => items.some((i) => i.kind === 'notification'), { stepMs: 100, maxSteps: 100 });
    const rebind = after.find((i) => i.kind === 'rebind');
    expect(rebind).toMatchObject({ kind: 'rebind', fromEndpointId: 'a', endpointId: 'b', reason: 'silent' });
    const firstFromB = after.find((i) => i.kind === 'notification')!;
    expect(firstFromB.endpointId).toBe('b');
    // 5 × 400 ms of silence (the 2 s floor), then b's next tick: at most 400 ms later.
    expect(firstFromB.atMs - lastFromA).toBeGreaterThanOrEqual(2000);
    expect(firstFromB.atMs - lastFromA).toBeLessThanOrEqual(2400);
    // The node kept answering pings the whole time: pongs alone never prove a stream alive.
    expect(a.ws!.pings).toBeGreaterThan(pingsBefore + 3);
    expect(events.filter((e) => e.phase === 'rebound')).toMatchObject([{ endpointId: 'b', fromEndpointId: 'a', reason: 'silent' }]);
    // The silent socket is gone from a; b holds the subscription.
    await clock.advance(0);
    expect(a.ws!.subscriptions('slotSubscribe')).toBe(0);
    expect(b.ws!.subscriptions('slotSubscribe')).toBe(1);
    await sub.close();
  });

  it('detects silence faster when configured lower (minSilenceMs 500, factor 2: under 1.3 s)', async () => {
    const clock = createFakeClock();
    const { a, pool } = await twoNodes(clock, { minSilenceMs: 500, silenceFactor: 2, pingIntervalMs: 0 });
    const sub = await pool.subscribe('slotSubscribe', []);
    const before = await drive(clock, sub, (items) => items.length === 2);
    a.ws!.setSilent(true);
    const after = await drive(clock, sub, (items) => items.some((i) => i.kind === 'notification'), { stepMs: 50, maxSteps: 100 });
    const firstFromB = after.find((i) => i.kind === 'notification')!;
    expect(firstFromB.endpointId).toBe('b');
    expect(firstFromB.atMs - before.at(-1)!.atMs).toBeLessThanOrEqual(1200);
  });

  it('learns the interval of a stream with none configured (EVM heads) and watches it', async () => {
    const clock = createFakeClock();
    const { a, pool } = await twoNodes(clock, { pingIntervalMs: 0 });
    const sub = await pool.subscribe('eth_subscribe', ['newHeads']);
    let n = 0;
    const head = (server: FixtureServer) => server.ws!.notify('eth_subscribe', { number: `0x${(++n).toString(16)}`, hash: `0x${n.toString(16).padStart(64, '0')}` });
    // One block a second on a, for four blocks: the interval is learned (1 s → 5 s of silence allowed).
    for (let i = 0; i < 4; i++) {
      head(a);
      await drive(clock, sub, (items) => items.length === 1, { stepMs: 1000, maxSteps: 0 });
      await clock.advance(1000);
    }
    const lastFromA = clock.now() - 1000;
    const after = await drive(clock, sub, (items) => items.some((i) => i.kind === 'rebind'), { stepMs: 250, maxSteps: 40 });
    expect(after.find((i) => i.kind === 'rebind')).toMatchObject({ reason: 'silent', endpointId: 'b' });
    const rebindAt = after.find((i) => i.kind === 'rebind')!.atMs;
    expect(rebindAt - lastFromA).toBeGreaterThanOrEqual(5000);
    expect(rebindAt - lastFromA).toBeLessThanOrEqual(5250);
  });
});

describe('a half-dead socket', () => {
  it('that stops answering pings is dead after pongTimeoutMs, even for a stream that never ticks', async () => {
    const clock = createFakeClock();
    const { a, b, pool } = await twoNodes(clock, { pingIntervalMs: 1000, pongTimeoutMs: 1000 });
    const sub = await pool.subscribe('accountSubscribe', ['4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T']);
    // Pongs flow: nothing happens for 10 s.
    await drive(clock, sub, () => false, { stepMs: 500, maxSteps: 20, ioMs: 10 }).catch(() => undefined);
    expect(b.ws!.subscriptions()).toBe(0);
    a.ws!.setAnswerPings(false);
    const startedAt = clock.now();
    const items = await drive(clock, sub, (all) => all.some((i) => i.kind === 'rebind'), { stepMs: 100, maxSteps: 40 });
    expect(items.at(-1)).toMatchObject({ kind: 'rebind', reason: 'pong-timeout', fromEndpointId: 'a', endpointId: 'b' });
    // Next ping within 1 s, its pong overdue 1 s later, then the resubscribe's jitter (under initialBackoffMs, 250 ms).
    expect(items.at(-1)!.atMs - startedAt).toBeLessThanOrEqual(2250);
    expect(b.ws!.subscriptions('accountSubscribe')).toBe(1);
  });
});
