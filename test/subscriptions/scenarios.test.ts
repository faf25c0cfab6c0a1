import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom, HttpTransportPool, isTransportError, type HttpTransportPoolOptions, type SubscriptionEvent } from '../../src/index.js';
import { createSolanaClient } from '../../src/solana/index.js';
import { createFakeClock, createFixtureServer, resultFixture, type Fixture, type FixtureServer } from '../../src/testing/index.js';
import { readUntil, slotsOf, until } from './helpers.js';

const servers: FixtureServer[] = [];
const pools: HttpTransportPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function node(options: { slotIntervalMs?: number; fixtures?: Fixture[] } = {}) {
  const server = await createFixtureServer({ fixtures: options.fixtures ?? [], websocket: { slotIntervalMs: options.slotIntervalMs ?? 0 } });
  servers.push(server);
  return server;
}

function poolOf(endpoints: HttpTransportPoolOptions['endpoints'], extra: Partial<HttpTransportPoolOptions> = {}) {
  const pool = new HttpTransportPool({ endpoints, random: createSeededRandom(3), ...extra, subscriptions: { initialBackoffMs: 20, maxBackoffMs: 100, ...extra.subscriptions } });
  pools.push(pool);
  return pool;
}

/** Nodes a (tier 0) and b (tier 1) behind one pool. */
async function primaryAndBackup(fixtures: Fixture[] = [], extra: Partial<HttpTransportPoolOptions> = {}) {
  const a = await node({ fixtures });
  const b = await node({ fixtures });
  const pool = poolOf(
    [
      { id: 'a', url: a.url, wsUrl: a.wsUrl!, tier: 0 },
      { id: 'b', url: b.url, wsUrl: b.wsUrl!, tier: 1 },
    ],
    extra,
  );
  return { a, b, pool };
}

const SIGNATURE = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';

describe('selection under the operator cap', () => {
  it('1 000 subscriptions on 3 endpoints of 2 operators under cap 0.5: no operator above half, at start and after a rebind', async () => {
    const [a1, a2, b] = [await node(), await node(), await node()];
    const pool = poolOf(
      [
        { id: 'a1', url: a1.url, wsUrl: a1.wsUrl!, operator: 'A' },
        { id: 'a2', url: a2.url, wsUrl: a2.wsUrl!, operator: 'A' },
        { id: 'b', url: b.url, wsUrl: b.wsUrl!, operator: 'B' },
      ],
      { concentration: { maxOperatorShare: 0.5 } },
    );
    const address = (i: number) => ['accountSubscribe', [`acc${i}`]] as const;
    const subs = await Promise.all(Array.from({ length: 1000 }, (_, i) => pool.subscribe(...address(i))));
    // What the nodes hold: the cap counted in open subscriptions.
    const held = () => ({ a1: a1.ws!.subscriptions(), a2: a2.ws!.subscriptions(), b: b.ws!.subscriptions() });
    expect(held().a1 + held().a2).toBe(500);
    expect(held().b).toBe(500);
    // Spread inside operator A, and many sockets (100 subscriptions per socket at most).
    expect(Math.abs(held().a1 - held().a2)).toBeLessThanOrEqual(1);
    expect(b.ws!.connections).toBe(5);
    const snapshot = pool.snapshot().subscriptions;
    expect(snapshot.map((s) => [s.endpointId, s.subscriptions])).toEqual([
      ['a1', held().a1],
      ['a2', held().a2],
      ['b', 500],
    ]);

    const rebound: SubscriptionEvent[] = [];
    pool.on('subscription', (e) => e.phase === 'rebound' && rebound.push(e));
    const onA1 = held().a1;
    a1.ws!.drop();
    await until(() => rebound.length === onA1, 10_000, 'every subscription of a1 rebound');
    // The rollover re-spreads under the cap instead of piling onto the surviving endpoint of A.
    expect(held().a1).toBe(0);
    expect(held().a2).toBeLessThanOrEqual(500);
    expect(held().a2 + held().b).toBe(1000);
    expect(held().b).toBeGreaterThanOrEqual(500);
    expect(rebound.every((e) => e.fromEndpointId === 'a1')).toBe(true);
    await Promise.all(subs.map((s) => s.close()));
    expect(pool.snapshot().subscriptions.every((s) => s.subscriptions === 0)).toBe(true);
  }, 30_000);
});

describe('rebind', () => {
  it('a dropped socket: the iterator goes on from another endpoint with a rebind item, no repeated slot, and a gap for the slots missed', async () => {
    const { a, b, pool } = await primaryAndBackup();
    const sub = await pool.subscribe('slotSubscribe', []);
    a.ws!.tickSlot();
    a.ws!.tickSlot();
    const first = await readUntil(sub, (_i, all) => all.length === 2);
    // b is ahead by 3 slots when the socket drops; it also resends a slot already seen.
    b.ws!.tickSlot(2);
    a.ws!.drop();
    await until(() => b.ws!.subscriptions('slotSubscribe') === 1, 5_000, 'resubscribed on b');
    b.ws!.tickSlot(-1); // 1001: already delivered
    b.ws!.tickSlot(4); // 1005: 1003–1004 were never delivered
    b.ws!.tickSlot();
    const after = await readUntil(sub, (_i, all) => slotsOf(all).includes(1006));
    expect(slotsOf(first)).toEqual([1001, 1002]);
    expect(after.map((i) => i.kind)).toEqual(['rebind', 'gap', 'notification', 'notification']);
    expect(after[0]).toMatchObject({ fromEndpointId: 'a', endpointId: 'b', reason: 'closed' });
    expect(after[1]).toMatchObject({ from: 1003n, to: 1004n, endpointId: 'b' });
    expect(slotsOf(after)).toEqual([1005, 1006]);
    expect(sub.endpointId).toBe('b');
  });

  it('an endpoint leaving rotation (benched by reputation) moves its subscriptions', async () => {
    const { a, b, pool } = await primaryAndBackup([], { retry: { maxRetries: 0 } });
    const sub = await pool.subscribe('slotSubscribe', []);
    expect(a.ws!.subscriptions()).toBe(1);
    // a answers HTTP with 500s until the reputation detectors bench it.
    a.setBehaviours({ '*': [{ type: 'http-error', status: 500 }] });
    for (let i = 0; i < 10 && pool.snapshot().endpoints[0]!.reputation!.cooldownRemainingMs === 0; i++) {
      await pool.request('getSlot', [], { endpoint: 'a', timeoutMs: 1000 }).catch(() => undefined);
    }
    const items = await readUntil(sub, (i) => i.kind === 'rebind');
    expect(items.at(-1)).toMatchObject({ kind: 'rebind', reason: 'left-rotation', fromEndpointId: 'a', endpointId: 'b' });
    await until(() => a.ws!.subscriptions() === 0 && b.ws!.subscriptions() === 1, 5_000, 'moved to b');
  });
});

describe('signature confirmation across a dropped socket', () => {
  const statuses = (confirmationStatus: string | null) =>
    resultFixture('solana', 'getSignatureStatuses', [[SIGNATURE], { searchTransactionHistory: false }], {
      context: { slot: 300 },
      value: [confirmationStatus === null ? null : { slot: 299, confirmations: 0, err: null, confirmationStatus }],
    });

  it('a confirmation that happened while the socket was down is found by the status check after the rebind', async () => {
    const fixtures = [statuses(null)];
    const { a, b, pool } = await primaryAndBackup(fixtures);
    const sol = createSolanaClient(pool);
    const confirmed = sol.onSignature(SIGNATURE, { commitment: 'confirmed' });
    await until(() => a.ws!.subscriptions('signatureSubscribe') === 1 && a.count('getSignatureStatuses') === 1, 5_000, 'subscribed and checked');
    // The socket drops; the transaction confirms meanwhile; no node will ever notify it.
    a.ws!.setUpgrade('refuse');
    fixtures[0] = statuses('confirmed');
    a.ws!.drop();
    await expect(confirmed).resolves.toEqual({ slot: 299n, err: null, via: 'status-check' });
    expect(a.count('getSignatureStatuses') + b.count('getSignatureStatuses')).toBe(2);
    // Resolved once, and the subscription is gone from the node.
    await until(() => b.ws!.subscriptions('signatureSubscribe') === 0, 5_000, 'unsubscribed');
  });

  it('a notification after the rebind resolves it (the status check found nothing)', async () => {
    const fixtures = [statuses(null)];
    const { a, b, pool } = await primaryAndBackup(fixtures);
    const confirmed = createSolanaClient(pool).onSignature(SIGNATURE);
    await until(() => a.ws!.subscriptions('signatureSubscribe') === 1, 5_000, 'subscribed on a');
    a.ws!.drop();
    await until(() => b.ws!.subscriptions('signatureSubscribe') === 1 && a.count('getSignatureStatuses') + b.count('getSignatureStatuses') === 2, 5_000, 'rebound and checked');
    expect(b.ws!.notify('signatureSubscribe', { context: { slot: 310 }, value: { err: null } })).toBe(1);
    await expect(confirmed).resolves.toEqual({ slot: 310n, err: null, via: 'notification' });
  });

  it('waitForSignature uses the subscription: a notified confirmation ends the wait though getSignatureStatuses never finds it', async () => {
    const a = await node({ fixtures: [statuses(null)] });
    const pool = poolOf([{ id: 'a', url: a.url, wsUrl: a.wsUrl! }]);
    const sol = createSolanaClient(pool);
    const waiting = sol.waitForSignature(SIGNATURE, { commitment: 'confirmed', timeoutMs: 10_000 });
    await until(() => a.ws!.subscriptions('signatureSubscribe') === 1, 5_000, 'subscribed');
    expect(a.ws!.notify('signatureSubscribe', { context: { slot: 310 }, value: { err: null } })).toBe(1);
    await expect(waiting).resolves.toEqual({ status: 'confirmed', signature: SIGNATURE, slot: 310n, err: null, confirmationStatus: 'confirmed' });
    // The wait's subscription is gone from the node once it ended.
    await until(() => a.ws!.subscriptions('signatureSubscribe') === 0, 5_000, 'unsubscribed');
  });

  it('waitForSignature with subscribe: false only polls (and a node that never finds the transaction ends it unknown)', async () => {
    const a = await node({ fixtures: [statuses(null)] });
    const pool = poolOf([{ id: 'a', url: a.url, wsUrl: a.wsUrl! }]);
    const outcome = await createSolanaClient(pool).waitForSignature(SIGNATURE, { timeoutMs: 500, subscribe: false, poll: { initialIntervalMs: 100, maxIntervalMs: 100 } });
    expect(outcome).toMatchObject({ status: 'unknown', lastStatus: null });
    expect(a.ws!.upgrades).toBe(0);
    expect(a.count('getSignatureStatuses')).toBeGreaterThanOrEqual(2);
  });

  it('an already confirmed transaction resolves from the first status check', async () => {
    const a = await node({ fixtures: [statuses('finalized')] });
    const pool = poolOf([{ id: 'a', url: a.url, wsUrl: a.wsUrl! }]);
    await expect(createSolanaClient(pool).onSignature(SIGNATURE, { commitment: 'finalized' })).resolves.toMatchObject({ via: 'status-check', slot: 299n });
  });

  it('rejects with SUBSCRIPTION_CLOSED when the pool closes first, ABORTED on the signal, INVALID_INPUT for a bad signature', async () => {
    const a = await node({ fixtures: [statuses(null)] });
    const pool = poolOf([{ id: 'a', url: a.url, wsUrl: a.wsUrl! }]);
    const sol = createSolanaClient(pool);
    await expect(sol.onSignature('not-a-signature')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const controller = new AbortController();
    const aborted = sol.onSignature(SIGNATURE, { signal: controller.signal });
    await until(() => a.ws!.subscriptions('signatureSubscribe') === 1, 5_000, 'subscribed');
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ code: 'ABORTED' });
    await until(() => a.ws!.subscriptions('signatureSubscribe') === 0, 5_000, 'the aborted one unsubscribed');
    const closing = sol.onSignature(SIGNATURE);
    closing.catch(() => undefined);
    await until(() => a.ws!.subscriptions('signatureSubscribe') === 1, 5_000, 'subscribed');
    await pool.close();
    await expect(closing).rejects.toMatchObject({ code: 'SUBSCRIPTION_CLOSED' });
  });
});

describe('bounded memory', () => {
  it('drop-oldest: a slow reader gets one overflow item saying how many were dropped, then the newest items', async () => {
    const a = await node();
    const pool = poolOf([{ id: 'a', url: a.url, wsUrl: a.wsUrl! }]);
    const slow = await pool.subscribe('slotSubscribe', [], { bufferSize: 4 });
    const reader = await pool.subscribe('slotSubscribe', []);
    for (let i = 0; i < 10; i++) a.ws!.tickSlot();
    // Same socket, same order: once the reader has 1010, so has the slow one.
    await readUntil(reader, (i) => i.kind === 'notification' && (i.value as { slot: number }).slot === 1010);
    const items = await readUntil(slow, (_i, all) => all.length === 5);
    expect(items[0]).toMatchObject({ kind: 'overflow', dropped: 6 });
    expect(slotsOf(items)).toEqual([1007, 1008, 1009, 1010]);
  });

  it("error: the iterator ends with SUBSCRIPTION_OVERFLOW; a caller sharing its node subscription reads on, and the last one's close removes it", async () => {
    const a = await node();
    const pool = poolOf([{ id: 'a', url: a.url, wsUrl: a.wsUrl! }]);
    const slow = await pool.subscribe('slotSubscribe', [], { bufferSize: 2, overflow: 'error' });
    const reader = await pool.subscribe('slotSubscribe', []);
    for (let i = 0; i < 5; i++) a.ws!.tickSlot();
    await readUntil(reader, (i) => i.kind === 'notification' && (i.value as { slot: number }).slot === 1005);
    const error = await slow.next().catch((e: unknown) => e);
    expect(isTransportError(error, 'SUBSCRIPTION_OVERFLOW')).toBe(true);
    expect(error).toMatchObject({ context: { method: 'slotSubscribe', bufferSize: 2 } });
    expect(await slow.next()).toEqual({ value: undefined, done: true });
    a.ws!.tickSlot();
    expect(slotsOf(await readUntil(reader, (_i, all) => all.length === 1))).toEqual([1006]);
    expect(a.count('slotUnsubscribe')).toBe(0);
    await reader.close();
    expect(a.count('slotUnsubscribe')).toBe(1);
    await until(() => a.ws!.subscriptions() === 0, 5_000, 'unsubscribed');
  });

  it("error, on a node subscription of its own (share: false): the node's subscription is removed", async () => {
    const a = await node();
    const pool = poolOf([{ id: 'a', url: a.url, wsUrl: a.wsUrl! }], { subscriptions: { share: false } });
    const slow = await pool.subscribe('slotSubscribe', [], { bufferSize: 2, overflow: 'error' });
    const reader = await pool.subscribe('slotSubscribe', []);
    for (let i = 0; i < 5; i++) a.ws!.tickSlot();
    await readUntil(reader, (i) => i.kind === 'notification' && (i.value as { slot: number }).slot === 1005);
    expect(isTransportError(await slow.next().catch((e: unknown) => e), 'SUBSCRIPTION_OVERFLOW')).toBe(true);
    await until(() => a.count('slotUnsubscribe') === 1, 5_000, 'unsubscribed');
    expect(a.ws!.subscriptions()).toBe(1);
  });
});

describe('frames a node should not send', () => {
  it('notifications for unknown ids and garbage frames are counted and ignored: the subscription goes on, no rebind', async () => {
    const a = await node();
    const pool = poolOf([{ id: 'a', url: a.url, wsUrl: a.wsUrl! }]);
    const sub = await pool.subscribe('slotSubscribe', []);
    a.ws!.sendUnknownNotification();
    a.ws!.sendGarbage();
    a.ws!.tickSlot();
    const items = await readUntil(sub, (_i, all) => all.length === 1);
    expect(items).toMatchObject([{ kind: 'notification', endpointId: 'a', value: { slot: 1001 } }]);
    expect(pool.snapshot().subscriptions[0]).toMatchObject({ endpointId: 'a', sockets: 1, subscriptions: 1, unknownNotifications: 1, garbageFrames: 5 });
    expect(a.ws!.upgrades).toBe(1);
  });
});

describe('upgrades refused', () => {
  it('429 on the upgrade: the subscription goes elsewhere and the endpoint is left alone for its Retry-After', async () => {
    const { a, pool } = await primaryAndBackup();
    a.ws!.setUpgrade({ status: 429, retryAfterSeconds: 30 });
    const first = await pool.subscribe('slotSubscribe', []);
    expect(first.endpointId).toBe('b');
    const more = await Promise.all([1, 2, 3].map(() => pool.subscribe('slotSubscribe', [])));
    expect(more.map((s) => s.endpointId)).toEqual(['b', 'b', 'b']);
    // One upgrade attempt, not one per subscription.
    expect(a.ws!.upgrades).toBe(1);
    const snapshotA = pool.snapshot().subscriptions[0]!;
    expect(snapshotA.pausedForMs).toBeGreaterThan(29_000);
    expect(snapshotA.consecutiveFailures).toBe(1);
  });

  it('every upgrade refused: SUBSCRIPTION_FAILED (timeout) once timeoutMs is over, saying what the last try met', async () => {
    const a = await node();
    a.ws!.setUpgrade('refuse');
    const pool = poolOf([{ id: 'a', url: a.url, wsUrl: a.wsUrl! }]);
    const error = await pool.subscribe('slotSubscribe', [], { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SUBSCRIPTION_FAILED', context: { reason: 'timeout', lastFailure: 'socket failed' } });
    // Retried with backoff, not hammered: 300 ms at 20–100 ms pauses.
    expect(a.ws!.upgrades).toBeGreaterThan(1);
    expect(a.ws!.upgrades).toBeLessThan(12);
  });

  it('a subscribe call the node refuses (bad params) fails at once with the node code, and no other node is asked', async () => {
    const { a, b, pool } = await primaryAndBackup();
    const error = await pool.subscribe('eth_subscribe', [42]).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SUBSCRIPTION_FAILED', endpointId: 'a', context: { reason: 'rpc-error', rpcCode: -32602 } });
    expect(a.count('eth_subscribe')).toBe(1);
    expect(b.ws!.upgrades).toBe(0);
  });

  it('no endpoint with a WebSocket URL: SUBSCRIPTION_FAILED no-ws-endpoint, nothing sent', async () => {
    const a = await node();
    const pool = poolOf([{ id: 'a', url: a.url }]);
    await expect(pool.subscribe('slotSubscribe', [])).rejects.toMatchObject({ code: 'SUBSCRIPTION_FAILED', context: { reason: 'no-ws-endpoint' } });
    expect(a.ws!.upgrades).toBe(0);
  });
});

describe('closing', () => {
  it('close() of the last caller unsubscribes on the node and frees the socket after idleSocketMs', async () => {
    const clock = createFakeClock();
    const a = await node();
    const pool = poolOf([{ id: 'a', url: a.url, wsUrl: a.wsUrl! }], { clock, subscriptions: { idleSocketMs: 1000 } });
    const one = await pool.subscribe('slotSubscribe', []);
    const two = await pool.subscribe('slotSubscribe', []);
    expect(a.ws!.connections).toBe(1);
    await one.close();
    // The two share one node subscription: the first to leave leaves it to the other.
    expect(a.count('slotUnsubscribe')).toBe(0);
    expect(await one.next()).toEqual({ value: undefined, done: true });
    await two.close();
    expect(a.count('slotUnsubscribe')).toBe(1);
    expect(a.ws!.connections).toBe(1);
    await clock.advance(1000);
    await until(() => a.ws!.connections === 0, 5_000, 'socket closed');
    expect(pool.snapshot().subscriptions[0]).toMatchObject({ sockets: 0, subscriptions: 0 });
    expect(clock.pendingTimers).toBe(0);
  });

  it('breaking out of for-await closes it; the signal closes it', async () => {
    const a = await node();
    const pool = poolOf([{ id: 'a', url: a.url, wsUrl: a.wsUrl! }]);
    const sub = await pool.subscribe('slotSubscribe', []);
    a.ws!.tickSlot();
    for await (const item of sub) {
      expect(item.kind).toBe('notification');
      break;
    }
    expect(sub.closed).toBe(true);
    expect(a.count('slotUnsubscribe')).toBe(1);
    const controller = new AbortController();
    const signalled = await pool.subscribe('slotSubscribe', [], { signal: controller.signal });
    controller.abort();
    expect(await signalled.next()).toEqual({ value: undefined, done: true });
    await until(() => a.count('slotUnsubscribe') === 2, 5_000, 'unsubscribed');
  });

  it('pool.close() ends every iterator and leaves 0 timers and 0 sockets', async () => {
    const clock = createFakeClock();
    const a = await node();
    const b = await node();
    const pool = poolOf(
      [
        { id: 'a', url: a.url, wsUrl: a.wsUrl! },
        { id: 'b', url: b.url, wsUrl: b.wsUrl! },
      ],
      { clock, subscriptions: { pingIntervalMs: 1000 } },
    );
    const subs = await Promise.all(Array.from({ length: 6 }, () => pool.subscribe('slotSubscribe', [])));
    // One subscription is rebinding (its endpoint paused) when the pool closes.
    const readers = subs.map(async (sub) => {
      const items = [];
      for await (const item of sub) items.push(item);
      return items.length;
    });
    expect(clock.pendingTimers).toBeGreaterThan(0);
    await pool.close();
    expect(await Promise.all(readers)).toEqual([0, 0, 0, 0, 0, 0]);
    await until(() => a.ws!.connections === 0 && b.ws!.connections === 0, 5_000, 'sockets closed');
    expect(clock.pendingTimers).toBe(0);
    expect(pool.snapshot().subscriptions.map((s) => s.sockets)).toEqual([0, 0]);
    await expect(pool.subscribe('slotSubscribe', [])).rejects.toMatchObject({ code: 'POOL_CLOSED' });
  });
});

describe('chain guard', () => {
  it('with expectedChain, subscriptions wait for the chain check and never reach an endpoint on another chain', async () => {
    const { SOLANA_GENESIS_HASHES } = await import('../../src/solana/index.js');
    const fixtures = [resultFixture('solana', 'getGenesisHash', [], SOLANA_GENESIS_HASHES['mainnet-beta'])];
    const wrong = await createFixtureServer({ fixtures, behaviours: { '*': [{ type: 'wrong-genesis' }] }, websocket: { slotIntervalMs: 0 } });
    const right = await createFixtureServer({ fixtures, websocket: { slotIntervalMs: 0 } });
    servers.push(wrong, right);
    const pool = poolOf(
      [
        { id: 'devnet-by-mistake', url: wrong.url, wsUrl: wrong.wsUrl!, tier: 0 },
        { id: 'mainnet', url: right.url, wsUrl: right.wsUrl!, tier: 1 },
      ],
      { chain: 'solana', expectedChain: { genesisHash: SOLANA_GENESIS_HASHES['mainnet-beta'] } },
    );
    const subs = await Promise.all([1, 2, 3].map(() => pool.subscribe('slotSubscribe', [])));
    expect(subs.map((s) => s.endpointId)).toEqual(['mainnet', 'mainnet', 'mainnet']);
    expect(wrong.count('getGenesisHash')).toBe(1);
    expect(wrong.ws!.upgrades).toBe(0);
    expect(pool.snapshot().endpoints.map((e) => e.chain)).toEqual(['wrong-chain', 'verified']);
  });
});
