/**
 * What a permit reports to when its attempt ends: a list of reporters, each capability
 * registering its own (role state, reputation and the host breaker, lag bookkeeping, the
 * latency estimate, the hedge delay's quantile, cooldowns shared with a fleet), and the
 * waiters a released permit may admit. A capability that is off registers nothing.
 */
import type { PermitHost } from '../admission/permit.js';
import type { RoleState } from '../admission/role-state.js';
import type { Balancer } from '../balance/balancer.js';
import type { Clock } from '../clock.js';
import type { ClassifiedFailure } from '../http/outcome.js';
import type { FailureCause, RequestKind } from '../retry/causes.js';
import type { PoolEvents } from '../api/events.js';

/** One capability's interest in attempt outcomes; every hook is optional. */
export interface OutcomeReporter {
  onSuccess?(role: RoleState, latencyMs: number): void;
  onFailure?(role: RoleState, cause: FailureCause, failure: ClassifiedFailure | undefined, elapsedMs: number | undefined): void;
  onRateLimited?(role: RoleState, providerDelayMs: number | undefined, allowedRps: number | undefined): void;
}

/** The latency estimate of latency-aware choice: good answers, and "at least this long" for a timed-out attempt. */
export function balancerReporter(balancer: Balancer, clock: Clock): OutcomeReporter {
  return {
    onSuccess: (role, latencyMs) => balancer.observe(role, latencyMs, clock.now()),
    onFailure: (role, cause, _failure, elapsedMs) => {
      if (cause === 'timeout' && elapsedMs !== undefined) balancer.observeAtLeast(role, elapsedMs, clock.now());
    },
  };
}

/** Where a cooldown's start is also told (a fleet shares it). */
export type CooldownListener = (role: RoleState, cooldownMs: number) => void;

/** The role's own state: counters, cooldowns (with their events) and whoever shares them. */
export function roleStateReporter(clock: Clock, events: PoolEvents, onCooldown: CooldownListener | undefined): OutcomeReporter {
  const startCooldown = (role: RoleState, providerDelayMs: number | undefined, rateLimited: boolean): void => {
    const now = clock.now();
    const before = role.availability;
    const cooldownMs = rateLimited ? role.recordRateLimited(now, providerDelayMs) : role.startCooldown(now, providerDelayMs);
    const kind = role.settings.kind;
    if (rateLimited) events.emit('rate-limited', { atMs: now, endpointId: role.endpointId, kind, providerDelayMs, cooldownMs });
    if (before !== 'rate-limited') events.emit('cooldown', { atMs: now, endpointId: role.endpointId, kind, phase: 'start', durationMs: cooldownMs });
    onCooldown?.(role, role.cooldownUntilMs - now);
  };
  return {
    onSuccess: (role) => role.recordSuccess(),
    onFailure: (role, cause, failure) => {
      role.recordFailure(cause);
      if (failure?.providerDelayMs !== undefined && cause !== 'rate-limited') startCooldown(role, failure.providerDelayMs, false);
    },
    onRateLimited: (role, providerDelayMs) => startCooldown(role, providerDelayMs, true),
  };
}

type Hook<K extends keyof OutcomeReporter> = NonNullable<OutcomeReporter[K]>;

function hooks<K extends keyof OutcomeReporter>(reporters: readonly OutcomeReporter[], key: K): Hook<K>[] {
  return reporters.flatMap((reporter) => {
    const hook = reporter[key];
    return hook === undefined ? [] : [hook.bind(reporter) as Hook<K>];
  });
}

/**
 * The permits' host: fans each outcome out to `reporters` in order (the role state last, so
 * reputation and lag see the attempt before a cooldown's events go out), and lets waiters
 * look again when a permit is released.
 */
export function createPermitHost(reporters: readonly OutcomeReporter[], clock: Clock, drain: (kind: RequestKind) => void): PermitHost {
  const successes = hooks(reporters, 'onSuccess');
  const failures = hooks(reporters, 'onFailure');
  const rateLimits = hooks(reporters, 'onRateLimited');
  return {
    onSuccess: (role, latencyMs) => {
      for (let i = 0; i < successes.length; i++) successes[i]!(role, latencyMs);
    },
    onFailure: (role, cause, failure, elapsedMs) => {
      for (let i = 0; i < failures.length; i++) failures[i]!(role, cause, failure, elapsedMs);
    },
    onRateLimited: (role, providerDelayMs, allowedRps) => {
      for (let i = 0; i < rateLimits.length; i++) rateLimits[i]!(role, providerDelayMs, allowedRps);
    },
    onRelease: (role, reported) => {
      const endpointWasFull = role.load.max !== undefined && role.load.inFlight >= role.load.max;
      role.release(clock.now(), reported);
      // The endpoint's shared limit frees a permit for each of its kinds.
      if (endpointWasFull) for (const { kind } of role.endpoint.roles) drain(kind);
      else drain(role.settings.kind);
    },
  };
}
