import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import type { EndpointConfig } from '../../src/config/types.js';
import { createRedisFleet } from '../../src/fleet/index.js';
import type { FleetRedisClient } from '../../src/fleet/redis-backend.js';
import type { FleetEvent } from '../../src/api/events.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { startRpcServer } from '../helpers/loopback.js';
import { startRedisServer } from '../helpers/redis-server.js';
import { describeWithBinary } from '../helpers/system-binary.js';
import { trackedFleetParts } from '../helpers/fleet-parts.js';

/**
 * A busy host: this process's event loop is blocked (a CPU-bound caller) right after a fleet
 * command went out, longer than `commandTimeoutMs`. Redis answered in well under a
 * millisecond; the answer only waits in the socket. Judged by its own latency, Redis is fine:
 * the fleet must not go local (and empty the shared bucket for everyone when it comes back).
 */

/** Blocks the event loop: the busy caller of a loaded host. */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // spinning on purpose
  }
}

describeWithBinary('redis-server', 'apt-get install -y redis-server', 'fleet mode under event-loop lag (real redis-server)', (binary) => {
  const { clients, fleets, pools } = trackedFleetParts();

  it('a loop blocked 120 ms after a command was sent (timeout 50 ms) turns nothing local: 14 times in a row, no mode change', async () => {
    const server = await startRedisServer(binary);
    const redis = new Redis(server.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
    redis.on('error', () => undefined);
    clients.push(redis);
    await new Promise((resolve) => redis.once('ready', resolve));
    // The caller's client, as the fleet sees it; the loop is blocked right after a command is written.
    let blockNext = false;
    let blocked = 0;
    const afterSend = <T>(sent: Promise<T>): Promise<T> => {
      if (blockNext) {
        blockNext = false;
        blocked++;
        busy(120);
      }
      return sent;
    };
    const lagging: FleetRedisClient = {
      get status() {
        return redis.status;
      },
      evalsha: (sha, numKeys, ...args) => afterSend(redis.evalsha(sha, numKeys, ...args)),
      eval: (script, numKeys, ...args) => afterSend(redis.eval(script, numKeys, ...args)),
    };
    const fleet = createRedisFleet({ redis: lagging, namespace: 'lag', commandTimeoutMs: 50 });
    fleets.push(fleet);
    let arrivals = 0;
    const node = await startRpcServer((request, { res }) => {
      arrivals++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: 1 }));
    });
    const endpoints: EndpointConfig[] = [{ id: 'q', url: node.url, tier: 0, requestsPerSecond: 100, burstCapacity: 10, kinds: ['read'] }];
    const pool = new HttpTransportPool({ endpoints, fleet, hedge: false, coalesce: false });
    pools.push(pool);
    const events: FleetEvent[] = [];
    pool.on('fleet', (event) => events.push(event));
    await pool.request('getSlot');
    for (let i = 0; i < 14; i++) {
      blockNext = true;
      // A few calls: leases, polls and heartbeats go out meanwhile, and the next one blocks the loop.
      for (let c = 0; c < 5; c++) await pool.request('getSlot', [], { timeoutMs: 2_000 });
    }
    expect(blocked).toBeGreaterThanOrEqual(13);
    expect(arrivals).toBe(1 + 14 * 5);
    expect(events.filter((e) => e.type === 'mode')).toEqual([]);
    expect(fleet.status()).toMatchObject({ mode: 'shared' });
  }, 20_000);
});
