import type { Redis } from 'ioredis';
import { afterEach } from 'vitest';
import type { RedisFleet } from '../../src/fleet/index.js';
import type { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { closeAllServers } from './loopback.js';
import { stopRedisServers } from './redis-server.js';

/** The clients, fleets and pools a real-Redis test makes, closed after each test with the loopback nodes and redis-servers. */
export function trackedFleetParts(): { readonly clients: Redis[]; readonly fleets: RedisFleet[]; readonly pools: HttpTransportPool[] } {
  const clients: Redis[] = [];
  const fleets: RedisFleet[] = [];
  const pools: HttpTransportPool[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.close()));
    await Promise.all(fleets.splice(0).map((fleet) => fleet.close()));
    for (const client of clients.splice(0)) client.disconnect();
    await closeAllServers();
    await stopRedisServers();
  });
  return { clients, fleets, pools };
}
