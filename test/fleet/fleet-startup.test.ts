import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FleetEvent } from '../../src/api/events.js';
import { createSeededRandom } from '../../src/clock.js';
import type { FleetCoordinator } from '../../src/fleet/coordinator.js';
import { createRedisFleet, type RedisFleet } from '../../src/fleet/index.js';
import { notReadyVerdict } from '../../src/fleet/start-up.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createFakeClock, type FakeClock } from '../../src/testing/fake-clock.js';
import { TransportError } from '../../src/errors/transport-error.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { createScriptedExecutor, ok } from '../helpers/scripted-executor.js';
import { describeWithBinary } from '../helpers/system-binary.js';
import { track } from '../pool/pool-fixtures.js';
import { createMemoryBackend, memoryFleet } from './memory-backend.js';

/**
 * A fleet whose Redis client is still connecting is starting, not out of reach: it takes the
 * local share under reason `starting` and turns shared (`ready`) when Redis answers; only a
 * client that never becomes ready within `readyTimeoutMs` is `unreachable`.
 */

const open: { pools: HttpTransportPool[]; fleets: (FleetCoordinator | RedisFleet)[]; clients: Redis[] } = { pools: [], fleets: [], clients: [] };
afterEach(async () => {
  await Promise.all(open.pools.splice(0).map((pool) => pool.close()));
  await Promise.all(open.fleets.splice(0).map((fleet) => fleet.close()));
  for (const client of open.clients.splice(0)) client.disconnect();
});

function poolOn(fleet: FleetCoordinator | RedisFleet, clock?: FakeClock) {
  const executor = createScriptedExecutor({ q: [(_request, id) => ok(1, id)] });
  const endpoints = [{ id: 'q', url: 'https://rpc.example.com/v2/KEY', tier: 0, requestsPerSecond: 40, burstCapacity: 40, kinds: ['read' as const] }];
  const pool = new HttpTransportPool({ endpoints, executor, fleet, hedge: false, coalesce: false, ...(clock ? { clock, random: createSeededRandom(3) } : {}) });
  const events: FleetEvent[] = [];
  pool.on('fleet', (event) => events.push(event));
  open.pools.push(pool);
  open.fleets.push(fleet);
  return { pool, events, modes: () => events.filter((e) => e.type === 'mode').map((e) => `${(e as { mode: string }).mode}/${(e as { reason: string }).reason}`) };
}

describe('fleet start-up (in-memory store, fake clock)', () => {
  it('a client that becomes ready inside readyTimeoutMs: local/starting, then shared/ready; never unreachable; calls served meanwhile', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    backend.set('down');
    const { pool, modes } = poolOn(memoryFleet(backend, clock, { memberId: 'a', readyTimeoutMs: 1_000 }), clock);
    await clock.advance(10);
    const call = track(pool.request('getSlot', []), clock);
    await clock.advance(300);
    expect(call.value).toBe(1);
    backend.set('up');
    // Shared again once writes have kept succeeding for a second (store-judge's proof), start-up or not.
    await clock.advance(1_500);
    expect(modes()).toEqual(['local/starting', 'shared/ready']);
  });

  it('a client never ready within readyTimeoutMs is then unreachable', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    backend.set('down');
    const { modes } = poolOn(memoryFleet(backend, clock, { memberId: 'a', readyTimeoutMs: 1_000 }), clock);
    await clock.advance(999);
    expect(modes()).toEqual(['local/starting']);
    await clock.advance(200);
    expect(modes()).toEqual(['local/starting', 'local/unreachable']);
  });

  it('the verdict: starting inside the window; past it, a starting process is renamed, a shared one judged unreachable', () => {
    expect(notReadyVerdict(999, 1_000, 'shared', 'started')).toBe('starting');
    expect(notReadyVerdict(1_000, 1_000, 'local', 'starting')).toBe('rename-unreachable');
    expect(notReadyVerdict(1_000, 1_000, 'shared', 'ready')).toBe('unreachable');
    expect(notReadyVerdict(5, Number.NEGATIVE_INFINITY, 'shared', 'ready')).toBe('unreachable');
  });

  it('readyTimeoutMs is validated: INVALID_CONFIG for a negative or non-number value', () => {
    const redis = { status: 'ready', evalsha: async () => 1, eval: async () => 1 };
    for (const readyTimeoutMs of [-1, Number.NaN, '5000']) {
      expect(() => createRedisFleet({ redis, namespace: 'a', readyTimeoutMs } as never)).toThrow(TransportError);
      try {
        createRedisFleet({ redis, namespace: 'a', readyTimeoutMs } as never);
      } catch (error) {
        expect((error as TransportError).code).toBe('INVALID_CONFIG');
        expect((error as TransportError).message).toMatch(/readyTimeoutMs: must be/);
      }
    }
  });
});

describeWithBinary('redis-server', 'apt-get install -y redis-server', 'fleet start-up on a real redis-server', (binary) => {
  let redisServer: RedisServer;
  beforeAll(async () => {
    redisServer = await startRedisServer(binary);
  }, 20_000);
  afterAll(async () => {
    await redisServer?.stop();
  });

  it('a fleet created on a client still connecting (no wait for ready in user code) never reports unreachable, and is shared within 2 s', async () => {
    const redis = new Redis(redisServer.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
    redis.on('error', () => undefined);
    open.clients.push(redis);
    expect(redis.status).not.toBe('ready');
    const fleet = createRedisFleet({ redis, namespace: 'startup' });
    const { pool, modes } = poolOn(fleet);
    await expect(pool.request('getSlot', [])).resolves.toBe(1);
    // Bounded: poll the fleet's status for at most 2 s.
    for (let i = 0; i < 40 && fleet.status().mode !== 'shared'; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fleet.status().mode).toBe('shared');
    expect(modes().filter((mode) => mode.endsWith('/unreachable'))).toEqual([]);
  });
});
