import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom, HttpTransportPool, type HttpTransportPoolOptions } from '../../src/index.js';
import { createSolanaClient } from '../../src/solana/index.js';
import { createFixtureServer, resultFixture, type Fixture, type FixtureServer } from '../../src/testing/index.js';
import type { GapItem } from '../../src/subscriptions/types.js';
import { describe as describeItems, readUntil, until } from './helpers.js';

/** Solana fixture nodes over real loopback sockets: `a` (tier 0) and `b` (tier 1), the same fixtures on both. */
const servers: FixtureServer[] = [];
const pools: HttpTransportPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function primaryAndBackup(fixtures: Fixture[], subscriptions: HttpTransportPoolOptions['subscriptions'] = {}) {
  const [a, b] = await Promise.all([0, 1].map(() => createFixtureServer({ fixtures, websocket: { slotIntervalMs: 0 } })));
  servers.push(a!, b!);
  const pool = new HttpTransportPool({
    endpoints: [
      { id: 'a', url: a!.url, wsUrl: a!.wsUrl!, tier: 0 },
      { id: 'b', url: b!.url, wsUrl: b!.wsUrl!, tier: 1 },
    ],
    random: createSeededRandom(3),
    subscriptions: { initialBackoffMs: 20, maxBackoffMs: 100, ...subscriptions },
  });
  pools.push(pool);
  return { a: a!, b: b!, pool };
}

const ACCOUNT = 'SysvarC1ock11111111111111111111111111111111';
const PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const OWNER = '11111111111111111111111111111111';
const account = (lamports: number, data: string) => ({ lamports, owner: OWNER, data: [data, 'base64'], executable: false, rentEpoch: 0, space: 4 });
const changed = (slot: number, lamports: number, data: string) => ({ context: { slot }, value: account(lamports, data) });
const requestsOf = (servers: readonly FixtureServer[], method: string) => servers.flatMap((s) => s.requests.filter((r) => r.method === method));

describe('account and program streams after a rebind', () => {
  const stateNow = resultFixture('solana', 'getAccountInfo', [ACCOUNT, { commitment: 'confirmed', encoding: 'base64', minContextSlot: 100 }], changed(120, 7, 'AgAAAA=='));

  it('an account changed while the socket was down arrives as a `resync` item with the new state, read at least at the last delivered slot', async () => {
    const { a, b, pool } = await primaryAndBackup([stateNow]);
    const sub = await createSolanaClient(pool).onAccountChange(ACCOUNT, { commitment: 'confirmed' });
    a.ws!.notify('accountSubscribe', changed(100, 5, 'AQAAAA=='));
    await readUntil(sub, (i) => i.kind === 'notification');
    a.ws!.drop();
    const items = await readUntil(sub, (i) => i.kind === 'resync');
    expect(items.map((i) => i.kind), describeItems(items)).toEqual(['rebind', 'resync']);
    expect(items[1]).toMatchObject({ kind: 'resync', values: [{ slot: 120n, account: { lamports: 7n } }] });
    expect(requestsOf([a, b], 'getAccountInfo').map((r) => r.params)).toEqual([[ACCOUNT, { commitment: 'confirmed', encoding: 'base64', minContextSlot: 100 }]]);
    // Live again: a change older than the state read is dropped, a newer one delivered.
    await until(() => b.ws!.subscriptions('accountSubscribe') === 1, 5_000, 'resubscribed on b');
    b.ws!.notify('accountSubscribe', changed(110, 6, 'AQAAAA=='));
    b.ws!.notify('accountSubscribe', changed(130, 8, 'AwAAAA=='));
    const live = await readUntil(sub, (i) => i.kind === 'notification');
    expect(live).toMatchObject([{ kind: 'notification', value: { slot: 130n, account: { lamports: 8n } } }]);
    await sub.close();
  });

  it('a program stream gets one `resync` item with every matching account now, in the notifications shape', async () => {
    const accounts = { context: { slot: 90 }, value: [{ pubkey: ACCOUNT, account: account(1, 'AQAAAA==') }, { pubkey: OWNER, account: account(2, 'AgAAAA==') }] };
    const { a, b, pool } = await primaryAndBackup([resultFixture('solana', 'getProgramAccounts', [PROGRAM], accounts)]);
    const sub = await createSolanaClient(pool).onProgramAccountChange(PROGRAM, { filters: [{ dataSize: 4 }] });
    a.ws!.drop();
    const items = await readUntil(sub, (i) => i.kind === 'resync');
    expect(items[1]).toMatchObject({
      kind: 'resync',
      values: [
        { slot: 90n, pubkey: ACCOUNT, account: { lamports: 1n } },
        { slot: 90n, pubkey: OWNER, account: { lamports: 2n } },
      ],
    });
    // Nothing delivered before: no slot floor; the subscription's filters and encoding, with the context asked for.
    expect(requestsOf([a, b], 'getProgramAccounts').map((r) => r.params)).toEqual([[PROGRAM, { encoding: 'base64', filters: [{ dataSize: 4 }], withContext: true }]]);
    await sub.close();
  });

  it('backfill: false: the rebind item only, nothing read over HTTP', async () => {
    const { a, b, pool } = await primaryAndBackup([stateNow], { backfill: false });
    const sub = await pool.subscribe('accountSubscribe', [ACCOUNT, { commitment: 'confirmed', encoding: 'base64' }]);
    a.ws!.drop();
    await readUntil(sub, (i) => i.kind === 'rebind');
    await until(() => b.ws!.subscriptions('accountSubscribe') === 1, 5_000, 'resubscribed on b');
    b.ws!.notify('accountSubscribe', changed(130, 8, 'AwAAAA=='));
    const next = await readUntil(sub, () => true);
    expect(next.map((i) => i.kind)).toEqual(['notification']);
    expect(requestsOf([a, b], 'getAccountInfo')).toEqual([]);
  });
});

describe('bad backfill option', () => {
  it('a subscribe call with a bad backfill is INVALID_INPUT, and no socket is opened', async () => {
    const { a, b, pool } = await primaryAndBackup([]);
    await expect(pool.subscribe('slotSubscribe', [], { backfill: { maxMs: -1 } })).rejects.toMatchObject({ code: 'INVALID_INPUT', context: { field: 'backfill' } });
    await expect(pool.subscribe('slotSubscribe', [], { backfill: 'yes' as never })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(a.ws!.upgrades + b.ws!.upgrades).toBe(0);
  });
});

describe('slot streams after a rebind', () => {
  it('the slots missed are one gap item; its blocks() lists the slots in it that hold a block (getBlocks through the pool)', async () => {
    const { a, b, pool } = await primaryAndBackup([resultFixture('solana', 'getBlocks', [1003, 1005], [1003, 1005])]);
    const sub = await pool.subscribe('slotSubscribe', []);
    a.ws!.tickSlot(2);
    await readUntil(sub, (i) => i.kind === 'notification');
    a.ws!.drop();
    await until(() => b.ws!.subscriptions('slotSubscribe') === 1, 5_000, 'resubscribed on b');
    b.ws!.tickSlot(6); // 1006: 1003–1005 were never delivered
    const items = await readUntil(sub, (i) => i.kind === 'notification');
    expect(items.map((i) => i.kind)).toEqual(['rebind', 'gap', 'notification']);
    const gap = items[1] as GapItem;
    expect(gap).toMatchObject({ from: 1003n, to: 1005n });
    expect(gap.reason).toBeUndefined();
    expect(requestsOf([a, b], 'getBlocks')).toEqual([]);
    expect(await gap.blocks!()).toEqual([1003n, 1005n]);
    expect(requestsOf([a, b], 'getBlocks').map((r) => r.params)).toEqual([[1003, 1005]]);
  });
});
