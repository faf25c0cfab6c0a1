/**
 * "One slow node" (issue: one slow endpoint must never stall the pool): endpoints of one
 * server process, one of them answering in 1 600 ms, the others in `baseDelayMs`; 16
 * workers run for a fixed time, 95 % `getBalance` reads and 5 % sends of unique signed
 * transactions. Compared against the limit — raw undici `Pool.request` to the healthy node
 * alone — and the peers' failover clients at their defaults (viem `fallback` with and
 * without `rank`, ethers `FallbackProvider`). Reports throughput (× the limit),
 * p50/p99/p99.9, amplification (requests the servers received ÷ calls) and duplicate sends.
 */
import { Pool } from 'undici';
import { createEvmClient } from '../src/evm/client.js';
import { HttpTransportPool } from '../src/pool/http-transport-pool.js';
import { ethersFallbackClient, TIMEOUT_MS, viemFallbackClient } from './fault-clients.js';
import { startFaultServer } from './fault-control.js';
import { evmBalanceOf, percentile } from './fault-model.js';
import { createWorkload, type WorkItem } from './fault-workload.js';
import { table } from './util.js';

export interface SlowNodeOptions {
  readonly durationMs: number;
  readonly inFlight: number;
  readonly baseDelayMs: number;
  readonly slowMs: number;
  readonly seed: number;
}

interface Client {
  readonly name: string;
  run(item: WorkItem): Promise<boolean>;
  close(): Promise<void>;
}

export interface SlowNodeResult {
  readonly endpoints: number;
  readonly client: string;
  readonly calls: number;
  readonly failures: number;
  readonly callsPerSecond: number;
  readonly throughputVsLimit: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly amplification: number;
  readonly duplicateSends: number;
  readonly hedges?: number;
}

const body = (address: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [address, 'latest'] });

/** The limit: raw undici to the healthy node alone, reads only (a send has nowhere else to go). */
function rawUndici(url: string): Client {
  const pool = new Pool(new URL(url).origin, { connections: 64 });
  return {
    name: 'raw undici → healthy node alone (the limit)',
    run: async (item) => {
      const address = item.kind === 'read' ? item.evmAddress : '0x0000000000000000000000000000000000000001';
      const res = await pool.request({ method: 'POST', path: '/', body: body(address), headers: { 'content-type': 'application/json' } });
      const json = (await res.body.json()) as { result?: string };
      return typeof json.result === 'string';
    },
    close: () => pool.close(),
  };
}

function sturdy(urls: readonly string[]): Client & { pool: HttpTransportPool } {
  const pool = new HttpTransportPool({
    coalesce: false, // the peers compared here do not coalesce: every call is its own request
    endpoints: urls.map((url, i) => ({ id: `e${i}`, url, operator: `op${i}`, requestTimeoutMs: TIMEOUT_MS })),
    chain: 'evm',
  });
  const evm = createEvmClient(pool);
  return {
    name: 'sturdy-rpc (defaults)',
    pool,
    run: async (item) =>
      item.kind === 'read'
        ? (await evm.getBalance(item.evmAddress)) === evmBalanceOf(item.evmAddress)
        : (await evm.sendRawTransaction(item.evmRaw)) === item.evmHash,
    close: () => pool.close(),
  };
}

/** Runs `client` for `durationMs` with `inFlight` workers; each send of the workload is made once at most. */
async function drive(client: Client, items: readonly WorkItem[], options: SlowNodeOptions) {
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  const reads = items.filter((item) => item.kind === 'read');
  const stopAt = performance.now() + options.durationMs;
  const worker = async () => {
    while (performance.now() < stopAt) {
      const index = next++;
      // Past the workload's end, reads only: a send is never repeated (that would be a duplicate).
      const item = index < items.length ? items[index]! : reads[index % reads.length]!;
      const t0 = performance.now();
      try {
        if (!(await client.run(item))) failures++;
      } catch {
        failures++;
      }
      latencies.push(performance.now() - t0);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: options.inFlight }, worker));
  const elapsedMs = performance.now() - started;
  latencies.sort((a, b) => a - b);
  return { calls: latencies.length, failures, elapsedMs, latencies };
}

export async function benchSlowNode(options: SlowNodeOptions): Promise<{ results: SlowNodeResult[]; markdown: string }> {
  const items = await createWorkload(4_000, 0.05, options.seed);
  const results: SlowNodeResult[] = [];
  for (const endpoints of [2, 4]) {
    const server = await startFaultServer(endpoints);
    try {
      const slow = { type: 'slow', factor: options.slowMs / options.baseDelayMs } as const;
      const ports = [slow, ...Array.from({ length: endpoints - 1 }, () => ({ type: 'normal' }) as const)];
      const clients: (() => Client & { pool?: HttpTransportPool })[] = [
        () => rawUndici(server.urls[1]!),
        () => sturdy(server.urls),
        () => ({ name: 'viem fallback', ...viemFallbackClient(server.urls) }),
        () => ({ name: 'viem fallback (rank: true)', ...viemFallbackClient(server.urls, true) }),
        () => ({ name: 'ethers FallbackProvider', ...ethersFallbackClient(server.urls) }),
      ];
      let limit = 0;
      for (const make of clients) {
        await server.configure({ baseDelayMs: options.baseDelayMs, ports });
        const client = make();
        await server.resetStats();
        const run = await drive(client, items, options);
        const hedges = client.pool?.snapshot().kinds.find((k) => k.kind === 'read')?.hedges.started;
        await client.close();
        // Requests still in flight at the slow node land within its delay.
        await new Promise((resolve) => setTimeout(resolve, options.slowMs + 100));
        const stats = await server.stats();
        const received = stats.ports.reduce((sum, port) => sum + port.received, 0);
        const callsPerSecond = (run.calls / run.elapsedMs) * 1000;
        if (limit === 0) limit = callsPerSecond;
        results.push({
          endpoints,
          client: client.name,
          calls: run.calls,
          failures: run.failures,
          callsPerSecond,
          throughputVsLimit: callsPerSecond / limit,
          p50Ms: percentile(run.latencies, 0.5),
          p99Ms: percentile(run.latencies, 0.99),
          p999Ms: percentile(run.latencies, 0.999),
          amplification: received / run.calls,
          duplicateSends: stats.duplicateSends,
          ...(hedges === undefined ? {} : { hedges }),
        });
      }
    } finally {
      await server.stop();
    }
  }
  const rows = results.map((r) => [
    r.endpoints,
    r.client,
    r.calls,
    r.failures,
    Math.round(r.callsPerSecond),
    `${r.throughputVsLimit.toFixed(2)}×`,
    r.p50Ms.toFixed(1),
    r.p99Ms.toFixed(1),
    r.p999Ms.toFixed(1),
    r.amplification.toFixed(3),
    r.duplicateSends,
    r.hedges ?? '—',
  ]);
  const setup =
    `${options.inFlight} workers for ${options.durationMs} ms per client; 95% \`eth_getBalance\` / 5% sends of unique signed transactions ` +
    `(each sent once); endpoint 1 answers in ${options.slowMs} ms, the others in ${options.baseDelayMs} ms; ${TIMEOUT_MS} ms per request. ` +
    `The limit sends reads only, to a healthy node.`;
  return {
    results,
    markdown: `${setup}\n\n${table(['endpoints', 'client', 'calls', 'failed', 'calls/s', '× limit', 'p50 ms', 'p99 ms', 'p99.9 ms', 'requests / call', 'duplicate sends', 'hedges'], rows)}`,
  };
}
