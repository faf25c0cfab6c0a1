/**
 * `createRedisFleet()`: many processes, one provider quota, one cooldown and one reputation,
 * through a Redis (or Valkey) the caller already runs. The caller owns the client: the fleet
 * never connects, quits or subscribes it, adds no listener to it, and sends commands only
 * while it is `ready`.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { systemClock, systemRandom, type Clock, type Random } from '../clock.js';
import { configIssuesOf } from '../config/normalize.js';
import { TransportError, type ConfigIssue } from '../errors/transport-error.js';
import { FleetCoordinator } from './coordinator.js';
import { createRedisBackend, type FleetRedisClient } from './redis-backend.js';
import type { FleetStatus, PoolFleet } from './types.js';

export interface CreateRedisFleetOptions {
  /**
   * A connected ioredis client (`new Redis(url)`, or a `Cluster`), owned by the caller: the
   * fleet never quits it. Create it with `enableOfflineQueue: false` so nothing queues while
   * Redis is away (the fleet also sends nothing unless `status === 'ready'`).
   */
  readonly redis: FleetRedisClient;
  /**
   * Names this deployment: every key lives under `sturdy-rpc:{<namespace>}:`. Required, so two
   * deployments on one Redis never share a quota by accident. 1–64 of `A–Z a–z 0–9 . _ -`.
   */
  readonly namespace: string;
  /**
   * Longest wait for one Redis command, in ms (judged after one more event-loop turn, so a busy
   * loop is not taken for a slow Redis). Three failed or late commands in a row turn this
   * process local; a client known to be disconnected turns it local at once. @default 50
   */
  readonly commandTimeoutMs?: number;
  /**
   * Longest wait for the client's first `ready`, in ms, counted from `createRedisFleet`: until
   * then (a client still connecting) the process takes its local share under reason
   * `starting` and turns shared (`ready`) once Redis answers — start-up is not an outage.
   * Past it, a client that never became ready is `unreachable`. 0: no wait. @default 5000
   */
  readonly readyTimeoutMs?: number;
  /** Tokens per lease, as this many ms of the role's quota (at least 1 token, at most its burst). @default 100 */
  readonly leaseMs?: number;
  /** How often other processes' cooldowns, benches, breaker opens and chain verdicts are read, in ms (while local: how often a heartbeat probes whether Redis takes writes again). @default 50 */
  readonly pollIntervalMs?: number;
  /** Heartbeat period, in ms; a member missing three heartbeats no longer counts toward the local share. @default 1000 */
  readonly heartbeatMs?: number;
  /** Members assumed while the count is uncertain (Redis unreachable at start, or before a full heartbeat period is answered): the local share is quota ÷ at least this. @default 4 */
  readonly expectedMembers?: number;
  /** This process's id in the fleet (heartbeats, own facts). @default 16 random hex digits */
  readonly memberId?: string;
  /** Injected clock for the fleet's timers (tests). @default the system clock */
  readonly clock?: Clock;
  /** Injected random source in [0, 1) (spreads retries on a contended bucket). @default Math.random */
  readonly random?: Random;
}

/** A fleet: pass it as the pool's `fleet` option (several pools may share one). */
export interface RedisFleet extends PoolFleet {
  readonly namespace: string;
  readonly memberId: string;
  /** Mode (`shared` or `local`), live members last seen, and why the mode last changed. */
  status(): FleetStatus;
  /** Stops the fleet's timers and removes this member's heartbeat; pools still open keep their local share. Never quits the client. */
  close(): Promise<void>;
}

const positive = (max: number) => z.number({ error: 'must be a number' }).finite('must be finite').positive('must be > 0').max(max, `must be <= ${max}`);
const optionsSchema = z
  .object({
    redis: z.custom<FleetRedisClient>(
      (value) => typeof value === 'object' && value !== null && typeof (value as { evalsha?: unknown }).evalsha === 'function' && typeof (value as { eval?: unknown }).eval === 'function',
      { message: 'must be an ioredis client (new Redis(url)): it needs evalsha() and eval()' },
    ),
    namespace: z
      .string({ error: 'is required: a name for this deployment, so two deployments on one Redis never collide' })
      .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1–64 characters of A–Z a–z 0–9 . _ -'),
    commandTimeoutMs: positive(60_000).optional(),
    readyTimeoutMs: z.number({ error: 'must be a number' }).finite('must be finite').min(0, 'must be >= 0').max(600_000, 'must be <= 600000').optional(),
    leaseMs: positive(60_000).optional(),
    pollIntervalMs: positive(60_000).optional(),
    heartbeatMs: positive(600_000).optional(),
    expectedMembers: z.number({ error: 'must be a number' }).int('must be an integer').min(1, 'must be >= 1').max(1_000_000).optional(),
    memberId: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1–64 characters of A–Z a–z 0–9 . _ -').optional(),
    clock: z.custom<Clock>((value) => typeof value === 'object' && value !== null && typeof (value as Clock).setTimer === 'function', { message: 'must be a Clock' }).optional(),
    random: z.custom<Random>((value) => typeof value === 'function', { message: 'must be a function' }).optional(),
  })
  .strict();

/**
 * Creates a fleet over `redis`. Throws `INVALID_CONFIG` (naming the field, never echoing a
 * value) for a missing or malformed namespace, a client that is not one, or a bad setting.
 */
export function createRedisFleet(options: CreateRedisFleetOptions): RedisFleet {
  const parsed = optionsSchema.safeParse(options ?? {});
  if (!parsed.success) throw fleetConfigError(configIssuesOf(parsed.error));
  const settings = parsed.data;
  const memberId = settings.memberId ?? randomBytes(8).toString('hex');
  const coordinator = new FleetCoordinator(createRedisBackend(settings.redis, settings.namespace), {
    clock: settings.clock ?? systemClock,
    random: settings.random ?? systemRandom,
    memberId,
    commandTimeoutMs: settings.commandTimeoutMs ?? 50,
    heartbeatMs: settings.heartbeatMs ?? 1_000,
    pollIntervalMs: settings.pollIntervalMs ?? 50,
    leaseMs: settings.leaseMs ?? 100,
    expectedMembers: settings.expectedMembers ?? 4,
    readyTimeoutMs: settings.readyTimeoutMs ?? 5_000,
  });
  return {
    namespace: settings.namespace,
    memberId,
    join: (joinOptions) => coordinator.join(joinOptions),
    wire: (clock) => coordinator.wire(clock),
    status: () => coordinator.status(),
    close: () => coordinator.close(),
  };
}

function fleetConfigError(issues: readonly ConfigIssue[]): TransportError<'INVALID_CONFIG'> {
  const lines = issues.map((issue) => `${issue.path}: ${issue.message}`);
  return new TransportError('INVALID_CONFIG', `Invalid fleet configuration: ${lines.join('; ')}`, { context: { issues } });
}
