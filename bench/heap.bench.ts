/**
 * Heap per idle endpoint: `heapUsed` growth (after a full GC) from constructing pools of 10
 * and 1 000 endpoints that never sent anything. Needs `--expose-gc` (npm run bench passes it).
 */
import { HttpTransportPool } from '../src/pool/http-transport-pool.js';
import { table } from './util.js';

export interface HeapResult {
  readonly endpoints: number;
  readonly pools: number;
  /** heapUsed growth per endpoint, including the pool's fixed cost shared out. */
  readonly bytesPerEndpoint: number;
}

const TARGET_BYTES = 4 * 1024;
const gc = (globalThis as { gc?: () => void }).gc;

export async function settledHeap(): Promise<number> {
  // Let earlier sections' garbage (closed sockets, timers) settle: collect until heapUsed stops falling.
  let previous = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 10; i++) {
    gc!();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const used = process.memoryUsage().heapUsed;
    if (used >= previous - 1024) return used;
    previous = used;
  }
  return previous;
}

function createPool(size: number, seed: number): HttpTransportPool {
  // Distinct hosts and operators, as real endpoint lists have; ids and URLs are built here so
  // their strings count against the pool as a user's config would.
  const endpoints = Array.from({ length: size }, (_, i) => ({
    id: `endpoint-${seed}-${i}`,
    url: `https://rpc-${seed}-${i}.operator${i % 50}.example/v1/key${i}`,
    operator: `operator${i % 50}`,
    requestsPerSecond: 50,
    maxConcurrentRequests: 16,
  }));
  return new HttpTransportPool({ endpoints, chain: 'solana' });
}

/** Median of `repeats` measurements of `pools` pools of `size` endpoints each. */
async function measure(size: number, pools: number, repeats = 3): Promise<HeapResult> {
  await createPool(size, -1).close(); // warm the code paths (and their caches) outside the measurement
  const samples: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const before = await settledHeap();
    const live = Array.from({ length: pools }, (_, i) => createPool(size, r * pools + i));
    const after = await settledHeap();
    samples.push((after - before) / (size * pools));
    await Promise.all(live.map((pool) => pool.close()));
    // A suspended async function may keep a dead local alive; empty it so the next `before` is clean.
    live.length = 0;
  }
  samples.sort((a, b) => a - b);
  return { endpoints: size, pools, bytesPerEndpoint: samples[Math.floor(samples.length / 2)]! };
}

export async function benchHeap(): Promise<{ results: HeapResult[]; markdown: string }> {
  if (!gc) return { results: [], markdown: '_skipped: run with `node --expose-gc` (npm run bench does)_' };
  const results = [await measure(10, 200), await measure(1_000, 2)];
  const rows = results.map((r) => [
    r.endpoints,
    r.pools,
    Math.round(r.bytesPerEndpoint),
    (r.bytesPerEndpoint / 1024).toFixed(2),
    r.bytesPerEndpoint <= TARGET_BYTES ? 'yes' : 'no',
  ]);
  return { results, markdown: table(['endpoints per pool', 'pools measured', 'bytes / endpoint', 'KiB / endpoint', '≤ 4 KiB'], rows) };
}
