import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerPrometheusMetrics } from '../../src/metrics/prometheus.js';
import { instrumentOpenTelemetry } from '../../src/otel/index.js';
import type { ExecuteRequest } from '../../src/http/executor.js';
import { ok, type Script } from '../helpers/scripted-executor.js';
import { createTestPool, endpoint } from '../pool/pool-fixtures.js';

/** The read cache's counters, as the snapshot and the Prometheus exporter show them. */

const getBlock: Script = (request, id) => ok({ blockHeight: JSON.parse(request.body).params[0] as number }, id);

class TestReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

const hash = (n: number, fork: number) => `0x${n.toString(16).padStart(2, '0').repeat(31)}${fork.toString(16).padStart(2, '0')}`;
/** An EVM node: finalized head 5, tip 17, every block above 5 on fork `fork()`. */
function evmNode(fork: () => number): Script {
  return (request: ExecuteRequest, id) => {
    const { method, params } = JSON.parse(request.body) as { method: string; params: [string] };
    const n = params[0] === 'finalized' ? 5 : params[0] === 'latest' ? 17 : Number.parseInt(params[0], 16);
    const f = n > 5 ? fork() : 0;
    const block = { number: `0x${n.toString(16)}`, hash: hash(n, f), parentHash: hash(n - 1, n - 1 > 5 ? f : 0), transactions: [] };
    return ok(method === 'eth_getBlockByNumber' ? block : [{ blockNumber: params[0], blockHash: hash(n, f), status: '0x1' }], id);
  };
}

describe('read cache counters', () => {
  it('counts hits, misses and kept answers per class in the snapshot and in Prometheus (bounded labels)', async () => {
    const t = createTestPool([endpoint('a')]);
    t.executor.script('a', getBlock);
    const registry = new Registry();
    registerPrometheusMetrics(t.pool, { registry });
    for (const slot of [1, 2, 1, 1]) await t.pool.request('getBlock', [slot, { commitment: 'finalized' }]);
    expect(t.pool.snapshot().cache).toMatchObject({ entries: 2, hits: 2, misses: 2, stored: { finalized: 2, unfinalized: 0, realtime: 0 }, evictions: 0, reorgEvictions: 0 });
    const text = await registry.metrics();
    expect(text).toContain('sturdy_rpc_read_cache_reads{cache_outcome="hit"} 2');
    expect(text).toContain('sturdy_rpc_read_cache_reads{cache_outcome="miss"} 2');
    expect(text).toContain('sturdy_rpc_read_cache_stored{cache_class="finalized"} 2');
    // Labels are the outcome and the class only: no method, key or endpoint address.
    expect(text).not.toContain('example.com');
    expect(t.executor.countFor('a', 'getBlock')).toBe(2);
  });

  it('counts hits, misses, kept answers, evictions and reorg evictions per method and class: snapshot, Prometheus and OTel', async () => {
    const t = createTestPool([endpoint('a')], { chain: 'evm', cache: { ttl: { unfinalized: 600_000 }, maxEntries: 4 } });
    let fork = 0;
    t.executor.script('a', evmNode(() => fork));
    const registry = new Registry();
    registerPrometheusMetrics(t.pool, { registry });
    const reader = new TestReader();
    instrumentOpenTelemetry(t.pool, { meterProvider: new MeterProvider({ readers: [reader] }) });
    const reorgs: unknown[] = [];
    t.pool.on('cache', (event) => reorgs.push(event));
    await t.pool.request('eth_getBlockByNumber', ['finalized', false]); // finality at 5 (a realtime read: watched, not kept)
    for (let i = 0; i < 2; i++) await t.pool.request('eth_getBlockByNumber', ['0x3', false]); // finalized: miss, then hit
    await t.pool.request('eth_getBlockByNumber', ['0x10', false]); // unfinalized: its hash is what a reorg contradicts
    for (let i = 0; i < 2; i++) await t.pool.request('eth_getBlockReceipts', ['0x10']); // unfinalized: miss, then hit
    for (const n of ['0x4', '0x2']) await t.pool.request('eth_getBlockByNumber', [n, false]); // 4 entries at most: block 3, the oldest, goes
    await t.pool.request('eth_getBlockReceipts', ['0x10']); // still held: a hit
    fork = 1;
    await t.pool.request('eth_getBlockByNumber', ['latest', false]); // another parent at 16: both entries at 16 go
    expect(reorgs).toEqual([{ atMs: 0, type: 'reorg-eviction', forkAt: 16, fromBlock: 6, dropped: 2 }]);
    expect(t.pool.snapshot().cache!.methods).toEqual([
      { method: 'eth_getBlockByNumber', class: 'finalized', hits: 1, misses: 3, stored: 3, evictions: 1, reorgEvictions: 0 },
      { method: 'eth_getBlockByNumber', class: 'realtime', hits: 0, misses: 2, stored: 0, evictions: 0, reorgEvictions: 0 },
      { method: 'eth_getBlockByNumber', class: 'unfinalized', hits: 0, misses: 1, stored: 1, evictions: 0, reorgEvictions: 1 },
      { method: 'eth_getBlockReceipts', class: 'unfinalized', hits: 2, misses: 1, stored: 1, evictions: 0, reorgEvictions: 1 },
    ]);
    const text = await registry.metrics();
    expect(text).toContain('sturdy_rpc_read_cache_method_reads{cache_method="eth_getBlockByNumber",cache_class="finalized",cache_outcome="eviction"} 1');
    expect(text).toContain('sturdy_rpc_read_cache_method_reads{cache_method="eth_getBlockReceipts",cache_class="unfinalized",cache_outcome="reorg-eviction"} 1');
    expect(text).toContain('sturdy_rpc_read_cache_method_reads{cache_method="eth_getBlockReceipts",cache_class="unfinalized",cache_outcome="hit"} 2');
    const otel = (await reader.collect()).resourceMetrics.scopeMetrics.flatMap((m) => m.metrics).find((m) => m.descriptor.name === 'sturdy_rpc.read_cache_method_reads');
    const point = (method: string, readClass: string, outcome: string) =>
      otel?.dataPoints.find((p) => p.attributes['cache_method'] === method && p.attributes['cache_class'] === readClass && p.attributes['cache_outcome'] === outcome)?.value;
    expect([point('eth_getBlockByNumber', 'finalized', 'hit'), point('eth_getBlockByNumber', 'finalized', 'miss'), point('eth_getBlockReceipts', 'unfinalized', 'reorg-eviction')]).toEqual([1, 3, 1]);
  });

  it('evicts the least recently used answers past maxEntries, and counts them', async () => {
    const t = createTestPool([endpoint('a')], { cache: { maxEntries: 2 } });
    t.executor.script('a', getBlock);
    for (const slot of [1, 2, 1, 3, 1, 2]) await t.pool.request('getBlock', [slot]);
    // 1, 2 kept; 1 hit (most recent); 3 pushes out 2; 1 hit; 2 asked again (pushes out 3).
    expect([t.executor.countFor('a', 'getBlock'), t.pool.snapshot().cache?.evictions, t.pool.snapshot().cache?.hits]).toEqual([4, 2, 2]);
  });

  it('stays under maxBytes through a flood of 100 000 distinct finalized blocks', async () => {
    const maxBytes = 256 * 1024;
    const t = createTestPool([endpoint('a')], { cache: { maxBytes } });
    t.executor.script('a', getBlock);
    let highest = 0;
    for (let slot = 0; slot < 100_000; slot++) {
      await t.pool.request('getBlock', [slot]);
      if (slot % 1_000 === 0) highest = Math.max(highest, t.pool.snapshot().cache!.bytes);
    }
    const cache = t.pool.snapshot().cache!;
    expect(Math.max(highest, cache.bytes)).toBeLessThanOrEqual(maxBytes);
    expect(cache.evictions).toBe(100_000 - cache.entries);
  }, 60_000);
});
