import { describe, expect, it } from 'vitest';
import { createSeededRandom, HttpTransportPool, type HttpTransportPoolOptions } from '../../src/index.js';
import { createFakeClock } from '../../src/testing/index.js';
import type { FixtureServer } from '../../src/testing/index.js';
import { readUntil, trackedWebSocketNodes, until } from './helpers.js';

/**
 * Identical subscriptions from several callers share one node subscription, counted at the
 * node (the fixture server's WebSocket side over a loopback socket).
 */
const nodes = trackedWebSocketNodes();

function poolOn(server: FixtureServer, extra: Partial<HttpTransportPoolOptions> = {}): HttpTransportPool {
  const pool = new HttpTransportPool({ endpoints: [{ id: 'a', url: server.url, wsUrl: server.wsUrl! }], random: createSeededRandom(4), ...extra });
  nodes.pools.push(pool);
  return pool;
}

const head = (n: number) => ({ number: `0x${n.toString(16)}`, hash: `0x${n.toString(16).padStart(64, '0')}`, parentHash: `0x${(n - 1).toString(16).padStart(64, '0')}` });
const numberOf = (value: unknown) => Number((value as { number: string }).number);

describe('shared node subscriptions', () => {
  it('100 callers on newHeads make 1 node subscription; each gets every head as its own copy; closing 99 leaves it, closing the last sends eth_unsubscribe', async () => {
    const clock = createFakeClock();
    const a = await nodes.node(clock);
    const pool = poolOn(a, { clock });
    const callers = await Promise.all(Array.from({ length: 100 }, () => pool.subscribe('eth_subscribe', ['newHeads'])));
    expect(a.count('eth_subscribe')).toBe(1);
    expect(a.ws!.subscriptions('eth_subscribe')).toBe(1);
    expect(pool.snapshot().subscriptions).toEqual([expect.objectContaining({ sockets: 1, subscriptions: 1, callers: 100, shared: 1, redundant: 0 })]);

    a.ws!.notify('eth_subscribe', head(7));
    const firsts = await Promise.all(callers.map((c) => readUntil(c, () => true)));
    expect(firsts.map((items) => numberOf((items[0] as { value: unknown }).value))).toEqual(Array(100).fill(7));
    // A caller mutating what it read changes nobody else's.
    (firsts[0]![0] as { value: { number: string } }).value.number = 'mine';
    expect(firsts.slice(1).every((items) => (items[0] as { value: { number: string } }).value.number === '0x7')).toBe(true);

    await Promise.all(callers.slice(0, 99).map((c) => c.close()));
    expect(a.count('eth_unsubscribe')).toBe(0);
    expect(a.ws!.subscriptions('eth_subscribe')).toBe(1);
    expect(pool.snapshot().subscriptions[0]).toMatchObject({ subscriptions: 1, callers: 1, shared: 0 });
    const last = callers[99]!;
    a.ws!.notify('eth_subscribe', head(8));
    expect((await readUntil(last, () => true)).map((i) => i.kind === 'notification' && numberOf(i.value))).toEqual([8]);

    await last.close();
    expect(a.count('eth_unsubscribe')).toBe(1);
    await until(() => a.ws!.subscriptions() === 0, 5_000, 'unsubscribed at the node');
    expect(pool.snapshot().subscriptions[0]).toMatchObject({ subscriptions: 0, callers: 0 });
  });

  it('a slow caller overflows its own buffer (drop-oldest) while the others read every item', async () => {
    const clock = createFakeClock();
    const a = await nodes.node(clock);
    const pool = poolOn(a, { clock });
    const slow = await pool.subscribe('eth_subscribe', ['newHeads'], { bufferSize: 2 });
    const fast = await pool.subscribe('eth_subscribe', ['newHeads']);
    expect(a.count('eth_subscribe')).toBe(1);
    for (let n = 1; n <= 10; n++) a.ws!.notify('eth_subscribe', head(n));
    const read = await readUntil(fast, (_i, all) => all.length === 10);
    expect(read.map((i) => i.kind === 'notification' && numberOf(i.value))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const slowItems = await readUntil(slow, (_i, all) => all.length === 3);
    expect(slowItems[0]).toMatchObject({ kind: 'overflow', dropped: 8 });
    expect(slowItems.slice(1).map((i) => i.kind === 'notification' && numberOf(i.value))).toEqual([9, 10]);
  });

  it('different params, or share: false, make node subscriptions of their own', async () => {
    const clock = createFakeClock();
    const a = await nodes.node(clock);
    const shared = poolOn(a, { clock });
    await shared.subscribe('accountSubscribe', ['one']);
    await shared.subscribe('accountSubscribe', ['two']);
    await shared.subscribe('accountSubscribe', ['two', { commitment: 'finalized' }]);
    await shared.subscribe('accountSubscribe', ['two']);
    expect(a.count('accountSubscribe')).toBe(3);
    const unshared = poolOn(a, { clock, subscriptions: { share: false } });
    await unshared.subscribe('accountSubscribe', ['two']);
    await unshared.subscribe('accountSubscribe', ['two']);
    expect(a.count('accountSubscribe')).toBe(5);
  });

  it('callers joining a subscription the node has not confirmed yet wait for it; one aborting leaves the others; all aborting drops it at the node', async () => {
    const clock = createFakeClock();
    const a = await nodes.node(clock);
    const pool = poolOn(a, { clock });
    a.ws!.setSubscribeAnswer({ delayMs: 500 });
    const controller = new AbortController();
    const leaving = pool.subscribe('slotSubscribe', [], { signal: controller.signal });
    const staying = pool.subscribe('slotSubscribe', []);
    await until(() => a.count('slotSubscribe') === 1, 5_000, 'subscribe sent');
    controller.abort();
    await expect(leaving).rejects.toMatchObject({ code: 'ABORTED' });
    await clock.advance(500);
    const sub = await staying;
    a.ws!.tickSlot();
    expect((await readUntil(sub, () => true))[0]).toMatchObject({ kind: 'notification', value: { slot: 1001 } });
    expect(a.count('slotSubscribe')).toBe(1);

    const alone = new AbortController();
    const abandoned = pool.subscribe('accountSubscribe', ['x'], { signal: alone.signal });
    await until(() => a.count('accountSubscribe') === 1, 5_000, 'subscribe sent');
    alone.abort();
    await expect(abandoned).rejects.toMatchObject({ code: 'ABORTED' });
    await clock.advance(500);
    // The node's late confirmation is undone at once.
    await until(() => a.count('accountUnsubscribe') === 1 && a.ws!.subscriptions('accountSubscribe') === 0, 5_000, 'dropped at the node');
  });

  it("a caller joining a placement keeps its own timeoutMs: it fails at its deadline, the placement goes on for the first caller", async () => {
    const clock = createFakeClock();
    const a = await nodes.node(clock);
    const pool = poolOn(a, { clock });
    a.ws!.setSubscribeAnswer({ delayMs: 500 });
    const first = pool.subscribe('slotSubscribe', [], { timeoutMs: 1_000 });
    const hurried = pool.subscribe('slotSubscribe', [], { timeoutMs: 200 });
    hurried.catch(() => undefined);
    await until(() => a.count('slotSubscribe') === 1, 5_000, 'subscribe sent');
    await clock.advance(200);
    await expect(hurried).rejects.toMatchObject({ code: 'SUBSCRIPTION_FAILED', context: { reason: 'timeout' } });
    await clock.advance(300);
    const sub = await first;
    a.ws!.tickSlot();
    expect((await readUntil(sub, () => true))[0]).toMatchObject({ kind: 'notification', value: { slot: 1001 } });
    expect(a.count('slotSubscribe')).toBe(1);
    expect(pool.snapshot().subscriptions[0]).toMatchObject({ subscriptions: 1, callers: 1 });
  });
});
