import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { scriptedServer } from '../helpers/lying-nodes.js';
import { closeAllServers } from '../helpers/loopback.js';
import { closePools, createPool } from '../helpers/pools.js';

/**
 * The read cache against Solana nodes over real loopback sockets (time on a fake clock, so
 * TTLs are exact): what each node received is what the cache saved or did not.
 */

afterEach(async () => {
  await closePools();
  await closeAllServers();
});

const block = (slot: unknown, blockhash = `hash-${String(slot)}`) => ({ blockHeight: slot, blockhash, parentSlot: Number(slot) - 1, transactions: [] });

describe('read cache on loopback Solana nodes', () => {
  it('never keeps a confirmed getBlock past its TTL; keeps a finalized one for good', async () => {
    const clock = createFakeClock();
    const node = await scriptedServer(clock, (method, params) => (method === 'getBlock' ? block(params[0]) : undefined));
    const pool = createPool({ endpoints: [{ id: 'node', url: node.url }], chain: 'solana', clock, random: createSeededRandom(1), health: false, cache: { ttl: { unfinalized: 2_000 } } });
    const read = (commitment: string) => pool.request('getBlock', [7, { commitment }]);
    const confirmed = () => node.received.filter((r) => JSON.stringify(r.params).includes('confirmed')).length;
    const finalized = () => node.received.filter((r) => JSON.stringify(r.params).includes('"finalized"')).length;
    await expect(read('confirmed')).resolves.toEqual(block(7));
    await read('finalized');
    await clock.advance(1_999);
    await read('confirmed');
    await read('finalized');
    expect([confirmed(), finalized()]).toEqual([1, 1]);
    await clock.advance(1); // the TTL is up: the confirmed block is asked again
    await read('confirmed');
    await clock.advance(3_600_000);
    await read('finalized');
    await read('confirmed');
    expect([confirmed(), finalized()]).toEqual([3, 1]);
  });

  it("with verify: 'two-operators', never keeps the wrong finalized block a lying node gave once", async () => {
    const clock = createFakeClock();
    let lies = 1;
    const liar = await scriptedServer(clock, (method, params) => (method === 'getBlock' ? block(params[0], lies-- > 0 ? 'forged' : undefined) : undefined));
    const honest = await scriptedServer(clock, (method, params) => (method === 'getBlock' ? block(params[0]) : undefined));
    const pool = createPool({
      endpoints: [
        { id: 'liar', url: liar.url, operator: 'one', tier: 0 },
        { id: 'honest', url: honest.url, operator: 'two', tier: 1 },
      ],
      chain: 'solana',
      clock,
      random: createSeededRandom(1),
      health: false,
      hedge: false,
      cache: { verify: 'two-operators' },
    });
    const read = () => pool.request('getBlock', [9, { commitment: 'finalized' }]);
    // The second operator is asked after the caller has its answer, over a real socket: wait for it (bounded).
    const settled = async (done: () => boolean) => {
      for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    await expect(read()).resolves.toEqual(block(9, 'forged')); // nobody could tell yet: the caller gets it, the cache does not keep it
    await settled(() => honest.count('getBlock') === 1);
    await settled(() => pool.snapshot().cache?.verifyMismatches === 1);
    expect(pool.snapshot().cache).toMatchObject({ entries: 0, verifyMismatches: 1 });
    await expect(read()).resolves.toEqual(block(9)); // asked again; the honest operator agrees this time: kept
    await settled(() => pool.snapshot().cache?.entries === 1);
    for (let i = 0; i < 5; i++) await expect(read()).resolves.toEqual(block(9));
    expect([liar.count('getBlock'), honest.count('getBlock')]).toEqual([2, 2]);
  });
});
