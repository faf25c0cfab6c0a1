import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerPrometheusMetrics } from '../../src/metrics/prometheus.js';
import { ok, type Script } from '../helpers/scripted-executor.js';
import { createTestPool, endpoint } from '../pool/pool-fixtures.js';

/** The read cache's counters, as the snapshot and the Prometheus exporter show them. */

const getBlock: Script = (request, id) => ok({ blockHeight: JSON.parse(request.body).params[0] as number }, id);

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
