import { describe, expect, it } from 'vitest';
import { isTransportError } from '../../src/errors/transport-error.js';
import type { ExecuteRequest } from '../../src/http/executor.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { ok, type Script } from '../helpers/scripted-executor.js';
import { createTestPool, endpoint } from '../pool/pool-fixtures.js';

/** The read cache in a pool, observed at the (scripted) node: how many requests it receives and what callers get. */

const hash = (n: number, fork = 0) => `0x${n.toString(16).padStart(2, '0').repeat(31)}${fork.toString(16).padStart(2, '0')}`;
const block = (n: number, fork = 0) => ({ number: `0x${n.toString(16)}`, hash: hash(n, fork), parentHash: hash(n - 1, fork), transactions: [] as string[] });

/** A node answering per method: `answers[method](params)` (a function of the params). */
function node(answers: Record<string, (params: unknown[]) => unknown>): Script {
  return (request: ExecuteRequest, id) => {
    const { method, params } = JSON.parse(request.body) as { method: string; params: unknown[] };
    const answer = answers[method];
    return ok(answer === undefined ? null : answer(params), id);
  };
}

/** An EVM node whose finalized head is `finalized()` and whose blocks are on fork `fork()`. */
function evmNode(finalized: () => number, fork: () => number = () => 0, tip: () => number = () => 100) {
  return node({
    eth_chainId: () => '0x1',
    eth_getBlockByNumber: ([ref]) => (ref === 'finalized' ? block(finalized()) : ref === 'latest' ? block(tip(), fork()) : block(Number.parseInt(ref as string, 16), fork())),
    eth_getBlockReceipts: ([ref]) => [{ blockNumber: ref, blockHash: hash(Number.parseInt(ref as string, 16), fork()), status: '0x1' }],
  });
}

const count = (t: ReturnType<typeof createTestPool>, method: string, param?: string) =>
  t.executor.received.filter((r) => r.method === method && (param === undefined || r.body.includes(param))).length;

describe('read cache', () => {
  it('answers an immutable read once from the node, then from memory', async () => {
    const t = createTestPool([endpoint('a')], { expectedChain: { chainId: 1 } });
    t.executor.script('a', evmNode(() => 0));
    for (let i = 0; i < 5; i++) await expect(t.pool.request('eth_chainId', [])).resolves.toBe('0x1');
    // The chain guard's own check, then the first call.
    expect(count(t, 'eth_chainId')).toBe(2);
  });

  it('keeps no eth_chainId while the chain id is not checked on every endpoint (it is one node\'s fact)', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b')]);
    t.executor.script('a', evmNode(() => 0));
    t.executor.script('b', node({ eth_chainId: () => '0x2' }));
    const answers = new Set<unknown>();
    for (let i = 0; i < 4; i++) answers.add(await t.pool.request('eth_chainId', []));
    expect([count(t, 'eth_chainId'), [...answers].sort()]).toEqual([4, ['0x1', '0x2']]);
  });

  it('is absent with cache: false: every read reaches the node', async () => {
    const t = createTestPool([endpoint('a')], { expectedChain: { chainId: 1 }, cache: false });
    t.executor.script('a', evmNode(() => 0));
    for (let i = 0; i < 5; i++) await t.pool.request('eth_chainId', []);
    expect(count(t, 'eth_chainId')).toBe(6);
  });

  it('hands every caller its own copy: mutating an answer changes no later answer', async () => {
    const t = createTestPool([endpoint('a')]);
    const answer = { blockHeight: 5, transactions: [{ slot: 5 }] };
    t.executor.script('a', node({ getBlock: () => answer }));
    const first = (await t.pool.request('getBlock', [5, { commitment: 'finalized' }])) as typeof answer;
    first.transactions.push({ slot: 666 });
    const second = (await t.pool.request('getBlock', [5, { commitment: 'finalized' }])) as typeof answer;
    second.blockHeight = 666;
    const third = await t.pool.request('getBlock', [5, { commitment: 'finalized' }]);
    expect([second.transactions, third]).toEqual([[{ slot: 5 }], answer]);
    expect(count(t, 'getBlock')).toBe(1);
  });

  it('keeps a block by number only once the answering endpoint says its finalized head covers it', async () => {
    const t = createTestPool([endpoint('a')], { chain: 'evm' });
    let finalized = 8;
    t.executor.script('a', evmNode(() => finalized));
    const read = () => t.pool.request('eth_getBlockByNumber', ['0x10', false]);
    // Finalized at 8: block 16 is not proven; the cache asks where finality stands (once per 12 s).
    for (let i = 0; i < 3; i++) await read();
    expect([count(t, 'eth_getBlockByNumber', '"0x10"'), count(t, 'eth_getBlockByNumber', 'finalized')]).toEqual([3, 1]);
    finalized = 20;
    await t.clock.advance(12_000);
    await read(); // still unproven when it is judged; it asks again
    await new Promise((resolve) => setImmediate(resolve)); // the finality answer arrives
    await read(); // proven now: kept
    for (let i = 0; i < 3; i++) await expect(read()).resolves.toEqual(block(16));
    expect([count(t, 'eth_getBlockByNumber', '"0x10"'), count(t, 'eth_getBlockByNumber', 'finalized')]).toEqual([5, 2]);
  });

  it("learns finality from the caller's own finalized block read, by default: by-number reads at or below it are kept at once", async () => {
    const t = createTestPool([endpoint('a')]);
    t.executor.script('a', evmNode(() => 20));
    await t.pool.request('eth_getBlockByNumber', ['finalized', false]);
    for (let i = 0; i < 3; i++) await expect(t.pool.request('eth_getBlockReceipts', ['0x10'])).resolves.toEqual([{ blockNumber: '0x10', blockHash: hash(16), status: '0x1' }]);
    for (let i = 0; i < 2; i++) await t.pool.request('eth_getBlockReceipts', ['0x15']); // above it: asked each time
    expect([count(t, 'eth_getBlockReceipts', '"0x10"'), count(t, 'eth_getBlockReceipts', '"0x15"'), count(t, 'eth_getBlockByNumber')]).toEqual([1, 2, 1]);
  });

  it('keeps a Solana getBlock at confirmed for the unfinalized TTL only, and one at finalized for good', async () => {
    const t = createTestPool([endpoint('a')], { cache: { ttl: { unfinalized: 2_000 } } });
    t.executor.script('a', node({ getBlock: ([slot]) => ({ blockHeight: slot }) }));
    const confirmed = () => t.pool.request('getBlock', [7, { commitment: 'confirmed' }]);
    const finalized = () => t.pool.request('getBlock', [7, { commitment: 'finalized' }]);
    await confirmed();
    await finalized();
    await t.clock.advance(1_999);
    await confirmed();
    await finalized();
    expect(count(t, 'getBlock', 'confirmed')).toBe(1);
    await t.clock.advance(1);
    await confirmed();
    await t.clock.advance(3_600_000);
    await finalized();
    expect([count(t, 'getBlock', 'confirmed'), count(t, 'getBlock', 'finalized')]).toEqual([2, 1]);
  });

  it('never keeps a confirmed getBlock by default (finalized entries only)', async () => {
    const t = createTestPool([endpoint('a')]);
    t.executor.script('a', node({ getBlock: () => ({ blockHeight: 7 }) }));
    for (let i = 0; i < 3; i++) await t.pool.request('getBlock', [7, { commitment: 'confirmed' }]);
    expect(count(t, 'getBlock')).toBe(3);
  });

  it('drops every unfinalized entry above the fork at once when another hash shows up at a number', async () => {
    const t = createTestPool([endpoint('a')], { chain: 'evm', cache: { ttl: { unfinalized: 600_000 } } });
    let fork = 0;
    t.executor.script('a', evmNode(() => 5, () => fork, () => 17));
    const events: unknown[] = [];
    t.pool.on('cache', (event) => events.push(event));
    const reads = async () => [await t.pool.request('eth_getBlockByNumber', ['0x10', false]), await t.pool.request('eth_getBlockReceipts', ['0x10'])];
    await t.pool.request('eth_getBlockByNumber', ['finalized', false]); // the caller's own finalized read: finality is at 5
    await reads();
    await expect(reads()).resolves.toEqual([block(16, 0), [{ blockNumber: '0x10', blockHash: hash(16, 0), status: '0x1' }]]);
    expect(count(t, 'eth_getBlockByNumber', '"0x10"') + count(t, 'eth_getBlockReceipts')).toBe(2);
    fork = 1; // the node reorganized: blocks above 5 have other hashes
    await t.pool.request('eth_getBlockByNumber', ['latest', false]); // the tip's parent contradicts block 16's hash
    await expect(reads()).resolves.toEqual([block(16, 1), [{ blockNumber: '0x10', blockHash: hash(16, 1), status: '0x1' }]]);
    expect(count(t, 'eth_getBlockByNumber', '"0x10"') + count(t, 'eth_getBlockReceipts')).toBe(4);
    expect(events).toEqual([{ atMs: 0, type: 'reorg-eviction', forkAt: 16, fromBlock: 6, dropped: 2 }]);
  });

  it("with verify: 'two-operators', a lying node's finalized answer is never kept", async () => {
    const t = createTestPool([endpoint('a', { operator: 'one' }), endpoint('b', { operator: 'two', tier: 1 })], { cache: { verify: 'two-operators' } });
    let lies = 1;
    t.executor.script('a', node({ getBlock: () => ({ blockHeight: lies-- > 0 ? 666 : 7 }) }));
    t.executor.script('b', node({ getBlock: () => ({ blockHeight: 7 }) }));
    const read = () => t.pool.request('getBlock', [7, { commitment: 'finalized' }]);
    await expect(read()).resolves.toEqual({ blockHeight: 666 }); // the lie reaches this caller: nobody could tell yet
    await new Promise((resolve) => setImmediate(resolve));
    await expect(read()).resolves.toEqual({ blockHeight: 7 }); // not from the cache: the node was asked again
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 3; i++) await expect(read()).resolves.toEqual({ blockHeight: 7 });
    expect([t.executor.countFor('a', 'getBlock'), t.executor.countFor('b', 'getBlock')]).toEqual([2, 2]);
  });

  it('serves but does not keep an answer over maxEntryBytes (10 MiB)', async () => {
    const t = createTestPool([endpoint('a')]);
    const big = 'x'.repeat(10 * 1024 * 1024);
    t.executor.script('a', node({ getBlock: () => ({ big }) }));
    for (let i = 0; i < 2; i++) expect(((await t.pool.request('getBlock', [7])) as { big: string }).big.length).toBe(big.length);
    expect(count(t, 'getBlock')).toBe(2);
  });

  it.each([{ maxBytes: 0 }, { maxEntries: 1.5 }, { ttl: { realtime: -1 } }, { verify: 'three' }, { fleet: { ttl: 0 } }, { fleet: true }, { fleet: { other: 1 } }, { other: 1 }, true])('rejects cache %j with INVALID_CONFIG', (cache) => {
    const error: unknown = (() => {
      try {
        new HttpTransportPool({ endpoints: [endpoint('a')], cache: cache as never });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(isTransportError(error, 'INVALID_CONFIG')).toBe(true);
  });
});
