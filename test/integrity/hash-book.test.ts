import { afterEach, describe, expect, it } from 'vitest';
import { HashBook } from '../../src/integrity/hash-book.js';
import { createFixtureServer, type FixtureServer } from '../../src/testing/fixture-server.js';
import { resultFixture } from '../../src/testing/fixtures.js';
import { createFakeClock, createSeededRandom } from '../../src/testing/index.js';
import type { FailureEvent } from '../../src/api/events.js';
import { closePools, createPool } from '../helpers/pools.js';

/** Settled block hashes: two operators beyond the reorg window, then a contradicting block is a lie. */

const hash = (digit: string) => `0x${digit.repeat(64)}`;
const servers: FixtureServer[] = [];

afterEach(async () => {
  await closePools();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('the hash book', () => {
  it('settles a hash only when a second operator agrees, beyond the reorg window', () => {
    const book = new HashBook(64);
    book.observe(100n, hash('a'), 'a.example', 1_000n);
    expect(book.hashAt(100n)).toBeUndefined();
    book.observe(100n, hash('a'), 'a.example', 1_000n);
    expect(book.hashAt(100n)).toBeUndefined();
    book.observe(100n, hash('a'), 'b.example', 1_000n);
    expect(book.hashAt(100n)).toBe(hash('a'));
  });

  it('settles nothing inside the reorg window, without a tip, or when two operators disagree', () => {
    const book = new HashBook(64);
    for (const operator of ['a', 'b']) book.observe(950n, hash('a'), operator, 1_000n);
    expect(book.hashAt(950n)).toBeUndefined();
    for (const operator of ['a', 'b']) book.observe(100n, hash('a'), operator, undefined);
    expect(book.hashAt(100n)).toBeUndefined();
    book.observe(200n, hash('a'), 'liar', 1_000n);
    book.observe(200n, hash('b'), 'b', 1_000n);
    // The disagreement cleared both answers: nothing settled, and the liar's hash is gone.
    expect(book.hashAt(200n)).toBeUndefined();
    book.observe(200n, hash('b'), 'c', 1_000n);
    book.observe(200n, hash('b'), 'b', 1_000n);
    expect(book.hashAt(200n)).toBe(hash('b'));
  });
});

describe('a block that contradicts the settled hash (settled-hash)', () => {
  it('is asked of an honest node once two operators settled the number beyond the reorg window', async () => {
    const clock = createFakeClock();
    const params = ['0x64', false];
    const truth = { number: '0x64', hash: hash('a'), parentHash: hash('0') };
    const honestNode = () => createFixtureServer({ fixtures: [resultFixture('evm', 'eth_getBlockByNumber', params, truth)], head: { start: 1_000 }, clock });
    const liar = await createFixtureServer({ fixtures: [resultFixture('evm', 'eth_getBlockByNumber', params, { ...truth, hash: hash('b') })], head: { start: 1_000 }, clock });
    const a = await honestNode();
    const b = await honestNode();
    servers.push(liar, a, b);
    const pool = createPool({
      endpoints: [
        { id: 'liar', url: liar.url, operator: 'liar.example', tier: 0 },
        { id: 'a', url: a.url, operator: 'a.example', tier: 1 },
        { id: 'b', url: b.url, operator: 'b.example', tier: 1 },
      ],
      chain: 'evm',
      clock,
      random: createSeededRandom(28),
    });
    const failures: FailureEvent[] = [];
    pool.on('failure', (event) => failures.push(event));
    // Heads from every endpoint (the tip: 1 000), then block 100 as two operators give it.
    for (const endpoint of ['liar', 'a', 'b']) await pool.request('eth_blockNumber', [], { endpoint });
    for (const endpoint of ['a', 'b']) await pool.request('eth_getBlockByNumber', params, { endpoint, coalesce: false });
    await expect(pool.request('eth_getBlockByNumber', params)).resolves.toEqual(truth);
    expect(liar.count('eth_getBlockByNumber')).toBe(1);
    expect(failures).toEqual([expect.objectContaining({ endpointId: 'liar', cause: 'invalid-response', detail: 'integrity', check: 'settled-hash' })]);
  });
});
