import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createEvmClient } from '../../src/evm/client.js';
import { registerPrometheusMetrics } from '../../src/metrics/prometheus.js';
import { createSolanaClient } from '../../src/solana/client.js';
import { createFakeClock } from '../../src/testing/index.js';
import type { HttpTransportPoolOptions } from '../../src/config/types.js';
import { closeAllServers, type RpcServer } from '../helpers/loopback.js';
import { drive, scriptedServer, type NodeScript } from '../helpers/lying-nodes.js';
import { closePools, createPool, rejection } from '../helpers/pools.js';

/**
 * Issue 28 §2 at the pool's surface, over loopback: who may ask for consensus, what it costs
 * in requests, and how it composes with the method table, typed calls, sessions, the read
 * cache and the exporters.
 */

afterEach(async () => {
  await closePools();
  await closeAllServers();
});

const SOL_ADDRESS = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
const EVM_ADDRESS = '0x00000000000000000000000000000000000000aa';
const BLOCK_HASH = `0x${'ab'.repeat(32)}`;
const honest: NodeScript = (method) => {
  if (method === 'getBalance') return { context: { slot: 300 }, value: 5 };
  if (method === 'eth_getBalance') return '0x3e8';
  if (method === 'eth_getBlockByHash') return { number: '0x10', hash: BLOCK_HASH, parentHash: `0x${'cd'.repeat(32)}` };
  if (method === 'eth_sendRawTransaction') return '0x00';
  return undefined;
};

async function threeOperators(extra: Partial<HttpTransportPoolOptions> = {}, script: NodeScript = honest) {
  const clock = createFakeClock();
  const servers: RpcServer[] = [await scriptedServer(clock, script), await scriptedServer(clock, script), await scriptedServer(clock, script)];
  const pool = createPool({
    endpoints: servers.map((server, i) => ({ id: `node-${i}`, url: `${server.url}/SECRET-key-${i}`, operator: `op${i}.example` })),
    clock,
    ...extra,
  });
  const requests = (method: string) => servers.reduce((sum, server) => sum + server.count(method), 0);
  const askedBy = (method: string) => servers.map((server) => server.count(method));
  return { pool, servers, requests, askedBy };
}

/** Three operators, the first on tier 0: a call without restriction to an operator always goes there first. */
async function tieredOperators() {
  const clock = createFakeClock();
  const servers = [await scriptedServer(clock, honest), await scriptedServer(clock, honest), await scriptedServer(clock, honest)];
  const pool = createPool({ endpoints: servers.map((server, i) => ({ id: `t-${i}`, url: server.url, operator: `op${i}.example`, tier: i === 0 ? 0 : 1 })), clock });
  return { pool, askedBy: (method: string) => servers.map((server) => server.count(method)) };
}

describe('who may ask for consensus', () => {
  it('a send with consensus is INVALID_INPUT and nothing is sent', async () => {
    const { pool, requests } = await threeOperators();
    const error = await rejection(pool.request('eth_sendRawTransaction', ['0x02'], { consensus: { operators: 2 } }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.context).toEqual({ field: 'consensus' });
    expect(error.message).toContain('never sent to several nodes');
    expect(requests('eth_sendRawTransaction')).toBe(0);
  });

  it.each([
    ['a pinned call', { endpoint: 'node-0', consensus: { operators: 2 } }],
    ['operators 4', { consensus: { operators: 4 } }],
    ['no operators', { consensus: {} }],
  ])('%s is INVALID_INPUT and nothing is sent', async (_, options) => {
    const { pool, requests } = await threeOperators();
    const error = await rejection(pool.request('eth_getBalance', [EVM_ADDRESS, 'latest'], options as never));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.context).toEqual({ field: 'consensus' });
    expect(requests('eth_getBalance')).toBe(0);
  });

  it('the method table cannot give a send consensus (INVALID_CONFIG naming the field)', () => {
    expect(() => createPool({ endpoints: [{ url: 'http://127.0.0.1:1' }], methods: { eth_sendRawTransaction: { consensus: { operators: 2 } } } })).toThrow(
      /methods\.eth_sendRawTransaction\.consensus: consensus is for idempotent reads/,
    );
    expect(() => createPool({ endpoints: [{ url: 'http://127.0.0.1:1' }], methods: { eth_getBalance: { consensus: { operators: 5 } } } } as never)).toThrow(
      /methods\.eth_getBalance\.consensus\.operators: must be 2 or 3/,
    );
  });

  it('a method table entry with consensus alone keeps the built-in classification; one field alone keeps the other', () => {
    const pool = createPool({
      endpoints: [{ url: 'http://127.0.0.1:1' }],
      methods: { getBalance: { consensus: { operators: 2 } }, my_read: { retryClass: 'idempotent' }, eth_call: { kind: 'heavy' } },
    });
    expect(pool.classifyMethod('getBalance')).toEqual({ kind: 'read', retryClass: 'idempotent' });
    expect(pool.classifyMethod('my_read')).toEqual({ kind: 'read', retryClass: 'idempotent' });
    expect(pool.classifyMethod('eth_call')).toEqual({ kind: 'heavy', retryClass: 'idempotent' });
  });

  it('fewer operators than asked: CONSENSUS_FAILED too-few-operators, nothing sent', async () => {
    const { pool, requests } = await threeOperators();
    const two = createPool({ endpoints: [{ id: 'a', url: 'http://127.0.0.1:9/x', operator: 'same.example' }, { id: 'b', url: 'http://127.0.0.1:9/y', operator: 'same.example' }] });
    const error = await rejection(two.request('eth_getBalance', [EVM_ADDRESS, 'latest'], { consensus: { operators: 2 } }));
    expect(error.code).toBe('CONSENSUS_FAILED');
    expect(error.context).toEqual({ operators: 2, reason: 'too-few-operators', answers: [] });
    expect(error.attempts).toEqual([]);
    expect(requests('eth_getBalance')).toBe(0);
    await pool.close();
  });
});

describe('amplification', () => {
  it('requests per call: 1.00 without consensus, 2.00 with operators 2 when the nodes agree, each call on two operators', async () => {
    const { pool, requests, askedBy } = await threeOperators();
    for (let i = 0; i < 60; i++) await pool.request('eth_getBalance', [EVM_ADDRESS, 'latest']);
    expect(requests('eth_getBalance') / 60).toBe(1);
    for (let i = 0; i < 60; i++) expect(await pool.request('eth_getBalance', [EVM_ADDRESS, 'latest'], { consensus: { operators: 2 } })).toBe('0x3e8');
    expect((requests('eth_getBalance') - 60) / 60).toBe(2);
    expect(Math.min(...askedBy('eth_getBalance'))).toBeGreaterThan(20);
    expect(pool.snapshot().consensus).toEqual({ calls: 60, agreed: 60, disagreed: 0, failed: 0, tieBreaks: 0, strikes: 0 });
  });

  it('each turn stays on its operator: a tier-0 node never answers twice for one call', async () => {
    const tiered = await tieredOperators();
    for (let i = 0; i < 10; i++) await tiered.pool.request('eth_getBalance', [EVM_ADDRESS, 'latest'], { consensus: { operators: 2 } });
    expect(tiered.askedBy('eth_getBalance')[0]).toBe(10);
    expect(tiered.askedBy('eth_getBalance')[1]! + tiered.askedBy('eth_getBalance')[2]!).toBe(10);
  });

  it('a turn whose operator fails moves to the next operator, never back to one already asked', async () => {
    const clock = createFakeClock();
    const failing: NodeScript = () => undefined;
    const servers = [await scriptedServer(clock, honest), await scriptedServer(clock, failing), await scriptedServer(clock, honest)];
    const pool = createPool({
      endpoints: servers.map((server, i) => ({ id: `node-${i}`, url: server.url, operator: `op${i}.example`, tier: i === 0 ? 0 : 1 })),
      clock,
      methods: { eth_getBalance: { kind: 'read', retryClass: 'idempotent' } },
    });
    const answer = pool.request('eth_getBalance', [EVM_ADDRESS, 'latest'], { consensus: { operators: 2 } });
    expect(await drive(clock, answer)).toBe('0x3e8');
    expect(servers.map((server) => server.count('eth_getBalance'))).toEqual([1, 1, 1]);
  });

  it('identical consensus reads in flight share one consensus of as many operators, never one of fewer', async () => {
    const { pool, requests } = await threeOperators();
    const params = [EVM_ADDRESS, 'latest'];
    const twos = Array.from({ length: 20 }, () => pool.request('eth_getBalance', params, { consensus: { operators: 2 } }));
    const threes = Array.from({ length: 20 }, () => pool.request('eth_getBalance', params, { consensus: { operators: 3 } }));
    const plain = Array.from({ length: 20 }, () => pool.request('eth_getBalance', params));
    const answers = await Promise.all([...twos, ...threes, ...plain]);
    expect(new Set(answers)).toEqual(new Set(['0x3e8']));
    // One consensus of two, one of three, one plain request.
    expect(requests('eth_getBalance')).toBe(2 + 3 + 1);
    expect(pool.snapshot().consensus).toMatchObject({ calls: 2, agreed: 2 });
  });

  it('a caller that mutates the shared consensus answer changes nobody else\'s', async () => {
    const { pool, requests } = await threeOperators();
    const first = pool.request('getBalance', [SOL_ADDRESS], { consensus: { operators: 2 } }).then((answer) => {
      (answer as { value: number }).value = -1;
      return answer;
    });
    const second = pool.request('getBalance', [SOL_ADDRESS], { consensus: { operators: 2 } });
    expect(await first).toMatchObject({ value: -1 });
    expect(await second).toEqual({ context: { slot: 300 }, value: 5 });
    expect(requests('getBalance')).toBe(2);
  });

  it('operators 3 asks all three', async () => {
    const { pool, askedBy } = await threeOperators();
    await pool.request('getBalance', [SOL_ADDRESS], { consensus: { operators: 3 } });
    expect(askedBy('getBalance')).toEqual([1, 1, 1]);
  });
});

describe('the retry budget bounds tie-breaks', () => {
  it('a storm of disagreements: tie-breaks stop once the budget is spent, each call then costs its two requests and fails', async () => {
    const clock = createFakeClock();
    const servers = await Promise.all([0, 1, 2].map((i) => scriptedServer(clock, (method) => (method === 'eth_getBalance' ? `0x${(i + 1).toString(16)}` : undefined))));
    const pool = createPool({ endpoints: servers.map((server, i) => ({ id: `node-${i}`, url: `${server.url}/SECRET-${i}`, operator: `op${i}.example` })), clock, reputation: false });
    const events: unknown[] = [];
    pool.on('consensus', (event) => events.push(event));
    const errors = [];
    for (let i = 0; i < 100; i++) errors.push(await rejection(pool.request('eth_getBalance', [EVM_ADDRESS, 'latest'], { consensus: { operators: 2 } })));
    expect(errors.every((error) => error.code === 'CONSENSUS_FAILED')).toBe(true);
    const { tieBreaks, failed } = pool.snapshot().consensus!;
    expect(failed).toBe(100);
    // The budget's capacity (20) and floor (10 per second, the clock stands still) plus 0.1 per request made.
    expect(tieBreaks).toBeGreaterThan(20);
    expect(tieBreaks).toBeLessThan(60);
    expect(servers.reduce((sum, server) => sum + server.count('eth_getBalance'), 0)).toBe(200 + tieBreaks);
    expect((errors.at(-1)!.context as { answers: unknown[] }).answers).toHaveLength(2);
    // Endpoint ids and answer classes only: no URL, no value.
    expect(events).toHaveLength(100);
    const said = JSON.stringify([events, errors.map((error) => [error.message, error.context, error.attempts])]);
    expect(said).not.toMatch(/SECRET|127\.0\.0\.1|0x[123]\b/);
  });
});

describe('composition', () => {
  it('the method table gives every call of a method consensus; a call may opt out with consensus: false, a pinned call or a send never has it', async () => {
    const { pool, requests } = await threeOperators({ methods: { getBalance: { consensus: { operators: 2 } } } });
    await pool.request('getBalance', [SOL_ADDRESS]);
    expect(requests('getBalance')).toBe(2);
    await pool.request('getBalance', [SOL_ADDRESS], { consensus: false });
    expect(requests('getBalance')).toBe(3);
    // Nor a pinned call (the pool's own verification pins), nor one the caller makes a send of.
    await pool.request('getBalance', [SOL_ADDRESS], { endpoint: 'node-1' });
    await pool.request('getBalance', [SOL_ADDRESS], { retryClass: 'never-after-dispatch' });
    expect(requests('getBalance')).toBe(5);
  });

  it('typed calls and sessions take the option through', async () => {
    const { pool, requests } = await threeOperators();
    expect(await createSolanaClient(pool).getBalance(SOL_ADDRESS, {}, { consensus: { operators: 2 } })).toEqual({ slot: 300n, value: 5n });
    expect(requests('getBalance')).toBe(2);
    expect(await createEvmClient(pool).getBalance(EVM_ADDRESS, 'latest', { consensus: { operators: 3 } })).toBe(1_000n);
    expect(requests('eth_getBalance')).toBe(3);
    await pool.session().request('getBalance', [SOL_ADDRESS], { consensus: { operators: 2 } });
    expect(requests('getBalance')).toBe(4);
  });

  it("a consensus answer is kept as finalized with verify: 'two-operators' without a further check, and serves the next consensus read", async () => {
    const { pool, requests } = await threeOperators({ cache: { verify: 'two-operators' } });
    const block = await pool.request('eth_getBlockByHash', [BLOCK_HASH, false], { consensus: { operators: 2 } });
    expect(requests('eth_getBlockByHash')).toBe(2);
    expect(pool.snapshot().cache?.stored.finalized).toBe(1);
    expect(await pool.request('eth_getBlockByHash', [BLOCK_HASH, false], { consensus: { operators: 2 } })).toEqual(block);
    expect(await pool.request('eth_getBlockByHash', [BLOCK_HASH, false])).toEqual(block);
    expect(requests('eth_getBlockByHash')).toBe(2);
  });

  it('with the default cache (one endpoint proves finality), a consensus read is never served from it', async () => {
    const { pool, requests } = await threeOperators();
    await pool.request('eth_getBlockByHash', [BLOCK_HASH, false]);
    expect(requests('eth_getBlockByHash')).toBe(1);
    await pool.request('eth_getBlockByHash', [BLOCK_HASH, false], { consensus: { operators: 2 } });
    expect(requests('eth_getBlockByHash')).toBe(3);
  });

  it('Prometheus shows consensus calls, agreements and disagreements (bounded labels, no URL)', async () => {
    const { pool } = await threeOperators();
    const registry = new Registry();
    registerPrometheusMetrics(pool, { registry });
    await pool.request('getBalance', [SOL_ADDRESS], { consensus: { operators: 2 } });
    const text = await registry.metrics();
    expect(text).toContain('sturdy_rpc_consensus_reads{consensus_outcome="call"} 1');
    expect(text).toContain('sturdy_rpc_consensus_reads{consensus_outcome="agreed"} 1');
    expect(text).toContain('sturdy_rpc_consensus_reads{consensus_outcome="disagreed"} 0');
    expect(text).not.toContain('SECRET');
  });
});
