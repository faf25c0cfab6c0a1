import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, expect, it } from 'vitest';
import type { EndpointConfig } from '../../src/config/types.js';
import { createRedisFleet, type RedisFleet } from '../../src/fleet/index.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { closeAllServers, startRpcServer } from '../helpers/loopback.js';
import { startRedisServer, stopRedisServers, type RedisServer } from '../helpers/redis-server.js';
import { describeWithBinary } from '../helpers/system-binary.js';

/**
 * The member count behind the local share, when Redis goes away while the count is uncertain:
 * right after a `FLUSHALL` (the members set is rebuilt one heartbeat at a time: 1, 2, 3, 4)
 * and right after start-up. Four members in this process on a real `redis-server`, one
 * loopback node counting what reaches it: the fleet's local shares must add up to the quota.
 */

const MEMBERS = 4;
const RPS = 40;

describeWithBinary('redis-server', 'apt-get install -y redis-server', 'fleet member count when it is uncertain (real redis-server)', (binary) => {
  const clients: Redis[] = [];
  const fleets: RedisFleet[] = [];
  const pools: HttpTransportPool[] = [];
  let stopping = false;

  afterEach(async () => {
    stopping = true;
    await Promise.all(pools.splice(0).map((pool) => pool.close()));
    await Promise.all(fleets.splice(0).map((fleet) => fleet.close()));
    for (const client of clients.splice(0)) client.disconnect();
    await closeAllServers();
    await stopRedisServers();
  });

  async function client(server: RedisServer): Promise<Redis> {
    const redis = new Redis(server.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
    redis.on('error', () => undefined);
    clients.push(redis);
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    return redis;
  }

  /** Four members driving one 40/s quota (4 callers each) until the test ends; returns arrival instants at the node. */
  async function fleetOfFour(server: RedisServer, namespace: string) {
    stopping = false;
    const arrivals: number[] = [];
    const node = await startRpcServer((request, { res }) => {
      arrivals.push(performance.now());
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: 1 }));
    });
    const endpoints: EndpointConfig[] = [{ id: 'q', url: node.url, tier: 0, requestsPerSecond: RPS, burstCapacity: RPS, kinds: ['read'] }];
    const members: { fleet: RedisFleet; pool: HttpTransportPool }[] = [];
    for (let i = 0; i < MEMBERS; i++) {
      const fleet = createRedisFleet({ redis: await client(server), namespace, memberId: `m${i}` });
      const pool = new HttpTransportPool({ endpoints, fleet, hedge: false, coalesce: false });
      fleets.push(fleet);
      pools.push(pool);
      members.push({ fleet, pool });
      for (let c = 0; c < 4; c++) {
        void (async () => {
          while (!stopping) await pool.request('getSlot', [], { timeoutMs: 1_000 }).catch(() => sleep(10));
        })();
      }
    }
    return { arrivals, members };
  }

  const count = (arrivals: number[], from: number, to: number) => arrivals.filter((t) => t >= from && t < to).length;

  /** Redis is gone: from the second second on, the node sees the fleet's local shares added up (they start empty). */
  async function expectSharesAddUpToTheQuota(arrivals: number[], members: { fleet: RedisFleet }[], killedAt: number, label: string): Promise<void> {
    await sleep(3_000);
    const sent = count(arrivals, killedAt + 1_000, killedAt + 3_000);
    console.log(`${label}: ${(sent / 2).toFixed(1)} req/s reached the node after Redis stopped (quota ${RPS}/s); members assumed ${members.map((m) => m.fleet.status().members).join('/')}`);
    for (const m of members) expect(m.fleet.status()).toMatchObject({ mode: 'local', members: MEMBERS });
    // Four shares of 10/s: 80 in 2 s (it was 40 + 20 + 13.3 + 10 = 83/s, 167 in 2 s).
    expect(sent).toBeLessThanOrEqual(2 * RPS * 1.15);
    expect(sent).toBeGreaterThanOrEqual(2 * RPS * 0.8);
  }

  it('after FLUSHALL the members set is rebuilt one heartbeat at a time; Redis stopping then leaves every member at quota ÷ 4', async () => {
    const server = await startRedisServer(binary);
    const { arrivals, members } = await fleetOfFour(server, 'flushed');
    const admin = await client(server);
    await sleep(2_500);
    await admin.flushall();
    // Every member heartbeated once since: they read 1, 2, 3 and 4 members.
    const key = 'sturdy-rpc:{flushed}:members';
    for (let i = 0; i < 150 && (await admin.zcard(key)) < MEMBERS; i++) await sleep(10);
    expect(await admin.zcard(key)).toBe(MEMBERS);
    const killedAt = performance.now();
    await server.kill();
    await expectSharesAddUpToTheQuota(arrivals, members, killedAt, 'FLUSHALL then stop');
  }, 20_000);

  it('at start-up, before a full heartbeat period, Redis stopping leaves every member at quota ÷ expectedMembers, not ÷ the first count', async () => {
    const server = await startRedisServer(binary);
    const { arrivals, members } = await fleetOfFour(server, 'young');
    const admin = await client(server);
    // Each member's first heartbeat answered (they read 1, 2, 3, 4), none's second.
    const key = 'sturdy-rpc:{young}:members';
    for (let i = 0; i < 150 && (await admin.zcard(key)) < MEMBERS; i++) await sleep(10);
    expect(await admin.zcard(key)).toBe(MEMBERS);
    const killedAt = performance.now();
    await server.kill();
    await expectSharesAddUpToTheQuota(arrivals, members, killedAt, 'stop at start-up');
  }, 20_000);
});
