/**
 * What a permit reports to when its attempt ends: the role's own state, reputation and the
 * host breaker, lag bookkeeping, the latency estimate, the hedge delay's quantile, cooldowns
 * (shared with a fleet), and the waiters a released permit may admit.
 */
import type { RoleState } from '../admission/role-state.js';
import type { Balancer } from '../balance/balancer.js';
import type { Clock } from '../clock.js';
import type { ClassifiedFailure } from '../http/outcome.js';
import type { FailureCause, RequestKind } from '../retry/causes.js';
import type { EndpointHealth } from './endpoint-health.js';
import type { PoolEvents } from './events.js';
import type { FleetWiring } from './fleet-wiring.js';
import type { Hedging } from './hedged-attempt.js';
import type { PermitHost } from './permit.js';
import type { PoolHealth } from './pool-health.js';

export interface PermitHostParts {
  readonly clock: Clock;
  readonly events: PoolEvents;
  readonly health: PoolHealth;
  readonly endpointHealth: EndpointHealth;
  readonly balancer: Balancer | undefined;
  readonly hedging: Hedging | undefined;
  readonly fleet: FleetWiring | undefined;
  /** Lets the waiters of `kind` look again. */
  drain(kind: RequestKind): void;
}

export function createPermitHost(parts: PermitHostParts): PermitHost {
  const { clock, events, health, endpointHealth, balancer, hedging, fleet } = parts;

  const startCooldown = (role: RoleState, providerDelayMs: number | undefined, rateLimited: boolean): void => {
    const now = clock.now();
    const before = role.availability;
    const cooldownMs = rateLimited ? role.recordRateLimited(now, providerDelayMs) : role.startCooldown(now, providerDelayMs);
    const kind = role.settings.kind;
    if (rateLimited) events.emit('rate-limited', { atMs: now, endpointId: role.endpointId, kind, providerDelayMs, cooldownMs });
    if (before !== 'rate-limited') events.emit('cooldown', { atMs: now, endpointId: role.endpointId, kind, phase: 'start', durationMs: cooldownMs });
    fleet?.cooldownStarted(role, role.cooldownUntilMs - now);
  };

  return {
    onSuccess: (role, latencyMs) => {
      role.recordSuccess();
      health.recordSuccess(role, latencyMs);
      balancer?.observe(role, latencyMs, clock.now());
      const kindHedging = hedging?.of(role.settings.kind);
      if (kindHedging?.hasPeers) kindHedging.observe(latencyMs);
    },
    onFailure: (role, cause: FailureCause, failure: ClassifiedFailure | undefined, elapsedMs?: number) => {
      role.recordFailure(cause);
      // A timed-out attempt took at least this long: the latency estimate must know.
      if (cause === 'timeout' && elapsedMs !== undefined) balancer?.observeAtLeast(role, elapsedMs, clock.now());
      health.recordFailure(role, cause, failure);
      endpointHealth.afterFailure(role);
      if (failure?.providerDelayMs !== undefined && cause !== 'rate-limited') startCooldown(role, failure.providerDelayMs, false);
    },
    onRateLimited: (role, providerDelayMs) => {
      health.recordFailure(role, 'rate-limited', undefined);
      endpointHealth.afterFailure(role);
      startCooldown(role, providerDelayMs, true);
    },
    onRelease: (role, reported) => {
      const endpointWasFull = role.load.max !== undefined && role.load.inFlight >= role.load.max;
      role.release(clock.now(), reported);
      // The endpoint's shared limit frees a permit for each of its kinds.
      if (endpointWasFull) for (const { kind } of role.endpoint.roles) parts.drain(kind);
      else parts.drain(role.settings.kind);
    },
  };
}
