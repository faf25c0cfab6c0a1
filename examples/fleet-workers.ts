// An application imports these from 'sturdy-rpc' and 'sturdy-rpc/fleet'.
/**
 * A fleet: 3 worker processes, each with its own pool, share ONE provider quota (30 req/s)
 * and one rate-limit cooldown through Redis. Without the fleet each worker would believe it
 * owns the whole quota and the provider would see 3× the plan.
 *
 * Runs offline: a loopback "provider" that counts what arrives per second and answers worker
 * 0's 20th request with 429 + Retry-After: 1, and a `redis-server` started on a free port
 * (or the one at REDIS_URL). Without redis-server on PATH and no REDIS_URL it says so and
 * exits: get it with `apt-get install redis-server` or `docker run -p 6379:6379 redis:7`.
 *
 *   node --import tsx examples/fleet-workers.ts
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { HttpTransportPool } from '../src/index.js';
import { createRedisFleet } from '../src/fleet/index.js';

const QUOTA = 30;
const WORKERS = 3;
const RUN_MS = 5_000;

if (process.argv[2] === 'worker') await worker(process.argv[3]!, process.argv[4]!, Number(process.argv[5]));
else await main();

/** One worker process: its own Redis connection, fleet member and pool, calling for RUN_MS. */
async function worker(redisUrl: string, providerUrl: string, index: number): Promise<void> {
  const redis = new Redis(redisUrl, { enableOfflineQueue: false });
  const fleet = createRedisFleet({ redis, namespace: 'example-fleet' });
  const pool = new HttpTransportPool({
    endpoints: [{ id: 'provider', url: providerUrl, tier: 0, requestsPerSecond: QUOTA, burstCapacity: QUOTA, headers: { 'x-worker': String(index) } }],
    fleet,
  });
  // A fleet starts local (reason `starting`) and shares once Redis has taken its writes: the
  // workers start together only when each one shares, so the cooldown below reaches them all.
  let markShared: () => void = () => {};
  const shared = new Promise<void>((resolve) => (markShared = resolve));
  pool.on('fleet', (event) => {
    if (event.type === 'adopted') process.send?.({ adopted: event.topic, endpoints: event.endpointIds });
    if (event.type === 'mode' && event.mode === 'shared') markShared();
  });
  // Start together: the parent says go once every worker is connected and shares.
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  await Promise.race([shared, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  await new Promise<void>((resolve) => {
    process.once('message', () => resolve());
    process.send?.({ ready: true });
  });
  let ok = 0;
  let failed = 0;
  const end = performance.now() + RUN_MS;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (performance.now() < end) await pool.request('getSlot', [], { timeoutMs: 2_000 }).then(() => ok++, () => failed++);
    }),
  );
  await pool.close();
  await fleet.close();
  redis.disconnect(); // the client is the application's: the fleet never closes it
  process.send?.({ ok, failed });
}

async function main(): Promise<void> {
  const redis = process.env['REDIS_URL'] ? { url: process.env['REDIS_URL'], child: undefined } : await startRedis();
  if (redis === undefined) {
    console.log('SKIPPED: redis-server is not installed (apt-get install -y redis-server, or run `docker run -p 6379:6379 redis:7` and set REDIS_URL)');
    return;
  }
  const arrivals: number[] = [];
  let limitedAt: number | undefined;
  let fromWorkerZero = 0;
  const provider = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      arrivals.push(performance.now());
      const id = (JSON.parse(body) as { id: unknown }).id;
      if (req.headers['x-worker'] === '0' && ++fromWorkerZero === 20) {
        limitedAt = performance.now();
        res.writeHead(429, { 'retry-after': '1' }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: 341_197_058 }));
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  const providerUrl = `http://127.0.0.1:${(provider.address() as net.AddressInfo).port}/v2/sk-live-0123456789abcdef`;

  const adoptedBy = new Set<number>();
  const children: ChildProcess[] = [];
  let readyCount = 0;
  let started = 0;
  const results = await Promise.all(
    Array.from({ length: WORKERS }, (_, index) => {
      const child = fork(fileURLToPath(import.meta.url), ['worker', redis.url, providerUrl, String(index)]);
      children.push(child);
      return new Promise<{ ok: number; failed: number }>((resolve) => {
        child.on('message', (message: { ready?: boolean; adopted?: string; ok?: number; failed?: number }) => {
          if (message.ready && ++readyCount === WORKERS) {
            started = performance.now();
            for (const c of children) c.send('go');
          }
          if (message.adopted === 'cooldown') adoptedBy.add(index);
          if (message.ok !== undefined) resolve({ ok: message.ok, failed: message.failed ?? 0 });
        });
      });
    }),
  );
  provider.close();
  redis.child?.kill('SIGKILL');

  // The bound holds while the fleet saturates the quota. A window that meets the end of the 1 s
  // cooldown is not saturated: the bucket refilled while everybody waited, and a token bucket
  // then lets its burst plus its rate through (as one pool would): such windows are skipped.
  const saturated = (from: number) => limitedAt === undefined || from + 1_000 <= limitedAt || from >= limitedAt + 2_000;
  let busiest = 0;
  let windows = 0;
  for (let from = started + 1_000; from + 1_000 <= started + RUN_MS; from += 10) {
    if (!saturated(from)) continue;
    windows++;
    busiest = Math.max(busiest, arrivals.filter((t) => t >= from && t < from + 1_000).length);
  }
  const lease = Math.ceil(QUOTA / 10); // 100 ms of the quota per lease
  const paused = limitedAt === undefined ? -1 : arrivals.filter((t) => t > limitedAt! + 300 && t < limitedAt! + 900).length;
  console.log(`${WORKERS} workers, one quota of ${QUOTA} req/s: busiest saturated second after the first held ${busiest} requests (bound ${QUOTA} + ${WORKERS} leases of ${lease} = ${QUOTA + WORKERS * lease})`);
  console.log(`calls answered: ${results.map((r) => r.ok).join(' + ')}; failed: ${results.reduce((n, r) => n + r.failed, 0)}`);
  console.log(`429 + Retry-After: 1 to worker 0: workers ${[...adoptedBy].sort().join(' and ')} adopted the cooldown; requests from 300 ms to 900 ms after it: ${paused}`);
  // A bound checked on no window proves nothing.
  if (windows === 0 || busiest > QUOTA + WORKERS * lease || paused !== 0) process.exitCode = 1;
}

async function startRedis(): Promise<{ url: string; child: ChildProcess } | undefined> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const ready = await new Promise<boolean>((resolve) => {
    child.once('error', () => resolve(false)); // not installed
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('Ready to accept') && resolve(true));
  });
  child.stdout!.resume();
  return ready ? { url: `redis://127.0.0.1:${port}`, child } : undefined;
}
