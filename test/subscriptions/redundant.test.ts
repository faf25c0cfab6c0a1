import { describe, expect, it } from 'vitest';
import { createSeededRandom, HttpTransportPool, type HttpTransportPoolOptions } from '../../src/index.js';
import { createFakeClock, type FakeClock } from '../../src/testing/index.js';
import type { SubscriptionItem } from '../../src/subscriptions/types.js';
import { describe as describeItems, readUntil, trackedWebSocketNodes, until } from './helpers.js';

/** `redundancy: 2` on fixture nodes over loopback sockets: what the caller reads, and what each node was asked. */
const nodes = trackedWebSocketNodes();

function poolOf(endpoints: HttpTransportPoolOptions['endpoints'], extra: Partial<HttpTransportPoolOptions> = {}, seed = 6): HttpTransportPool {
  const pool = new HttpTransportPool({ endpoints, random: createSeededRandom(seed), ...extra, subscriptions: { initialBackoffMs: 20, maxBackoffMs: 100, ...extra.subscriptions } });
  nodes.pools.push(pool);
  return pool;
}

const head = (n: number) => ({ number: `0x${n.toString(16)}`, hash: `0x${n.toString(16).padStart(64, '0')}` });
const kinds = (items: readonly SubscriptionItem[]) => items.map((i) => (i.kind === 'notification' ? Number((i.value as { number: string }).number) : i.kind));

/** The `rebound` events from now on. */
function reboundEvents(pool: HttpTransportPool): { endpointId: string; fromEndpointId: string | undefined }[] {
  const seen: { endpointId: string; fromEndpointId: string | undefined }[] = [];
  pool.on('subscription', (e) => e.phase === 'rebound' && seen.push({ endpointId: e.endpointId, fromEndpointId: e.fromEndpointId }));
  return seen;
}

async function twoOperators(clock: FakeClock | undefined = undefined) {
  const real = clock ?? createFakeClock();
  const a = await nodes.node(real);
  const b = await nodes.node(real);
  const pool = poolOf([
    { id: 'a', url: a.url, wsUrl: a.wsUrl!, operator: 'alpha' },
    { id: 'b', url: b.url, wsUrl: b.wsUrl!, operator: 'beta' },
  ]);
  return { a, b, pool };
}

describe('redundancy: 2', () => {
  it('holds the stream on both nodes and delivers each head once, from whichever brings it first', async () => {
    const { a, b, pool } = await twoOperators();
    const heads = await pool.subscribe('eth_subscribe', ['newHeads'], { redundancy: 2 });
    await until(() => a.ws!.subscriptions() === 1 && b.ws!.subscriptions() === 1, 5_000, 'a leg on each node');
    expect(pool.snapshot().subscriptions).toEqual([
      expect.objectContaining({ endpointId: 'a', subscriptions: 1, redundant: 1, callers: 1 }),
      expect.objectContaining({ endpointId: 'b', subscriptions: 1, redundant: 1, callers: 1 }),
    ]);
    // Each head first from one node, then again from the other (two sockets: one at a time, so the order is known).
    const items: SubscriptionItem[] = [];
    for (const [n, first, second] of [[1, a, b], [2, b, a], [3, a, b], [4, b, a]] as const) {
      first.ws!.notify('eth_subscribe', head(n));
      items.push(...(await readUntil(heads, () => true)));
      second.ws!.notify('eth_subscribe', head(n));
    }
    b.ws!.notify('eth_subscribe', head(5));
    items.push(...(await readUntil(heads, () => true)));
    expect(kinds(items)).toEqual([1, 2, 3, 4, 5]);
    expect(items.map((i) => i.endpointId)).toEqual(['a', 'b', 'a', 'b', 'b']);
  });

  it('one node drops its socket: the other leg goes on with no gap and no rebind item, and the dropped leg comes back', async () => {
    const { a, b, pool } = await twoOperators();
    const heads = await pool.subscribe('eth_subscribe', ['newHeads'], { redundancy: 2 });
    await until(() => a.ws!.subscriptions() === 1 && b.ws!.subscriptions() === 1, 5_000, 'a leg on each node');
    a.ws!.notify('eth_subscribe', head(1));
    b.ws!.notify('eth_subscribe', head(1));
    const rebound = reboundEvents(pool);
    a.ws!.drop();
    b.ws!.notify('eth_subscribe', head(2));
    b.ws!.notify('eth_subscribe', head(3));
    // The dropped leg resubscribes on its own node (never onto b, where the other leg is).
    await until(() => rebound.length === 1, 5_000, 'the dropped leg back');
    expect(rebound).toEqual([{ endpointId: 'a', fromEndpointId: 'a' }]);
    a.ws!.notify('eth_subscribe', head(4));
    b.ws!.notify('eth_subscribe', head(4));
    const items = await readUntil(heads, (_i, all) => all.length === 4);
    expect(describeItems(items)).not.toMatch(/gap|rebind/);
    expect(kinds(items)).toEqual([1, 2, 3, 4]);
  });

  it('both nodes missed heads: one gap item for what neither brought, and the rebind item the caller needs', async () => {
    const { a, b, pool } = await twoOperators();
    const heads = await pool.subscribe('eth_subscribe', ['newHeads'], { redundancy: 2 });
    await until(() => a.ws!.subscriptions() === 1 && b.ws!.subscriptions() === 1, 5_000, 'a leg on each node');
    a.ws!.notify('eth_subscribe', head(1));
    expect(kinds(await readUntil(heads, () => true))).toEqual([1]);
    const rebound = reboundEvents(pool);
    a.ws!.drop();
    b.ws!.drop();
    await until(() => rebound.length === 2, 5_000, 'both legs back');
    a.ws!.notify('eth_subscribe', head(4));
    b.ws!.notify('eth_subscribe', head(4));
    const items = await readUntil(heads, (i) => i.kind === 'notification' && kinds([i])[0] === 4);
    const rest = items.filter((i) => i.kind !== 'rebind');
    expect(items.some((i) => i.kind === 'rebind')).toBe(true);
    expect(kinds(rest)).toEqual(['gap', 4]);
    expect(rest[0]).toMatchObject({ from: 2n, to: 3n });
  });

  it('the two legs go to two operators, whichever endpoint the first takes (with the operator cap off too)', async () => {
    const clock = createFakeClock();
    const x1 = await nodes.node(clock);
    const x2 = await nodes.node(clock);
    const y1 = await nodes.node(clock);
    for (const seed of [1, 2, 3, 4, 5]) {
      const pool = poolOf(
        [
          { id: 'x1', url: x1.url, wsUrl: x1.wsUrl!, operator: 'x' },
          { id: 'x2', url: x2.url, wsUrl: x2.wsUrl!, operator: 'x' },
          { id: 'y1', url: y1.url, wsUrl: y1.wsUrl!, operator: 'y' },
        ],
        { concentration: { maxOperatorShare: 0 } },
        seed,
      );
      const sub = await pool.subscribe('slotSubscribe', [], { redundancy: 2 });
      await until(() => pool.snapshot().subscriptions.reduce((n, s) => n + s.redundant, 0) === 2, 5_000, 'both legs placed');
      const held = pool.snapshot().subscriptions.filter((s) => s.redundant === 1).map((s) => s.endpointId);
      expect(held.filter((id) => id.startsWith('x')), `seed ${seed}: ${held.join(',')}`).toHaveLength(1);
      expect(held).toContain('y1');
      await sub.close();
    }
  });

  it('account changes (by slot) and logs (by block hash and log index) are delivered once across the two legs', async () => {
    const { a, b, pool } = await twoOperators();
    const account = await pool.subscribe('accountSubscribe', ['acc'], { redundancy: 2 });
    const logs = await pool.subscribe('eth_subscribe', ['logs', {}], { redundancy: 2 });
    await until(() => a.ws!.subscriptions() === 2 && b.ws!.subscriptions() === 2, 5_000, 'two legs each');
    const change = (slot: number, lamports: number) => ({ context: { slot }, value: { lamports } });
    const log = (block: string, index: string) => ({ blockHash: block, logIndex: index, removed: false });
    const got: unknown[] = [];
    for (const [first, second, value, method] of [
      [a, b, change(5, 1), 'accountSubscribe'],
      [b, a, change(6, 2), 'accountSubscribe'],
      [a, b, log('0xaa', '0x0'), 'eth_subscribe'],
      [b, a, log('0xaa', '0x1'), 'eth_subscribe'],
    ] as const) {
      const sub = method === 'accountSubscribe' ? account : logs;
      first.ws!.notify(method, value, (params) => method === 'accountSubscribe' || params[0] === 'logs');
      got.push(...(await readUntil(sub, () => true)).map((i) => i.kind === 'notification' && i.value));
      second.ws!.notify(method, value, (params) => method === 'accountSubscribe' || params[0] === 'logs');
    }
    // The second copies came in meanwhile; the next distinct ones are the next items.
    a.ws!.notify('accountSubscribe', change(7, 3));
    b.ws!.notify('eth_subscribe', log('0xbb', '0x0'), (params) => params[0] === 'logs');
    got.push(...(await readUntil(account, () => true)).map((i) => i.kind === 'notification' && i.value));
    got.push(...(await readUntil(logs, () => true)).map((i) => i.kind === 'notification' && i.value));
    expect(got).toEqual([change(5, 1), change(6, 2), log('0xaa', '0x0'), log('0xaa', '0x1'), change(7, 3), log('0xbb', '0x0')]);
  });

  it('a signature stream ends after its one notification, delivered once, and both legs are released', async () => {
    const { a, b, pool } = await twoOperators();
    const signature = 'sig';
    const sub = await pool.subscribe('signatureSubscribe', [signature], { redundancy: 2 });
    await until(() => a.ws!.subscriptions() === 1 && b.ws!.subscriptions() === 1, 5_000, 'a leg on each node');
    const confirmation = { context: { slot: 5 }, value: { err: null } };
    a.ws!.notify('signatureSubscribe', confirmation);
    b.ws!.notify('signatureSubscribe', confirmation);
    const items: SubscriptionItem[] = [];
    for await (const item of sub) items.push(item);
    expect(items).toEqual([expect.objectContaining({ kind: 'notification', value: confirmation })]);
    expect(sub.closed).toBe(true);
    await until(() => pool.snapshot().subscriptions.every((s) => s.subscriptions === 0), 5_000, 'both legs released');
  });

  it('bad input: redundancy 3, or 2 with one WebSocket endpoint, is INVALID_INPUT and opens no socket', async () => {
    const clock = createFakeClock();
    const a = await nodes.node(clock);
    const one = poolOf([{ id: 'a', url: a.url, wsUrl: a.wsUrl! }]);
    await expect(one.subscribe('slotSubscribe', [], { redundancy: 2 })).rejects.toMatchObject({ code: 'INVALID_INPUT', context: { field: 'redundancy' } });
    await expect(one.subscribe('slotSubscribe', [], { redundancy: 3 as 2 })).rejects.toMatchObject({ code: 'INVALID_INPUT', context: { field: 'redundancy' } });
    expect(() => poolOf([{ id: 'a', url: a.url, wsUrl: a.wsUrl! }], { subscriptions: { redundancy: 3 as 2 } })).toThrow(/redundancy/);
    expect(a.ws!.upgrades).toBe(0);
  });
});
