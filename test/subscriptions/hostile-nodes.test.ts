/**
 * Nodes that answer late, never, or with frames too big (issue 25, subscriptions): a fake
 * clock shared by the pool and the fixture nodes, real sockets on 127.0.0.1.
 */
import { describe, expect, it } from 'vitest';
import { createSeededRandom, HttpTransportPool, isTransportError, type HttpTransportPoolOptions } from '../../src/index.js';
import { createFakeClock, type FakeClock } from '../../src/testing/index.js';
import { advanceWithIo, drive } from './drive.js';
import { trackedWebSocketNodes, until } from './helpers.js';

const { pools, node } = trackedWebSocketNodes();

function poolOf(clock: FakeClock, endpoints: HttpTransportPoolOptions['endpoints'], extra: Partial<HttpTransportPoolOptions> = {}) {
  const pool = new HttpTransportPool({ endpoints, clock, random: createSeededRandom(7), ...extra });
  pools.push(pool);
  return pool;
}

/** Settles into `outcome` (never rejects), so a test can look at it at any instant. */
function watch<T>(promise: Promise<T>) {
  const outcome: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(outcome, { settled: true, value }),
    (error: unknown) => Object.assign(outcome, { settled: true, error }),
  );
  return outcome;
}

const account = (slot: number, data: string) => ({ context: { slot }, value: { lamports: slot, data: [data, 'base64'] } });

describe('frames and buffers are bounded', () => {
  it('a frame above maxResponseBytes (the default frame bound) is never delivered: the socket is closed and the subscription moves', async () => {
    const clock = createFakeClock();
    const [a, b] = [await node(clock), await node(clock)];
    const pool = poolOf(
      clock,
      [
        { id: 'a', url: a.url, wsUrl: a.wsUrl!, tier: 0 },
        { id: 'b', url: b.url, wsUrl: b.wsUrl!, tier: 1 },
      ],
      { maxResponseBytes: 1024 * 1024 },
    );
    const sub = await pool.subscribe('accountSubscribe', ['acc']);
    expect(a.ws!.notify('accountSubscribe', account(1, 'x'.repeat(512 * 1024)))).toBe(1); // under the bound: delivered
    expect(a.ws!.notify('accountSubscribe', account(2, 'y'.repeat(2 * 1024 * 1024)))).toBe(1); // over it
    const items = await drive(clock, sub, (all) => all.some((i) => i.kind === 'rebind'), { stepMs: 50, maxSteps: 100 });
    await until(() => b.ws!.subscriptions('accountSubscribe') === 1, 5_000, 'moved to b');
    b.ws!.notify('accountSubscribe', account(3, 'small'));
    items.push(...(await drive(clock, sub, (all) => all.length > 0, { stepMs: 50, maxSteps: 20 })));
    expect(items.map((i) => (i.kind === 'notification' ? `n${(i.value as { context: { slot: number } }).context.slot}@${i.endpointId}` : i.kind))).toEqual(['n1@a', 'rebind', 'n3@b']);
    expect(items[1]).toMatchObject({ kind: 'rebind', fromEndpointId: 'a', endpointId: 'b', reason: 'error' });
  });

  it('bufferBytes bounds a slow reader in bytes: drop-oldest keeps the newest that fit and says how many were dropped; error ends it', async () => {
    const clock = createFakeClock();
    const a = await node(clock);
    const pool = poolOf(clock, [{ id: 'a', url: a.url, wsUrl: a.wsUrl! }], { subscriptions: { bufferBytes: 10_000 } });
    const dropping = await pool.subscribe('accountSubscribe', ['acc']);
    const failing = await pool.subscribe('accountSubscribe', ['acc'], { overflow: 'error', bufferBytes: 5_000 });
    // A sentinel on the same socket: once its notification is read, every frame before it was buffered.
    const sentinel = await pool.subscribe('slotSubscribe', []);
    for (let slot = 1; slot <= 10; slot++) a.ws!.notify('accountSubscribe', account(slot, 'z'.repeat(3_000)));
    a.ws!.tickSlot();
    await drive(clock, sentinel, (all) => all.length === 1);
    const items = await drive(clock, dropping, (all) => all.length === 4);
    expect(items[0]).toMatchObject({ kind: 'overflow', dropped: 7 });
    expect(items.slice(1).map((i) => i.kind === 'notification' && (i.value as { context: { slot: number } }).context.slot)).toEqual([8, 9, 10]);
    const error = await failing.next().catch((e: unknown) => e);
    expect(isTransportError(error, 'SUBSCRIPTION_OVERFLOW') && error.context).toEqual({ method: 'accountSubscribe', bufferSize: 1024, bufferBytes: 5_000 });
  });
});

describe('the caller governs a pending subscribe', () => {
  it('timeoutMs and the signal settle a subscribe at their instant, while the node never answers and requestTimeoutMs is longer', async () => {
    const clock = createFakeClock();
    const a = await node(clock);
    a.ws!.setSubscribeAnswer('never');
    const pool = poolOf(clock, [{ id: 'a', url: a.url, wsUrl: a.wsUrl! }], { subscriptions: { requestTimeoutMs: 3_000 } });
    const timed = watch(pool.subscribe('slotSubscribe', [], { timeoutMs: 1_500 }));
    const controller = new AbortController();
    const aborted = watch(pool.subscribe('rootSubscribe', [], { signal: controller.signal }));
    await until(() => a.count('slotSubscribe') === 1 && a.count('rootSubscribe') === 1, 5_000, 'both calls at the node');
    const startedAt = clock.now();
    await advanceWithIo(clock, 300);
    controller.abort();
    await advanceWithIo(clock, 0);
    expect(aborted.settled).toBe(true);
    expect(isTransportError(aborted.error, 'ABORTED')).toBe(true);
    expect(clock.now() - startedAt).toBe(300);
    await advanceWithIo(clock, 1_499 - 300);
    expect(timed.settled).toBe(false);
    await advanceWithIo(clock, 1);
    expect(timed.settled).toBe(true);
    expect(isTransportError(timed.error, 'SUBSCRIPTION_FAILED') && timed.error.context).toMatchObject({ reason: 'timeout' });
  });
});

describe('placement counts stay exact', () => {
  it('after 5 subscribes that timed out, counts are 0 and the next 10 split 5/5 under maxOperatorShare 0.5', async () => {
    const clock = createFakeClock();
    const [a, b] = [await node(clock), await node(clock)];
    const pool = poolOf(
      clock,
      [
        { id: 'a', url: a.url, wsUrl: a.wsUrl!, operator: 'A' },
        { id: 'b', url: b.url, wsUrl: b.wsUrl!, operator: 'B' },
      ],
      { concentration: { maxOperatorShare: 0.5 }, subscriptions: { requestTimeoutMs: 1_000 } },
    );
    a.ws!.setSubscribeAnswer('never');
    b.ws!.setSubscribeAnswer('never');
    const failed = Array.from({ length: 5 }, (_, i) => watch(pool.subscribe('accountSubscribe', [`lost${i}`], { timeoutMs: 1_500 })));
    await until(() => a.count('accountSubscribe') + b.count('accountSubscribe') === 5, 5_000, 'five calls at the nodes');
    await advanceWithIo(clock, 3_000, { stepMs: 100 });
    expect(failed.every((f) => isTransportError(f.error, 'SUBSCRIPTION_FAILED'))).toBe(true);
    expect(pool.snapshot().subscriptions.map((s) => s.subscriptions)).toEqual([0, 0]);
    a.ws!.setSubscribeAnswer('answer');
    b.ws!.setSubscribeAnswer('answer');
    const subs = await Promise.all(Array.from({ length: 10 }, (_, i) => pool.subscribe('accountSubscribe', [`acc${i}`])));
    expect([a.ws!.subscriptions(), b.ws!.subscriptions()]).toEqual([5, 5]);
    expect(pool.snapshot().subscriptions.map((s) => s.subscriptions)).toEqual([5, 5]);
    await Promise.all(subs.map((s) => s.close()));
  });
});

describe('late confirmations', () => {
  it('a node that confirms after the request timed out (and after the subscribe failed) is told to unsubscribe at once: nothing orphaned', async () => {
    const clock = createFakeClock();
    const a = await node(clock);
    const pool = poolOf(clock, [{ id: 'a', url: a.url, wsUrl: a.wsUrl! }], { subscriptions: { requestTimeoutMs: 1_000 } });
    // A live subscription (of a stream that need not tick) keeps the socket open: only an unsubscribe can free the node's state.
    const keeper = await pool.subscribe('programSubscribe', ['prog']);
    a.ws!.setSubscribeAnswer({ delayMs: 1_200 });
    const late = watch(pool.subscribe('accountSubscribe', ['acc'], { timeoutMs: 1_500 }));
    await advanceWithIo(clock, 4_000, { stepMs: 100 });
    expect(isTransportError(late.error, 'SUBSCRIPTION_FAILED')).toBe(true);
    // Both calls (the first timed out at 1 s, the retry was cut by the 1.5 s deadline) were confirmed late, and undone.
    expect(a.count('accountSubscribe')).toBe(2);
    await until(() => a.count('accountUnsubscribe') === 2, 5_000, 'both late confirmations unsubscribed');
    expect(a.ws!.subscriptions('accountSubscribe')).toBe(0);
    expect(a.ws!.notify('accountSubscribe', account(1, 'nobody'))).toBe(0);
    expect(a.ws!.subscriptions('programSubscribe')).toBe(1);
    expect(a.count('programSubscribe')).toBe(1);
    await keeper.close();
  });
});
