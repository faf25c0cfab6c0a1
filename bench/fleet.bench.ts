/**
 * Fleet mode (issue: one provider quota shared by many processes, on Redis).
 * 1. Per-call overhead on the no-fault path: one pool alone against one pool in fleet mode
 *    (its endpoint's quota far above the load, so leases are taken but never bind), 64 calls
 *    in flight against the same loopback server (a separate process); rounds alternate the
 *    order; reported as the median ratio of throughput, with Redis commands per 1 000 calls.
 * 2. Server-observed peak rate against the quota: 4 fleet members (each its own Redis
 *    connection, member id and pool) drive one loopback server whose endpoint has a quota of
 *    `quota` req/s; the server stamps every arrival; reported: the busiest 1 s window after the
 *    first second, against the quota and the bound (quota + one lease per member).
 * Needs `redis-server` on PATH; without it the section says so and measures nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { Redis } from 'ioredis';
import { createRedisFleet, leaseSizeOf, type RedisFleet } from '../src/fleet/index.js';
import { HttpTransportPool } from '../src/pool/http-transport-pool.js';
import { startFaultServer } from './fault-control.js';
import { gc, table } from './util.js';

export interface FleetBenchOptions {
  readonly durationMs: number;
  readonly rounds: number;
  readonly quota: number;
  readonly quotaRunMs: number;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function startRedis(): Promise<{ url: string; child: ChildProcess } | undefined> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const started = await new Promise<boolean>((resolve) => {
    child.once('error', () => resolve(false));
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('Ready to accept') && resolve(true));
    setTimeout(() => resolve(false), 10_000);
  });
  child.stdout!.resume();
  if (!started) {
    child.kill('SIGKILL');
    return undefined;
  }
  return { url: `redis://127.0.0.1:${port}`, child };
}

async function client(url: string): Promise<Redis> {
  const redis = new Redis(url, { enableOfflineQueue: false });
  await new Promise((resolve) => redis.once('ready', resolve));
  return redis;
}

async function evalCalls(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  let calls = 0;
  for (const match of info.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)) calls += Number(match[1]);
  return calls;
}

async function throughput(pool: HttpTransportPool, inFlight: number, durationMs: number): Promise<number> {
  gc?.();
  let calls = 0;
  const end = performance.now() + durationMs;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        await pool.request('eth_blockNumber', []);
        calls++;
      }
    }),
  );
  return calls / ((performance.now() - started) / 1000);
}

export async function benchFleet(options: FleetBenchOptions): Promise<{ results: unknown; markdown: string }> {
  const redis = await startRedis();
  if (!redis) return { results: { skipped: 'redis-server not installed' }, markdown: '_skipped: `redis-server` is not on PATH (apt-get install -y redis-server, or Docker `redis:7`)_' };
  const fleets: RedisFleet[] = [];
  const clients: Redis[] = [];
  try {
    // 1. Overhead on the no-fault path.
    const server = await startFaultServer(1);
    await server.configure({ baseDelayMs: 0, ports: [] });
    const endpoint = { id: 'node', url: server.urls[0]!, tier: 0, requestsPerSecond: 1_000_000, burstCapacity: 1_000_000, maxConcurrentRequests: 64 };
    const alone = new HttpTransportPool({ endpoints: [endpoint], hedge: false, coalesce: false });
    const admin = await client(redis.url);
    clients.push(admin);
    const fleetClient = await client(redis.url);
    clients.push(fleetClient);
    const fleet = createRedisFleet({ redis: fleetClient, namespace: 'bench' });
    fleets.push(fleet);
    const inFleet = new HttpTransportPool({ endpoints: [endpoint], hedge: false, coalesce: false, fleet });
    await throughput(alone, 64, 300);
    await throughput(inFleet, 64, 300);
    const ratios: number[] = [];
    let aloneBest = 0;
    let fleetBest = 0;
    let fleetCalls = 0;
    let redisCalls = 0;
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 === 0 ? ['alone', 'fleet'] : ['fleet', 'alone'];
      const rate: Record<string, number> = {};
      for (const which of order) {
        const before = await evalCalls(admin);
        const perSecond = await throughput(which === 'alone' ? alone : inFleet, 64, options.durationMs);
        if (which === 'fleet') {
          redisCalls += (await evalCalls(admin)) - before;
          fleetCalls += perSecond * (options.durationMs / 1000);
        }
        rate[which] = perSecond;
      }
      aloneBest = Math.max(aloneBest, rate['alone']!);
      fleetBest = Math.max(fleetBest, rate['fleet']!);
      ratios.push(rate['fleet']! / rate['alone']!);
    }
    await alone.close();
    await inFleet.close();
    await server.stop();
    ratios.sort((a, b) => a - b);
    const medianRatio = ratios[Math.floor(ratios.length / 2)]!;
    // Every Redis command of the run (leases, polls, heartbeats), per 1 000 calls.
    const redisPerThousand = (redisCalls / Math.max(1, fleetCalls)) * 1000;

    // 2. Server-observed peak rate against the quota.
    const arrivals: number[] = [];
    const quotaServer = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        arrivals.push(performance.now());
        const id = (JSON.parse(body) as { id: unknown }).id;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: '0x1' }));
      });
    });
    await new Promise<void>((resolve) => quotaServer.listen(0, '127.0.0.1', resolve));
    const quotaUrl = `http://127.0.0.1:${(quotaServer.address() as net.AddressInfo).port}/`;
    const members = 4;
    const pools: HttpTransportPool[] = [];
    for (let i = 0; i < members; i++) {
      const memberClient = await client(redis.url);
      clients.push(memberClient);
      const memberFleet = createRedisFleet({ redis: memberClient, namespace: 'bench-quota', memberId: `member-${i}` });
      fleets.push(memberFleet);
      pools.push(new HttpTransportPool({ endpoints: [{ id: 'quota', url: quotaUrl, tier: 0, requestsPerSecond: options.quota, burstCapacity: options.quota }], hedge: false, coalesce: false, fleet: memberFleet }));
    }
    const started = performance.now();
    const end = started + options.quotaRunMs;
    await Promise.all(
      pools.flatMap((pool) =>
        Array.from({ length: 16 }, async () => {
          while (performance.now() < end) await pool.request('eth_blockNumber', [], { timeoutMs: 5_000 }).catch(() => undefined);
        }),
      ),
    );
    for (const pool of pools) await pool.close();
    await new Promise<void>((resolve) => quotaServer.close(() => resolve()));
    let peak = 0;
    for (let from = started + 1_000; from + 1_000 <= end; from += 10) {
      peak = Math.max(peak, arrivals.filter((t) => t >= from && t < from + 1_000).length);
    }
    const sustained = arrivals.filter((t) => t >= started + 1_000 && t < end).length / ((end - started - 1_000) / 1000);
    const lease = leaseSizeOf(options.quota, options.quota, 100);
    const bound = options.quota + members * lease;

    const results = {
      overhead: { aloneCallsPerSecond: aloneBest, fleetCallsPerSecond: fleetBest, medianRatio, ratios, redisCommandsPerThousandCalls: redisPerThousand },
      quota: { quota: options.quota, members, lease, bound, peakPerSecond: peak, sustainedPerSecond: sustained },
    };
    const markdown = [
      table(
        ['64 in flight, one loopback node', 'calls/s (best round)', 'median ratio to alone', 'Redis commands per 1 000 calls'],
        [
          ['pool alone', aloneBest.toFixed(0), '1.00×', '0'],
          ['pool in fleet mode (leases never bind)', fleetBest.toFixed(0), `${medianRatio.toFixed(2)}×`, redisPerThousand.toFixed(1)],
        ],
      ),
      '',
      table(
        ['4 fleet members, quota', 'lease (tokens)', 'bound: quota + 4 leases', 'peak 1 s window after the first (server)', 'sustained after the first second'],
        [[`${options.quota} req/s`, lease, bound, peak, `${sustained.toFixed(1)} req/s (${((sustained / options.quota) * 100).toFixed(0)} %)`]],
      ),
    ].join('\n');
    return { results, markdown };
  } finally {
    await Promise.all(fleets.map((f) => f.close()));
    for (const c of clients) c.disconnect();
    redis.child.kill('SIGKILL');
  }
}
