/**
 * Requests saved by coalescing and batching on a bot workload: `tasks` tasks run at once,
 * each round reading one of 4 hot accounts (the same few accounts every task watches), the
 * tip (getSlot / eth_blockNumber: the same call from every task) and its own wallet (a read
 * no other task makes), the three calls together. The same workload runs through
 * sturdy-rpc (default: coalescing; with micro-batching; with both off) and through the
 * peers' own answers to it — @solana/kit's default transport (which coalesces identical
 * calls) and viem's `http({ batch: true })` — on the same loopback server, which counts the
 * HTTP requests it received.
 */
import { createSolanaRpc, address, type Address } from '@solana/kit';
import { base58 } from '@scure/base';
import { createPublicClient, http } from 'viem';
import { HttpTransportPool } from '../src/pool/http-transport-pool.js';
import { startFaultServer, type FaultServer } from './fault-control.js';
import { table } from './util.js';

export interface BatchingBenchOptions {
  readonly tasks: number;
  readonly rounds: number;
  /** Server latency per request, in ms: calls overlap as they do against a real node. */
  readonly baseDelayMs: number;
}

export interface BatchingResult {
  readonly client: string;
  readonly chain: 'solana' | 'evm';
  readonly calls: number;
  readonly requests: number;
  /** JSON-RPC calls the server received (batch items counted one by one). */
  readonly items: number;
  readonly requestsPerCall: number;
  readonly callsPerSecond: number;
  readonly note: string;
}

interface Workload {
  readonly name: string;
  readonly chain: 'solana' | 'evm';
  readonly note: string;
  /** One round of one task: hot account `hot`, its own wallet `own`. */
  round(hot: number, own: number): Promise<unknown>;
  close(): Promise<void>;
}

const solanaKey = (seed: number) => {
  const bytes = new Uint8Array(32);
  new DataView(bytes.buffer).setUint32(0, seed + 1);
  bytes[31] = 7;
  return base58.encode(bytes);
};
const evmAddress = (seed: number) => `0x${(seed + 1).toString(16).padStart(40, '0')}` as const;

function sturdy(url: string, chain: 'solana' | 'evm', name: string, note: string, options: { coalesce?: boolean; batch?: { waitMs: number } }): Workload {
  const pool = new HttpTransportPool({ endpoints: [{ url, maxConcurrentRequests: 64 }], chain, ...options });
  const round =
    chain === 'solana'
      ? (hot: number, own: number) =>
          Promise.all([pool.request('getBalance', [solanaKey(hot)]), pool.request('getSlot', []), pool.request('getBalance', [solanaKey(1_000 + own)])])
      : (hot: number, own: number) =>
          Promise.all([pool.request('eth_getBalance', [evmAddress(hot), 'latest']), pool.request('eth_blockNumber', []), pool.request('eth_getBalance', [evmAddress(1_000 + own), 'latest'])]);
  return { name, chain, note, round, close: () => pool.close() };
}

function workloads(url: string): Workload[] {
  const kit = createSolanaRpc(url);
  const hotKeys: Address[] = Array.from({ length: 4 }, (_, i) => address(solanaKey(i)));
  const viemBatch = createPublicClient({ transport: http(url, { batch: true }), cacheTime: 0 });
  const viemPlain = createPublicClient({ transport: http(url, { batch: false }), cacheTime: 0 });
  const viemRound = (client: typeof viemBatch) => (hot: number, own: number) =>
    Promise.all([client.getBalance({ address: evmAddress(hot) }), client.getBlockNumber({ cacheTime: 0 }), client.getBalance({ address: evmAddress(1_000 + own) })]);
  const none = async () => undefined;
  return [
    sturdy(url, 'solana', 'sturdy-rpc (default: coalescing)', '`pool.request`', {}),
    sturdy(url, 'solana', 'sturdy-rpc + batch { waitMs: 0 }', 'coalescing + micro-batching', { batch: { waitMs: 0 } }),
    sturdy(url, 'solana', 'sturdy-rpc, coalesce: false', 'one request per call', { coalesce: false }),
    {
      name: '@solana/kit createSolanaRpc',
      chain: 'solana',
      note: 'default transport (coalesces identical calls in a tick)',
      round: (hot, own) => Promise.all([kit.getBalance(hotKeys[hot]!).send(), kit.getSlot().send(), kit.getBalance(address(solanaKey(1_000 + own))).send()]),
      close: none,
    },
    sturdy(url, 'evm', 'sturdy-rpc (default: coalescing)', '`pool.request`', {}),
    sturdy(url, 'evm', 'sturdy-rpc + batch { waitMs: 0 }', 'coalescing + micro-batching', { batch: { waitMs: 0 } }),
    sturdy(url, 'evm', 'sturdy-rpc, coalesce: false', 'one request per call', { coalesce: false }),
    { name: 'viem http({ batch: true })', chain: 'evm', note: 'batches every call (no coalescing)', round: viemRound(viemBatch), close: none },
    { name: 'viem http()', chain: 'evm', note: 'dedupes its own getBlockNumber only', round: viemRound(viemPlain), close: none },
  ];
}

async function run(server: FaultServer, workload: Workload, options: BatchingBenchOptions): Promise<BatchingResult> {
  const counts = async () => {
    const { ports } = await server.stats();
    return { requests: ports.reduce((sum, port) => sum + port.received, 0), items: ports.reduce((sum, port) => sum + port.items, 0) };
  };
  const before = await counts();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.tasks }, async (_, task) => {
      for (let round = 0; round < options.rounds; round++) await workload.round((task + round) % 4, task);
    }),
  );
  const elapsed = performance.now() - started;
  const after = await counts();
  const requests = after.requests - before.requests;
  const calls = options.tasks * options.rounds * 3;
  return { client: workload.name, chain: workload.chain, calls, requests, items: after.items - before.items, requestsPerCall: requests / calls, callsPerSecond: (calls / elapsed) * 1000, note: workload.note };
}

export async function benchBatching(options: BatchingBenchOptions): Promise<{ results: BatchingResult[]; markdown: string }> {
  const server = await startFaultServer(1);
  const all = workloads(server.urls[0]!);
  const results: BatchingResult[] = [];
  try {
    await server.configure({ baseDelayMs: options.baseDelayMs, ports: [] });
    for (const workload of all) {
      // A short warm-up (connections, JIT), then the measured run.
      await run(server, workload, { ...options, rounds: 1 });
      results.push(await run(server, workload, options));
    }
  } finally {
    await Promise.all(all.map((workload) => workload.close()));
    await server.stop();
  }
  const baseline = (chain: string) => results.find((r) => r.chain === chain && r.note === 'one request per call')!;
  const rows = results.map((r) => [
    r.chain,
    r.client,
    r.calls,
    r.requests,
    r.requestsPerCall.toFixed(2),
    `${Math.round((1 - r.requests / baseline(r.chain).requests) * 100)} %`,
    r.items,
    Math.round(r.callsPerSecond),
    r.note,
  ]);
  const header = `${options.tasks} tasks × ${options.rounds} rounds × 3 calls (a hot account of 4, the tip, the task's own wallet); server latency ${options.baseDelayMs} ms`;
  return {
    results,
    markdown: `${header}\n\n${table(['chain', 'client', 'calls', 'HTTP requests', 'requests / call', 'requests saved vs one per call', 'calls at the node (batch items counted)', 'calls/s', 'how'], rows)}`,
  };
}
