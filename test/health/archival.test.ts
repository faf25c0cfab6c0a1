/**
 * Archival capability learned from answers: a pruned node (fixture server over loopback)
 * answers a historical eth_getBalance with geth's "missing trie node"; only a success provably
 * `historicalDepth` below the tip (Solana: more than an epoch old) teaches "archival".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { createFixtureServer, type FixtureServer } from '../../src/testing/fixture-server.js';
import { resultFixture, type Fixture } from '../../src/testing/fixtures.js';

const ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const OLD_BLOCK = '0x10';
const servers: FixtureServer[] = [];
const pools: HttpTransportPool[] = [];

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const missingTrieNode: Fixture = {
  name: 'geth-missing-trie-node',
  source: 'geth answer for state it pruned',
  chain: 'evm',
  request: { method: 'eth_getBalance', params: [ADDRESS, OLD_BLOCK] },
  response: {
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'missing trie node 3e2f7c59ab (path ) state 0x3e2f7c59ab is not available' } }),
  },
};

const historicalOn = (server: FixtureServer) => server.requests.filter((r) => r.method === 'eth_getBalance' && (r.params as unknown[])[1] === OLD_BLOCK).length;
const latestOn = (server: FixtureServer) => server.requests.filter((r) => r.method === 'eth_getBalance' && (r.params as unknown[])[1] === 'latest').length;

/** A pool over two EVM fixture nodes (`first` first in the list), on `clock`, closed after the test. */
function pairPool(clock: ReturnType<typeof createFakeClock>, first: { id: string; url: string; archival?: boolean }, second: { id: string; url: string }): HttpTransportPool {
  const pool = new HttpTransportPool({ endpoints: [first, second], chain: 'evm', clock, random: createSeededRandom(2), concentration: { maxOperatorShare: 0 }, cache: false });
  pools.push(pool);
  return pool;
}

describe('archival capability, learned', () => {
  it('sends a pruned node no second historical read in the next minute, while its latest reads continue, with no penalty', async () => {
    const clock = createFakeClock();
    const balance = resultFixture('evm', 'eth_getBalance', [ADDRESS, 'latest'], '0x1');
    const pruned = await createFixtureServer({ fixtures: [missingTrieNode, balance], clock, head: { start: 5_000 } });
    const archive = await createFixtureServer({ fixtures: [balance], clock, head: { start: 5_000 } });
    servers.push(pruned, archive);
    const pool = pairPool(clock, { id: 'pruned', url: pruned.url }, { id: 'archive', url: archive.url });
    for (let i = 0; i < 4; i++) await pool.request('eth_blockNumber');
    // Until the pruned node has had one historical read (rotation decides which node gets the first).
    while (historicalOn(pruned) === 0) await expect(pool.request('eth_getBalance', [ADDRESS, OLD_BLOCK])).resolves.toBe('0x1');
    expect(pool.snapshot().endpoints.map((e) => e.archival)).toEqual([false, true]);
    const scoreAfterLesson = pool.snapshot().endpoints[0]!.reputation!.score;
    const latestBefore = latestOn(pruned);
    for (let second = 0; second < 60; second += 5) {
      await expect(pool.request('eth_getBalance', [ADDRESS, OLD_BLOCK])).resolves.toBe('0x1');
      await expect(pool.request('eth_getBalance', [ADDRESS, 'latest'])).resolves.toBe('0x1');
      await expect(pool.request('eth_getBalance', [ADDRESS, 'latest'])).resolves.toBe('0x1');
      await clock.advance(5_000);
    }
    expect(historicalOn(pruned)).toBe(1);
    expect(latestOn(pruned) - latestBefore).toBeGreaterThanOrEqual(8);
    expect(pool.snapshot().endpoints[0]!.reputation!.score).toBeGreaterThanOrEqual(scoreAfterLesson);
    expect(pool.snapshot().endpoints[0]!.reputation!.score).toBeGreaterThanOrEqual(80);
  });

  it('never sends a historical read to a node declared archival: false; a success on latest teaches nothing', async () => {
    const clock = createFakeClock();
    const balance = resultFixture('evm', 'eth_getBalance', [ADDRESS, OLD_BLOCK], '0x2');
    const declaredPruned = await createFixtureServer({ fixtures: [balance], clock, head: { start: 5_000 } });
    const unknown = await createFixtureServer({ fixtures: [balance], clock, head: { start: 5_000 } });
    servers.push(declaredPruned, unknown);
    const pool = pairPool(clock, { id: 'pruned', url: declaredPruned.url, archival: false }, { id: 'unknown', url: unknown.url });
    for (let i = 0; i < 4; i++) await pool.request('eth_blockNumber');
    for (let i = 0; i < 4; i++) await pool.request('eth_getBalance', [ADDRESS, 'latest']).catch(() => undefined);
    expect(pool.snapshot().endpoints.map((e) => e.archival)).toEqual([false, 'unknown']);
    for (let i = 0; i < 10; i++) await expect(pool.request('eth_getBalance', [ADDRESS, OLD_BLOCK])).resolves.toBe('0x2');
    expect(historicalOn(declaredPruned)).toBe(0);
    expect(historicalOn(unknown)).toBe(10);
    expect(pool.snapshot().endpoints.map((e) => e.archival)).toEqual([false, true]);
  });

  it('learns "archival" from a provably old read only: a success by block hash, at latest, at a recent block or at earliest before any tip is known teaches nothing', async () => {
    const clock = createFakeClock();
    const hash = `0x${'3e'.repeat(32)}`;
    const recent = `0x${(5_000 - 10).toString(16)}`;
    const byHash = resultFixture('evm', 'eth_getBalance', [ADDRESS, hash], '0x3');
    const nodes = await Promise.all([0, 1].map(() => createFixtureServer({ fixtures: [byHash], clock, head: { start: 5_000 } })));
    servers.push(...nodes);
    const pool = pairPool(clock, { id: 'a', url: nodes[0]!.url }, { id: 'b', url: nodes[1]!.url });
    // Before any tip is known, not even `earliest` is provably old (the chain may be young).
    for (let i = 0; i < 2; i++) await expect(pool.request('eth_getBalance', [ADDRESS, 'earliest'])).resolves.toBe('0x3');
    expect(pool.snapshot().endpoints.map((e) => e.archival)).toEqual(['unknown', 'unknown']);
    for (let i = 0; i < 4; i++) await pool.request('eth_blockNumber');
    // Both nodes answer each form (plain rotation over two nodes), so either one would learn.
    const reads: unknown[][] = [[ADDRESS, hash], [ADDRESS, { blockHash: hash }], [ADDRESS, { blockHash: hash, requireCanonical: true }], [ADDRESS, 'latest'], [ADDRESS, recent]];
    for (const params of reads) for (let i = 0; i < 4; i++) await expect(pool.request('eth_getBalance', params)).resolves.toBe('0x3');
    const formsOn = (server: FixtureServer) => reads.map((params) => server.requests.filter((r) => JSON.stringify(r.params) === JSON.stringify(params)).length);
    for (const server of nodes) expect(formsOn(server)).toEqual([2, 2, 2, 2, 2]);
    expect(pool.snapshot().endpoints.map((e) => e.archival)).toEqual(['unknown', 'unknown']);
    // The same nodes, once read 128 blocks or more below the tip, are known archival.
    for (let i = 0; i < 2; i++) await expect(pool.request('eth_getBalance', [ADDRESS, OLD_BLOCK])).resolves.toBe('0x3');
    expect(pool.snapshot().endpoints.map((e) => e.archival)).toEqual([true, true]);
  });

  it('learns "archival" on Solana from a getBlock more than an epoch old only, not from getTransaction or a recent getBlock', async () => {
    const clock = createFakeClock();
    const TIP = 2_000_000;
    const block = { blockhash: 'x', parentSlot: 0, transactions: [] };
    const fixtures = [resultFixture('solana', 'getBlock', [TIP - 100], block), resultFixture('solana', 'getTransaction', ['sig'], { slot: TIP - 100 })];
    const nodes = await Promise.all([0, 1].map(() => createFixtureServer({ fixtures, clock, head: { start: TIP } })));
    servers.push(...nodes);
    const pool = new HttpTransportPool({ endpoints: nodes.map((n, i) => ({ id: `s${i}`, url: n.url })), chain: 'solana', clock, random: createSeededRandom(2), concentration: { maxOperatorShare: 0 }, cache: false });
    pools.push(pool);
    for (let i = 0; i < 4; i++) await pool.request('getSlot');
    for (let i = 0; i < 4; i++) await expect(pool.request('getBlock', [TIP - 100])).resolves.toEqual(block);
    for (let i = 0; i < 4; i++) await expect(pool.request('getTransaction', ['sig'])).resolves.toEqual({ slot: TIP - 100 });
    for (const node of nodes) expect([node.count('getBlock'), node.count('getTransaction')]).toEqual([2, 2]);
    expect(pool.snapshot().endpoints.map((e) => e.archival)).toEqual(['unknown', 'unknown']);
    for (let i = 0; i < 2; i++) await expect(pool.request('getBlock', [TIP - 500_000])).resolves.toEqual(block);
    expect(pool.snapshot().endpoints.map((e) => e.archival)).toEqual([true, true]);
  });
});
