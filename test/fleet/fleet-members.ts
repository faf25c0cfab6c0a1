import type { EndpointConfig, HttpTransportPoolOptions } from '../../src/config/types.js';
import type { FleetCoordinator } from '../../src/fleet/coordinator.js';
import type { RawOutcome } from '../../src/http/executor.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import type { FleetEvent } from '../../src/api/events.js';
import type { FakeClock } from '../../src/testing/fake-clock.js';
import { createSeededRandom } from '../../src/clock.js';
import { createScriptedExecutor, ok, type Script } from '../helpers/scripted-executor.js';
import { memoryFleet, type MemoryBackend } from './memory-backend.js';

/**
 * Fleet mode, deterministic: two "processes" (two coordinators with their own member ids,
 * each with its own pool and executor) on one in-memory store with the Redis scripts'
 * semantics, on a fake clock. What each executor received, and when, is what the server saw.
 */

export interface Member {
  readonly pool: HttpTransportPool;
  readonly fleet: FleetCoordinator;
  readonly arrivals: { endpointId: string; atMs: number }[];
  readonly events: FleetEvent[];
  readonly failures: unknown[];
}

const open: { pools: HttpTransportPool[]; fleets: FleetCoordinator[] } = { pools: [], fleets: [] };

/** Stores left hanging by a failed test: released before closing, so close() is not held. */
export const backendsToRelease: MemoryBackend[] = [];

/** For `afterEach`: closes every member's pool and fleet. */
export async function closeMembers(): Promise<void> {
  for (const backend of backendsToRelease.splice(0)) backend.set('up');
  await Promise.all(open.pools.splice(0).map((pool) => pool.close()));
  await Promise.all(open.fleets.splice(0).map((fleet) => fleet.close()));
}

export function member(
  clock: FakeClock,
  backend: MemoryBackend,
  id: string,
  endpoints: EndpointConfig[],
  scripts: Record<string, Script> = {},
  extra: Partial<HttpTransportPoolOptions> & { expectedMembers?: number; leaseMs?: number } = {},
): Member {
  const { expectedMembers, leaseMs, ...options } = extra;
  const fleet = memoryFleet(backend, clock, { memberId: id, ...(expectedMembers ? { expectedMembers } : {}), ...(leaseMs ? { leaseMs } : {}) });
  const arrivals: Member['arrivals'] = [];
  const executor = createScriptedExecutor(
    Object.fromEntries(
      endpoints.map((e) => [
        e.id!,
        [
          (request, rpcId) => {
            arrivals.push({ endpointId: request.target.endpointId, atMs: clock.now() });
            const script = scripts[request.target.endpointId];
            // Every answer takes 5 ms of clock time, like a node on loopback.
            const answer = script === undefined ? ok(1, rpcId) : typeof script === 'function' ? script(request, rpcId) : script;
            return new Promise<RawOutcome>((resolve) => clock.setTimer(() => resolve(answer), 5));
          },
        ],
      ]),
    ),
  );
  // Every call is its own request here (the quota counts requests): identical concurrent reads are not coalesced.
  const pool = new HttpTransportPool({ endpoints, executor, clock, random: createSeededRandom(7), fleet, hedge: false, coalesce: false, ...options });
  const events: FleetEvent[] = [];
  pool.on('fleet', (event) => events.push(event));
  open.pools.push(pool);
  open.fleets.push(fleet);
  return { pool, fleet, arrivals, events, failures: [] };
}

/** Keeps `concurrency` calls in flight on each member until `untilMs`, advancing the clock in 5 ms steps. */
export async function drive(clock: FakeClock, members: Member[], untilMs: number, concurrency = 8, timeoutMs = 5_000): Promise<void> {
  const loops = members.flatMap((m) =>
    Array.from({ length: concurrency }, async () => {
      while (clock.now() < untilMs) {
        try {
          await m.pool.request('getSlot', [], { timeoutMs });
        } catch (error) {
          m.failures.push(error);
          await new Promise((resolve) => clock.setTimer(() => resolve(undefined), 10));
        }
      }
    }),
  );
  while (clock.now() < untilMs) await clock.advance(5);
  await clock.advance(timeoutMs);
  await Promise.all(loops);
}

export function inWindow(members: Member[], fromMs: number, toMs: number, endpointId?: string): number {
  return members.flatMap((m) => m.arrivals).filter((a) => a.atMs >= fromMs && a.atMs < toMs && (endpointId === undefined || a.endpointId === endpointId)).length;
}

/** Largest number of arrivals in any 1 s window starting in [fromMs, toMs), slid in 10 ms steps. */
export function peakPerSecond(members: Member[], fromMs: number, toMs: number): number {
  let peak = 0;
  for (let start = fromMs; start + 1_000 <= toMs; start += 10) peak = Math.max(peak, inWindow(members, start, start + 1_000));
  return peak;
}

