import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EndpointConfig } from '../../src/config/types.js';
import { TransportError } from '../../src/errors/transport-error.js';
import { createRedisFleet, type RedisFleet } from '../../src/fleet/index.js';
import type { FleetEvent } from '../../src/api/events.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { closeAllServers, startRpcServer, type RpcServer } from '../helpers/loopback.js';
import { createScriptedExecutor } from '../helpers/scripted-executor.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { describeWithBinary } from '../helpers/system-binary.js';
import { reachableSpecifiers } from '../helpers/import-graph.js';

describe('createRedisFleet: configuration', () => {
  const client = { status: 'ready', evalsha: async () => 1, eval: async () => 1 };
  const configError = (options: unknown): TransportError => {
    try {
      createRedisFleet(options as never);
    } catch (error) {
      if (error instanceof TransportError) return error;
      throw error;
    }
    throw new Error('expected INVALID_CONFIG');
  };

  it('requires a namespace, so two deployments on one Redis never share a quota by accident', () => {
    const error = configError({ redis: client });
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.message).toMatch(/^Invalid fleet configuration: namespace: is required/);
  });

  it('rejects a namespace that is not a plain name, a client that is not one, and unknown or bad settings, without echoing values', () => {
    expect(configError({ redis: client, namespace: 'bot prod/https://key@x' }).message).toBe(
      'Invalid fleet configuration: namespace: must be 1–64 characters of A–Z a–z 0–9 . _ -',
    );
    expect(configError({ redis: 'redis://:secret@127.0.0.1', namespace: 'a' }).message).toMatch(/redis: must be an ioredis client/);
    expect(configError({ redis: client, namespace: 'a', commandTimeoutMs: 0 }).message).toMatch(/commandTimeoutMs: must be > 0/);
    expect(configError({ redis: client, namespace: 'a', leaseTokens: 5 }).message).toMatch(/unknown option \(leaseTokens\)/);
    expect(configError({ redis: client, namespace: 'bot prod/https://key@x' }).message).not.toMatch(/key@x/);
  });

  it('the pool rejects a fleet option that is not a fleet', () => {
    expect(() => new HttpTransportPool({ endpoints: [{ url: 'https://a.example.com', tier: 0 }], fleet: {} as never })).toThrow(/fleet: must be a fleet/);
  });

  it("the main entry's import graph has no ioredis and no Redis or fleet code (the shared read cache included); sturdy-rpc/fleet imports no ioredis at run time either", () => {
    const main = [...reachableSpecifiers('index.ts')];
    expect(main.length).toBeGreaterThan(10);
    expect(main.filter((s) => s === 'ioredis' || s.includes('redis') || s.includes('fleet') || s.includes('shared-read') || s === 'node:crypto')).toEqual([]);
    const fleet = [...reachableSpecifiers('fleet/index.ts')];
    expect(fleet).toContain('./redis-fleet.js');
    expect(fleet).toContain('./shared-read-cache.js');
    expect(fleet.filter((s) => s === 'ioredis')).toEqual([]);
  });
});

describeWithBinary('redis-server', 'apt-get install -y redis-server', 'fleet mode on a real redis-server (in one process)', (binary) => {
  let redisServer: RedisServer;
  const clients: Redis[] = [];
  const fleets: RedisFleet[] = [];
  const pools: HttpTransportPool[] = [];

  beforeAll(async () => {
    redisServer = await startRedisServer(binary);
  }, 20_000);
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.close()));
    await Promise.all(fleets.splice(0).map((fleet) => fleet.close()));
    for (const client of clients.splice(0)) client.disconnect();
    await closeAllServers();
  });
  afterAll(async () => {
    await redisServer?.stop();
  });

  async function client(): Promise<Redis> {
    const redis = new Redis(redisServer.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
    redis.on('error', () => undefined);
    clients.push(redis);
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    return redis;
  }

  async function member(namespace: string, endpoints: EndpointConfig[], extra: { commandTimeoutMs?: number } = {}) {
    const fleet = createRedisFleet({ redis: await client(), namespace, ...extra });
    fleets.push(fleet);
    const pool = new HttpTransportPool({ endpoints, fleet, hedge: false });
    pools.push(pool);
    const events: FleetEvent[] = [];
    pool.on('fleet', (event) => events.push(event));
    return { fleet, pool, events };
  }

  async function hammer(pools: HttpTransportPool[], ms: number, concurrency = 4): Promise<void> {
    const end = performance.now() + ms;
    await Promise.all(
      pools.flatMap((pool) =>
        Array.from({ length: concurrency }, async () => {
          while (performance.now() < end) await pool.request('getSlot', [], { timeoutMs: 3_000 }).catch(() => sleep(10));
        }),
      ),
    );
  }

  const counter = async (): Promise<RpcServer> => startRpcServer((request, { res }) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: 1 })));

  it('two members share one bucket in Redis: the server sees the quota, not twice it', async () => {
    const server = await counter();
    const endpoints: EndpointConfig[] = [{ id: 'q', url: server.url, tier: 0, requestsPerSecond: 20, burstCapacity: 20, kinds: ['read'] }];
    const a = await member('shared-quota', endpoints);
    const b = await member('shared-quota', endpoints);
    const started = performance.now();
    await hammer([a.pool, b.pool], 1_500);
    const elapsedS = (performance.now() - started) / 1_000;
    // Burst 20 + 20/s, plus at most one lease (2 tokens) per member; alone, each would send that much.
    expect(server.count()).toBeLessThanOrEqual(20 + 20 * elapsedS + 2 * 2);
    expect(server.count()).toBeGreaterThanOrEqual(0.9 * (20 + 20 * 1.5));
  });

  it('two namespaces on one Redis do not touch each other: each has its own quota and cooldowns', async () => {
    const server = await counter();
    const endpoints: EndpointConfig[] = [{ id: 'q', url: server.url, tier: 0, requestsPerSecond: 10, burstCapacity: 10, kinds: ['read'] }];
    const blue = await member('blue', endpoints);
    const green = await member('green', endpoints);
    const limited = createScriptedExecutor({ q: [{ type: 'response', status: 429, headers: { 'retry-after': '5' }, body: '' }] });
    const blueSender = new HttpTransportPool({ endpoints, fleet: fleets[0]!, executor: limited, hedge: false, retry: { maxRetries: 0 } });
    pools.push(blueSender);
    await blueSender.request('getSlot', [], { timeoutMs: 500 }).catch(() => undefined);
    await sleep(300);
    expect(blue.events).toContainEqual(expect.objectContaining({ type: 'adopted', topic: 'cooldown' }));
    expect(green.events.filter((e) => e.type === 'adopted')).toEqual([]);
    // Green still has its whole quota: 10 at once and 10/s.
    const before = server.count();
    await hammer([green.pool], 1_000);
    expect(server.count() - before).toBeGreaterThanOrEqual(17);
    await expect(blue.pool.request('getSlot', [], { timeoutMs: 300 })).rejects.toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('a frozen redis-server (SIGSTOP) holds no call past a few command timeouts; calls go on at the local share; SIGCONT brings shared mode back', async () => {
    const server = await counter();
    const endpoints: EndpointConfig[] = [{ id: 'q', url: server.url, tier: 0, requestsPerSecond: 100, burstCapacity: 1, kinds: ['read'] }];
    const a = await member('frozen', endpoints, { commandTimeoutMs: 40 });
    await hammer([a.pool], 300, 1);
    redisServer.pause();
    try {
      const timings: number[] = [];
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        await a.pool.request('getSlot', [], { timeoutMs: 1_000 });
        timings.push(performance.now() - started);
      }
      // One call waits out at most three 40 ms timeouts (three misses turn it local, plus a loaded machine's slack); none waits on Redis after.
      expect(Math.max(...timings)).toBeLessThan(500);
      expect(a.events).toContainEqual(expect.objectContaining({ type: 'mode', mode: 'local', reason: 'timeout' }));
    } finally {
      redisServer.resume();
    }
    const resumed = performance.now();
    while (!a.events.some((e) => e.type === 'mode' && e.mode === 'shared') && performance.now() - resumed < 5_000) await sleep(20);
    expect(a.events.filter((e) => e.type === 'mode').map((e) => e.type === 'mode' && e.mode)).toEqual(['local', 'shared']);
  });

  it("keeps a credit plan's month in Redis: one total for both members, kept past a restart, with a TTL", async () => {
    const server = await counter();
    const endpoints: EndpointConfig[] = [{ id: 'paid', url: server.url, tier: 0, kinds: ['read'], plan: { creditsPerSecond: 500, creditsPerMonth: 1_000_000 }, cost: { getSlot: 2.5 } }];
    const a = await member('credits', endpoints);
    const b = await member('credits', endpoints);
    await hammer([a.pool, b.pool], 600, 2);
    await Promise.all([a.pool.close(), b.pool.close()]);
    await sleep(100);
    const redis = await client();
    const [key, ...others] = await redis.keys('sturdy-rpc:{credits}:credits:*');
    expect(others).toEqual([]);
    // Fractional costs add up exactly: 2.5 credits for each request the server received.
    expect(Number(await redis.get(key!))).toBe(server.count() * 2.5);
    expect(await redis.pttl(key!)).toBeGreaterThan(30 * 86_400_000);
    // A restarted member starts from the fleet's month.
    const c = await member('credits', endpoints);
    await sleep(100);
    expect(c.pool.snapshot().endpoints[0]!.credits?.spentThisMonth).toBe(server.count() * 2.5);
  });

  it('stores no URL, host, path, query or credential in Redis: only hashes', async () => {
    const secrets = ['sk-sub-8c1f', 'PATHKEY9d2e', 'QUERYKEY7a3b', 'userinfo-pass-41c0'];
    const endpoints: EndpointConfig[] = [
      {
        id: 'leaky',
        url: `https://user:${secrets[3]}@${secrets[0]}.rpc.example.com/v2/${secrets[1]}?key=${secrets[2]}`,
        tier: 0,
        requestsPerSecond: 10,
        burstCapacity: 10,
        plan: { creditsPerSecond: 1_000, creditsPerMonth: 1_000_000 },
      },
      { id: 'backup', url: `https://backup.example.org/${secrets[1]}`, tier: 1 },
    ];
    const executor = createScriptedExecutor({
      leaky: [
        { type: 'response', status: 429, headers: { 'retry-after': '30' }, body: '' },
        { type: 'response', status: 200, headers: { 'content-type': 'text/html' }, body: '<html>denied</html>' },
      ],
    });
    const fleet = createRedisFleet({ redis: await client(), namespace: 'secrets' });
    fleets.push(fleet);
    const pool = new HttpTransportPool({ endpoints, fleet, executor, hedge: false, expectedChain: { chainId: 1 } });
    pools.push(pool);
    for (let i = 0; i < 8; i++) await pool.request('eth_blockNumber', [], { timeoutMs: 300 }).catch(() => undefined);
    await sleep(200);
    const redis = await client();
    const keys = await redis.keys('*');
    expect(keys.some((key) => key.includes(':fact:cooldown:'))).toBe(true);
    expect(keys.some((key) => /:credits:[0-9a-f]{32}:\d{4}-\d{2}$/.test(key))).toBe(true);
    const dump: string[] = [...keys];
    for (const key of keys) {
      const type = await redis.type(key);
      if (type === 'string') dump.push(String(await redis.get(key)));
      else if (type === 'hash') dump.push(JSON.stringify(await redis.hgetall(key)));
      else if (type === 'zset') dump.push(JSON.stringify(await redis.zrange(key, 0, -1)));
      else if (type === 'stream') dump.push(JSON.stringify(await redis.xrange(key, '-', '+')));
    }
    const text = dump.join('\n');
    for (const secret of [...secrets, 'rpc.example.com', 'example.org', 'https://']) expect(text).not.toContain(secret);
  });

  it('a lagging endpoint one member saw is excluded by another that never asked it; the head fact in Redis is a hash and a decimal', async () => {
    const ids = ['x', 'y', 'z'];
    const endpoints: EndpointConfig[] = ids.map((id) => ({ id, url: `https://user:pw-${id}@${id}.rpc.example.com/KEY-${id}?k=QK` }));
    const heads: Record<string, number> = { x: 5_000, y: 5_000, z: 4_000 };
    const executorOf = () => {
      const executor = createScriptedExecutor();
      for (const id of ids) executor.script(id, (_request, rpcId) => ({ type: 'response', status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: rpcId, result: heads[id] }) }));
      return executor;
    };
    const pool = (fleet: RedisFleet, executor: ReturnType<typeof executorOf>, health: { probeAll?: boolean; probeIntervalMs?: number }) => {
      const created = new HttpTransportPool({ endpoints, chain: 'solana', fleet, executor, health, hedge: false, coalesce: false, concentration: { maxOperatorShare: 0 } });
      pools.push(created);
      return created;
    };
    const fleetA = createRedisFleet({ redis: await client(), namespace: 'heads' });
    const fleetB = createRedisFleet({ redis: await client(), namespace: 'heads' });
    fleets.push(fleetA, fleetB);
    const executorA = executorOf();
    const executorB = executorOf();
    // A probes every endpoint (a head of each, whichever its calls favour); B sends nothing at all.
    const a = pool(fleetA, executorA, { probeAll: true, probeIntervalMs: 50 });
    const b = pool(fleetB, executorB, {});
    const stateOf = (p: HttpTransportPool) => p.snapshot().endpoints.find((e) => e.endpointId === 'z')!.health;
    // B's first poll sets its place in the fact log (one poll interval after joining): A starts after it.
    await sleep(200);
    for (let i = 0; i < 100 && stateOf(a) !== 'lagging'; i++) await a.request('getSlot', [], { timeoutMs: 1_000 }).then(() => sleep(10));
    expect(stateOf(a)).toBe('lagging');
    // Read at once: a head fact lives 1 s in Redis.
    const redis = await client();
    const headKeys = await redis.keys('sturdy-rpc:{heads}:fact:head:*');
    expect(headKeys.length).toBeGreaterThanOrEqual(1);
    for (const key of headKeys) {
      expect(key).toMatch(/^sturdy-rpc:\{heads\}:fact:head:[0-9a-f]{32}$/);
      const stored = await redis.get(key);
      if (stored !== null) expect((JSON.parse(stored) as { data: unknown }).data).toEqual({ quantity: 'slot', head: expect.stringMatching(/^(5000|4000)$/) });
    }
    // B never asked z (B sent nothing at all): it judges z from A's heads.
    const seen = performance.now();
    while (stateOf(b) !== 'lagging' && performance.now() - seen < 3_000) await sleep(10);
    expect(stateOf(b)).toBe('lagging');
    expect(executorB.received).toEqual([]);
  });

  it("leaves the caller's client as it found it: no listener added, still connected after pool.close() and fleet.close()", async () => {
    const redis = await client();
    const listeners = () => redis.eventNames().map((name) => `${String(name)}:${redis.listenerCount(name)}`);
    const before = listeners();
    const fleet = createRedisFleet({ redis, namespace: 'owner' });
    const pool = new HttpTransportPool({ endpoints: [{ url: (await counter()).url, tier: 0, requestsPerSecond: 5 }], fleet });
    await pool.request('getSlot');
    expect(listeners()).toEqual(before);
    await pool.close();
    await fleet.close();
    expect(redis.status).toBe('ready');
    expect(await redis.ping()).toBe('PONG');
    expect(await redis.zrange('sturdy-rpc:{owner}:members', 0, -1)).toEqual([]);
  });
});
