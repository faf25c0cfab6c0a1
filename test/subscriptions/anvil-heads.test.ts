import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom, HttpTransportPool, type HttpTransportPoolOptions } from '../../src/index.js';
import { createEvmClient } from '../../src/evm/index.js';
import type { EvmHead } from '../../src/evm/index.js';
import type { SubscriptionItem } from '../../src/subscriptions/types.js';
import { startAnvil, type AnvilInstance } from '../helpers/anvil.js';
import { readUntil } from './helpers.js';

/**
 * Real nodes: two anvils with the same genesis (`--timestamp`), mined with `evm_mine` at the
 * same timestamps so they hold the same chain; anvil serves WebSocket on its HTTP port
 * (reached here through `subscriptions.deriveWsUrl`).
 */
const anvils: AnvilInstance[] = [];
const pools: HttpTransportPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  await Promise.all(anvils.splice(0).map((a) => a.stop()));
});

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return ((await response.json()) as { result: unknown }).result;
}
/** Mines block `n` at a timestamp fixed by `n`: two anvils mining the same numbers hold the same blocks. */
const mine = (anvil: AnvilInstance, n: number) => rpc(anvil.url, 'evm_mine', [1_700_000_000 + n * 12]);

async function setUp(subscriptions: HttpTransportPoolOptions['subscriptions'] = {}) {
  const [a, b] = await Promise.all([startAnvil(), startAnvil()]);
  anvils.push(a, b);
  for (let n = 1; n <= 3; n++) await Promise.all([mine(a, n), mine(b, n)]);
  const pool = new HttpTransportPool({
    endpoints: [
      { id: 'a', url: a.url, tier: 0 },
      { id: 'b', url: b.url, tier: 1 },
    ],
    random: createSeededRandom(5),
    subscriptions: { deriveWsUrl: true, initialBackoffMs: 20, maxBackoffMs: 100, ...subscriptions },
  });
  pools.push(pool);
  return { a, b, pool };
}

const numbers = (items: readonly SubscriptionItem<EvmHead>[]) => items.flatMap((i) => (i.kind === 'notification' ? [Number(i.value.number)] : []));

describe('newHeads on two anvils', () => {
  it('kill the one in use, backfill off: the iterator goes on from the other, with a rebind, no repeated block number, and a gap for the blocks missed', async () => {
    const { a, b, pool } = await setUp({ backfill: false });
    const heads = await createEvmClient(pool).onNewHeads();
    await Promise.all([mine(a, 4), mine(b, 4)]);
    await Promise.all([mine(a, 5), mine(b, 5)]);
    const before = await readUntil(heads, (_i, all) => all.length === 2);
    expect(numbers(before)).toEqual([4, 5]);
    expect(before.every((i) => i.endpointId === 'a')).toBe(true);
    // b moves on alone; then the node in use dies.
    for (let n = 6; n <= 8; n++) await mine(b, n);
    await a.stop();
    const rebind = await readUntil(heads, (i) => i.kind === 'rebind');
    expect(rebind.at(-1)).toMatchObject({ kind: 'rebind', fromEndpointId: 'a', endpointId: 'b' });
    await mine(b, 9);
    const after = await readUntil(heads, (i) => i.kind === 'notification');
    expect(after.map((i) => i.kind)).toEqual(['gap', 'notification']);
    expect(after[0]).toMatchObject({ from: 6n, to: 8n, endpointId: 'b' });
    expect(numbers(after)).toEqual([9]);
    const block9 = (await rpc(b.url, 'eth_getBlockByNumber', ['0x9', false])) as { hash: string };
    expect((after[1] as { value: EvmHead }).value.hash).toBe(block9.hash);
    await heads.close();
  }, 30_000);

  it('kill the one in use: the blocks it missed are read over HTTP from the other and delivered in order before the live ones', async () => {
    const { a, b, pool } = await setUp();
    const heads = await createEvmClient(pool).onNewHeads();
    for (let n = 4; n <= 5; n++) await Promise.all([mine(a, n), mine(b, n)]);
    await readUntil(heads, (_i, all) => all.length === 2);
    for (let n = 6; n <= 8; n++) await mine(b, n);
    await a.stop();
    await mine(b, 9);
    const after = await readUntil(heads, (i) => i.kind === 'notification' && i.value.number === 9n);
    expect(after.map((i) => i.kind)).toEqual(['rebind', 'notification', 'notification', 'notification', 'notification']);
    expect(numbers(after)).toEqual([6, 7, 8, 9]);
    expect(after.slice(1, 4).every((i) => i.kind === 'notification' && i.backfilled === true && i.reorged === undefined)).toBe(true);
    for (const item of after.slice(1)) {
      const block = (await rpc(b.url, 'eth_getBlockByNumber', [`0x${(item as { value: EvmHead }).value.number.toString(16)}`, false])) as { hash: string };
      expect((item as { value: EvmHead }).value.hash).toBe(block.hash);
    }
    await heads.close();
  }, 30_000);

  it('a node behind the one that died: blocks already delivered are not delivered again', async () => {
    const { a, b, pool } = await setUp();
    const heads = await pool.subscribe<{ number: string }>('eth_subscribe', ['newHeads']);
    for (let n = 4; n <= 6; n++) await mine(a, n);
    await readUntil(heads, (_i, all) => all.length === 3);
    await a.stop();
    await readUntil(heads, (i) => i.kind === 'rebind');
    // b catches up through 4–6 (the same blocks a had), then goes on.
    for (let n = 4; n <= 7; n++) await mine(b, n);
    const after = await readUntil(heads, (i) => i.kind === 'notification');
    expect(after.map((i) => (i.kind === 'notification' ? Number(BigInt(i.value.number)) : i.kind))).toEqual([7]);
  }, 30_000);
});
