/**
 * `sturdy-rpc/fleet`: fleet mode on Redis. `ioredis` is an optional peer: the caller creates
 * the client and passes it in; nothing here imports it, and the main entry never imports this.
 *
 * @module sturdy-rpc/fleet
 */
export { createRedisFleet, type CreateRedisFleetOptions, type RedisFleet } from './redis-fleet.js';
export type { FleetRedisClient } from './redis-backend.js';
export { leaseSizeOf, localShareOf } from './lease-bucket.js';
export { wireFleet } from '../parts/fleet-wiring.js';
export type {
  FleetBucketSpec,
  FleetFact,
  FleetJoinOptions,
  FleetMembership,
  FleetMode,
  FleetPoolWiring,
  FleetReads,
  FleetStatus,
  FleetTopic,
  PoolFleet,
  StoredRead,
} from './types.js';
