import { Redis, type RedisOptions } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import type { EndpointConfig } from '../../src/config/types.js';
import { createRedisFleet } from '../../src/fleet/index.js';
import type { FleetEvent } from '../../src/api/events.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { startRpcServer } from '../helpers/loopback.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { describeWithBinary } from '../helpers/system-binary.js';
import { trackedFleetParts } from '../helpers/fleet-parts.js';

/**
 * A Redis that answers but refuses: out of memory under `noeviction`, a read-only replica, a
 * client it does not let in. Real `redis-server`s, a real ioredis client, a loopback node that
 * counts what reaches it. Such a Redis is down for the fleet: the local share serves, and the
 * mode does not flip back on every read it still answers.
 */

describeWithBinary('redis-server', 'apt-get install -y redis-server', 'fleet mode on a redis-server that refuses writes or the client', (binary) => {
  const { clients, fleets, pools } = trackedFleetParts();

  async function client(server: RedisServer, extra: RedisOptions = {}): Promise<Redis> {
    const redis = new Redis(server.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 50, ...extra });
    redis.on('error', () => undefined);
    clients.push(redis);
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    return redis;
  }

  /** One member on `redis` against a counting node: quota 20/s, 2 members expected, so a local share of 10/s. */
  async function member(redis: Redis) {
    const arrivals: number[] = [];
    const node = await startRpcServer((request, { res }) => {
      arrivals.push(performance.now());
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: 1 }));
    });
    const endpoints: EndpointConfig[] = [{ id: 'q', url: node.url, tier: 0, requestsPerSecond: 20, burstCapacity: 20, kinds: ['read'] }];
    const fleet = createRedisFleet({ redis, namespace: 'refusals', expectedMembers: 2 });
    fleets.push(fleet);
    const pool = new HttpTransportPool({ endpoints, fleet, hedge: false, coalesce: false });
    pools.push(pool);
    const events: FleetEvent[] = [];
    pool.on('fleet', (event) => events.push(event));
    const modes = () => events.flatMap((e) => (e.type === 'mode' ? [[e.mode, e.reason]] : []));
    return { fleet, pool, arrivals, modes };
  }

  /** Four callers for `ms`; returns how many calls failed (every call has a 1 s deadline). */
  async function hammer(pool: HttpTransportPool, ms: number): Promise<number> {
    const end = performance.now() + ms;
    let failed = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (performance.now() < end) {
          await pool.request('getSlot', [], { timeoutMs: 1_000 }).catch(async () => {
            failed++;
            await sleep(10);
          });
        }
      }),
    );
    return failed;
  }

  const perSecond = (arrivals: number[], from: number, to: number) => arrivals.filter((t) => t >= from && t < to).length / ((to - from) / 1_000);

  async function expectLocalShareServes(redis: Redis): Promise<void> {
    const m = await member(redis);
    const started = performance.now();
    const failed = await hammer(m.pool, 3_000);
    // The local share, 10/s from an empty bucket: every second after the first holds about 10 (it was 0–0.5/s).
    const rate = perSecond(m.arrivals, started + 1_000, started + 3_000);
    console.log(`refused writes: ${rate.toFixed(1)} req/s reached the node (local share 10/s), ${m.modes().length} mode change(s), ${failed} failed calls`);
    expect(rate).toBeGreaterThanOrEqual(8);
    expect(rate).toBeLessThanOrEqual(11);
    // One change, and it stays there: the reads Redis still answers never bring shared mode back.
    expect(m.modes()).toEqual([['local', 'refused']]);
    expect(m.fleet.status()).toMatchObject({ mode: 'local', reason: 'refused', members: 2 });
  }

  it('a Redis out of memory (maxmemory + noeviction) is down for the fleet: the local share serves, no flapping', async () => {
    const server = await startRedisServer(binary, ['--maxmemory', '1mb', '--maxmemory-policy', 'noeviction']);
    const redis = await client(server);
    const big = 'x'.repeat(64 * 1024);
    let full = false;
    for (let i = 0; i < 64 && !full; i++) await redis.set(`fill:${i}`, big).catch((error: Error) => (full = error.message.startsWith('OOM')));
    expect(full).toBe(true);
    await expectLocalShareServes(redis);
  }, 20_000);

  it('a read-only replica is down for the fleet: the local share serves, no flapping', async () => {
    const primary = await startRedisServer(binary);
    const replica = await startRedisServer(binary, ['--replicaof', '127.0.0.1', String(primary.port)]);
    const redis = await client(replica);
    await expect(redis.set('probe', '1')).rejects.toThrow(/^READONLY/);
    await expectLocalShareServes(redis);
  }, 20_000);

  it('NOAUTH and NOPERM answers are reported with reason auth, not unreachable or error', async () => {
    const locked = await startRedisServer(binary, ['--requirepass', 'fleet-test-pw']);
    // Without the ready check the client is `ready` on connect, and every command is answered NOAUTH.
    const anonymous = await client(locked, { enableReadyCheck: false });
    const a = await member(anonymous);
    await a.pool.request('getSlot', [], { timeoutMs: 2_000 });
    expect(a.modes()).toEqual([['local', 'auth']]);

    const open = await startRedisServer(binary);
    const admin = await client(open);
    const b = await member(await client(open));
    await b.pool.request('getSlot', [], { timeoutMs: 2_000 });
    // An ACL that no longer lets this user run scripts: NOPERM.
    await admin.call('ACL', 'SETUSER', 'default', '-@scripting');
    for (let i = 0; i < 100 && b.modes().length === 0; i++) await sleep(20);
    expect(b.modes()).toEqual([['local', 'auth']]);
    // Never the secret in what the pool reports.
    const reported = JSON.stringify([a.modes(), a.fleet.status(), a.pool.snapshot()], (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value));
    expect(reported).not.toContain('fleet-test-pw');
  }, 20_000);
});
