/**
 * The pool's added cost over raw undici `Pool.request` against the same loopback server
 * (in a separate process): throughput and p50/p99 at 1 and 64 calls in flight, rounds
 * alternating the order of the clients. Run via `npm run bench`.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { HttpTransportPool } from '../src/pool/http-transport-pool.js';
import { table } from './util.js';

export interface LoadResult {
  readonly client: string;
  readonly inFlight: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

type Call = () => Promise<unknown>;

export async function startBenchServer(): Promise<{ url: string; stop(): void }> {
  // Benchmarks run compiled (npm run bench), so the server is the .js file beside this one.
  const child = spawn(process.execPath, [fileURLToPath(new URL('./server.js', import.meta.url))], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (data: Buffer) => resolve(data.toString().trim()));
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/`, stop: () => child.stdin.end() };
}

/** Runs `call` with `inFlight` concurrent loops for `durationMs`; returns req/s and latency percentiles. */
export async function load(client: string, call: Call, inFlight: number, durationMs: number): Promise<LoadResult> {
  const latencies: number[] = [];
  const end = performance.now() + durationMs;
  const loop = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      await call();
      latencies.push(performance.now() - t0);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inFlight }, loop));
  const elapsed = performance.now() - t0;
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  return { client, inFlight, requestsPerSecond: (latencies.length / elapsed) * 1000, p50Ms: at(0.5), p99Ms: at(0.99) };
}

const BODY = '{"jsonrpc":"2.0","id":1,"method":"getBalance","params":["Vote111111111111111111111111111111111111111"]}';

export async function benchHttp(durationMs = 3_000, rounds = 3): Promise<{ results: LoadResult[]; markdown: string }> {
  const server = await startBenchServer();
  const raw = new Pool(server.url, { connections: 64 });
  const pool = new HttpTransportPool({ endpoints: [{ url: server.url, maxConcurrentRequests: 64 }] });
  const clients: Record<string, Call> = {
    'raw undici Pool.request': async () => {
      const res = await raw.request({ path: '/', method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY });
      await res.body.text();
    },
    'sturdy-rpc pool.request': () => pool.request('getBalance', ['Vote111111111111111111111111111111111111111']),
  };
  const best = new Map<string, LoadResult>();
  try {
    for (const inFlight of [1, 64]) {
      for (let round = 0; round < rounds; round++) {
        const names = Object.keys(clients);
        if (round % 2 === 1) names.reverse();
        for (const name of names) {
          const result = await load(name, clients[name]!, inFlight, durationMs);
          const key = `${name}@${inFlight}`;
          const previous = best.get(key);
          if (!previous || result.requestsPerSecond > previous.requestsPerSecond) best.set(key, result);
        }
      }
    }
  } finally {
    await raw.close();
    await pool.close();
    server.stop();
  }
  const results = [...best.values()];
  const rows = results.map((r) => {
    const baseline = best.get(`raw undici Pool.request@${r.inFlight}`)!;
    return [
      r.client,
      r.inFlight,
      Math.round(r.requestsPerSecond),
      (r.requestsPerSecond / baseline.requestsPerSecond).toFixed(2),
      r.p50Ms.toFixed(3),
      (r.p50Ms / baseline.p50Ms).toFixed(2),
      r.p99Ms.toFixed(3),
    ];
  });
  return {
    results,
    markdown: table(['client', 'in flight', 'req/s', '× raw', 'p50 ms', 'p50 × raw', 'p99 ms'], rows),
  };
}
