import type { RoleState } from '../admission/role-state.js';
import type { Clock } from '../clock.js';
import type { NormalizedEndpoint } from '../config/normalize.js';
import type { HttpTransportPoolOptions } from '../config/types.js';
import type { ClassifiedFailure } from '../http/outcome.js';
import type { HostBreakerChange } from '../reputation/host-breaker.js';
import type { ReputationKey } from '../reputation/keys.js';
import { bandRank, recoveredScore } from '../reputation/score.js';
import type { ReputationSignal } from '../reputation/signals.js';
import type { ReputationEntry, ReputationStore } from '../reputation/store.js';
import { initialReputationEntry, type ReputationChange, type ReputationView } from '../reputation/tracker.js';
import type { FailureCause } from '../retry/causes.js';
import type { CandidateFilter } from '../admission/admission-model.js';
import type { PoolEvents } from '../api/events.js';
import type { Exclusion } from '../admission/waiting-for.js';
import { BREAKER_CAUSES, createHealth, eachKeyAndHost, SIGNAL_OF_CAUSE, type Health } from './health-setup.js';

/** Reputation view of one endpoint, as shown in snapshots. */
export type EndpointReputationView = Omit<ReputationView, 'eligible'>;

/** How a fleet reaches reputation and the breaker (`parts/fleet-wiring.ts`). */
export interface HealthFleetHooks {
  /** Where reputation entries live (shared benches). */
  readonly store: ReputationStore;
  /** The breaker opened a host here: tell the fleet. */
  onBreakerOpen(host: string, durationMs: number, openCount: number): void;
}

/**
 * Connects roles to reputation and the host breaker. Outcomes update the
 * tracker and breaker; the results are cached on each role (band, bench end, next refresh
 * instant) so the admission loop pays two comparisons per candidate. `reputation: false`
 * turns both off.
 */
export class PoolHealth implements CandidateFilter {
  private readonly events: PoolEvents;
  private readonly clock: Clock;
  private readonly health: Health | undefined;
  private readonly rolesByKey = new Map<ReputationKey, RoleState[]>();
  private readonly rolesByHost = new Map<string, RoleState[]>();
  private readonly firstRoleOf = new Map<string, RoleState>();
  private readonly roles: readonly RoleState[];
  /** Earliest `healthRefreshAtMs` over all roles. */
  private nextRefreshAtMs = 0;
  private readonly fleet: HealthFleetHooks | undefined;
  /** True while an open adopted from the fleet is applied: it is not told back. */
  private adopting = false;

  constructor(
    options: HttpTransportPoolOptions,
    endpoints: readonly NormalizedEndpoint[],
    roles: readonly RoleState[],
    events: PoolEvents,
    clock: Clock,
    fleet?: HealthFleetHooks,
  ) {
    this.events = events;
    this.clock = clock;
    this.roles = roles;
    this.fleet = fleet;
    this.health = options.reputation === false ? undefined : createHealth(options, endpoints, fleet?.store);
    if (!this.health) {
      this.nextRefreshAtMs = Number.POSITIVE_INFINITY;
      return;
    }
    for (const role of roles) {
      const key = this.health.keyOf.get(role.endpointId)!;
      push(this.rolesByKey, key, role);
      push(this.rolesByHost, role.endpoint.breakerKey, role);
      if (!this.firstRoleOf.has(role.endpointId)) this.firstRoleOf.set(role.endpointId, role);
    }
  }

  refreshDue(nowMs: number): number {
    if (nowMs < this.nextRefreshAtMs) return this.nextRefreshAtMs;
    let next = Number.POSITIVE_INFINITY;
    for (const role of this.roles) {
      if (nowMs >= role.healthRefreshAtMs) this.refresh(role, nowMs);
      next = Math.min(next, role.healthRefreshAtMs);
    }
    this.nextRefreshAtMs = next;
    return next;
  }

  isExcluded(role: RoleState, nowMs: number): boolean {
    if (nowMs >= role.healthRefreshAtMs) this.refresh(role, nowMs);
    return role.band >= 3 || role.benchedUntilMs > nowMs;
  }

  excludedUntil(role: RoleState, nowMs: number): number {
    if (role.benchedUntilMs > nowMs) return role.benchedUntilMs;
    return role.healthRefreshAtMs;
  }

  /**
   * Why an excluded role is out (host breaker, reputation cooldown, score under the
   * eligibility score); undefined when it is not. When both a breaker and a bench hold it,
   * the one that ends last is what it waits for.
   */
  exclusionOf(role: RoleState, nowMs: number): Exclusion | undefined {
    if (!this.isExcluded(role, nowMs)) return undefined;
    const breakerUntilMs = nowMs + this.breakerRemainingMs(role.endpointId, nowMs);
    const benchUntilMs = this.health?.tracker.view(this.health.keyOf.get(role.endpointId)!, nowMs).cooldownRemainingMs ?? 0;
    const benchedUntilMs = nowMs + benchUntilMs;
    if (benchedUntilMs > nowMs && benchedUntilMs >= breakerUntilMs) return { reason: 'benched', untilMs: benchedUntilMs };
    if (breakerUntilMs > nowMs) return { reason: 'breaker', untilMs: breakerUntilMs };
    return { reason: 'below-threshold', untilMs: role.healthRefreshAtMs };
  }

  /** Pool-collapse guard: when every candidate is excluded, keep those with the best score (broken hosts included). */
  collapseGuard(roles: readonly RoleState[], nowMs: number): readonly RoleState[] {
    const health = this.health;
    if (!health) return roles;
    let best = Number.NEGATIVE_INFINITY;
    const scores = roles.map((role) => health.tracker.scoreOf(health.keyOf.get(role.endpointId)!, nowMs));
    for (const score of scores) best = Math.max(best, score);
    return roles.filter((_, i) => scores[i] === best);
  }

  settle(role: RoleState, nowMs: number): void {
    if (role.settleCooldown(nowMs)) {
      this.events.emit('cooldown', { atMs: nowMs, endpointId: role.endpointId, kind: role.settings.kind, phase: 'end' });
    }
  }

  recordSuccess(role: RoleState, latencyMs: number): void {
    const health = this.health;
    if (!health) return;
    const now = this.clock.now();
    this.apply(role, now, health.tracker.record(health.keyOf.get(role.endpointId)!, { kind: 'success', latencyMs }, now));
    this.applyBreaker(role, now, health.breaker.recordSuccess(role.endpoint.breakerKey, now));
  }

  recordFailure(role: RoleState, cause: FailureCause, failure: ClassifiedFailure | undefined): void {
    const health = this.health;
    if (!health) return;
    const now = this.clock.now();
    const signal: ReputationSignal = failure
      ? { kind: failure.signal, protocolViolation: failure.protocolViolation }
      : { kind: SIGNAL_OF_CAUSE[cause] };
    this.apply(role, now, health.tracker.record(health.keyOf.get(role.endpointId)!, signal, now));
    const host = role.endpoint.breakerKey;
    const breakerFailure = failure ? failure.breakerFailure : BREAKER_CAUSES.has(cause);
    // A host that answered with a proper JSON-RPC error is alive: that counts as a success for the breaker.
    const hostAnswered = cause === 'rpc-application' || cause === 'capability';
    if (breakerFailure) this.applyBreaker(role, now, health.breaker.recordFailure(host, now));
    else if (hostAnswered) this.applyBreaker(role, now, health.breaker.recordSuccess(host, now));
  }

  /**
   * A health probe's outcome: a good one is the recovery signal (+5), a failed one its
   * failure's severity; both move the score and strikes and never the rate detectors (a
   * benched endpoint must not re-bench itself on its own probes). Only good probes reach
   * the host breaker: probes never open one.
   */
  recordProbe(roles: readonly RoleState[], failure: ClassifiedFailure | undefined): void {
    const health = this.health;
    if (!health) return;
    const now = this.clock.now();
    const signal: ReputationSignal = failure ? { kind: failure.signal, isHealthCheck: true } : { kind: 'recovery', isHealthCheck: true };
    eachKeyAndHost(health.keyOf, roles, (role) => this.apply(role, now, health.tracker.record(health.keyOf.get(role.endpointId)!, signal, now)), (role) => {
      if (!failure) this.applyBreaker(role, now, health.breaker.recordSuccess(role.endpoint.breakerKey, now));
    });
  }

  /** Good probes readmit these endpoints (one backend): reputation recovers now and the host breaker closes. */
  readmit(roles: readonly RoleState[]): void {
    const health = this.health;
    if (!health) return;
    const now = this.clock.now();
    eachKeyAndHost(
      health.keyOf,
      roles,
      (role) => this.apply(role, now, health.tracker.reinstate(health.keyOf.get(role.endpointId)!, now)),
      (role) => this.applyBreaker(role, now, health.breaker.reset(role.endpoint.breakerKey, now)),
    );
  }

  breakerRemainingMs(endpointId: string, nowMs: number): number {
    const role = this.firstRoleOf.get(endpointId);
    if (!this.health || !role) return 0;
    return Math.max(0, (this.health.breaker.openUntil(role.endpoint.breakerKey, nowMs) ?? nowMs) - nowMs);
  }

  reputationOf(endpointId: string, nowMs: number): EndpointReputationView | undefined {
    const health = this.health;
    if (!health) return undefined;
    const { score, band, cooldownRemainingMs, strikes, criticalRate, invalidRate } = health.tracker.view(health.keyOf.get(endpointId)!, nowMs);
    return { score, band, cooldownRemainingMs, strikes, criticalRate, invalidRate };
  }

  /** The reputation key of an endpoint (internal: may contain its URL), or undefined with reputation off. */
  reputationKeyOf(endpointId: string): ReputationKey | undefined {
    return this.health?.keyOf.get(endpointId);
  }

  /** The entry of a key never seen before (for merging a fleet's bench). */
  initialEntry(nowMs: number): ReputationEntry | undefined {
    return this.health && initialReputationEntry(this.health.tracker.config, nowMs);
  }

  /** Until when `entry`'s score keeps its key out of rotation (below `eligibleScore` until time-based recovery); undefined when eligible. */
  ineligibleUntil(entry: ReputationEntry, nowMs: number): number | undefined {
    const config = this.health?.tracker.config;
    if (!config || recoveredScore(entry.score, entry.lastSignalMs, nowMs, config) >= config.eligibleScore) return undefined;
    return config.recoveryTimeoutMs > 0 ? entry.lastSignalMs + config.recoveryTimeoutMs : Number.POSITIVE_INFINITY;
  }

  /** Entries changed outside a signal (a fleet merged a bench): every role re-reads its band and bench at the next trial. */
  invalidate(): void {
    if (!this.health) return;
    for (const role of this.roles) role.healthRefreshAtMs = Number.NEGATIVE_INFINITY;
    this.nextRefreshAtMs = Number.NEGATIVE_INFINITY;
  }

  /** Another process of the fleet opened `host`'s breaker until `untilMs`; returns true when that opened it here. */
  adoptBreakerOpen(host: string, untilMs: number, openCount: number): boolean {
    const health = this.health;
    const role = this.rolesByHost.get(host)?.[0];
    if (!health || !role) return false;
    const now = this.clock.now();
    const changes = health.breaker.adoptOpen(host, untilMs, openCount, now);
    this.adopting = true;
    try {
      this.applyBreaker(role, now, changes);
    } finally {
      this.adopting = false;
    }
    return changes.some((change) => change.type === 'open');
  }

  /** Time alone changed something (a cooldown or open ended, a low score recovered): settle and re-cache. */
  private refresh(role: RoleState, nowMs: number): void {
    const health = this.health;
    if (!health) {
      role.healthRefreshAtMs = Number.POSITIVE_INFINITY;
      return;
    }
    this.apply(role, nowMs, health.tracker.settle(health.keyOf.get(role.endpointId)!, nowMs));
    this.applyBreaker(role, nowMs, health.breaker.settle(role.endpoint.breakerKey, nowMs));
  }

  private apply(role: RoleState, nowMs: number, changes: readonly ReputationChange[]): void {
    const key = this.health!.keyOf.get(role.endpointId)!;
    const sharing = this.rolesByKey.get(key) ?? [role];
    for (const change of changes) {
      const reported = new Set<string>();
      for (const peer of sharing) {
        if (reported.has(peer.endpointId)) continue;
        reported.add(peer.endpointId);
        this.events.emit('reputation', {
          atMs: nowMs,
          endpointId: peer.endpointId,
          change: change.type,
          score: change.score,
          band: change.band,
          ...(change.type === 'cooldown-start' ? { detector: change.detector, cooldownMs: change.durationMs } : {}),
        });
      }
    }
    // A signal that changed no band and started no cooldown leaves the cache valid.
    if (changes.length > 0 || nowMs >= role.healthRefreshAtMs) for (const peer of sharing) this.cache(peer, nowMs);
  }

  private applyBreaker(role: RoleState, nowMs: number, changes: readonly HostBreakerChange[]): void {
    const onHost = this.rolesByHost.get(role.endpoint.breakerKey) ?? [role];
    for (const change of changes) {
      if (change.type === 'open' && !this.adopting) this.fleet?.onBreakerOpen(role.endpoint.breakerKey, change.durationMs, change.openCount);
      this.events.emit('breaker', {
        atMs: nowMs,
        endpointIds: [...new Set(onHost.map((r) => r.endpointId))],
        operator: role.endpoint.operator,
        state: change.type === 'open' ? 'open' : 'closed',
        ...(change.type === 'open' ? { openForMs: change.durationMs } : {}),
      });
    }
    if (changes.length > 0) for (const peer of onHost) this.cache(peer, nowMs);
  }

  /** Caches band, bench end and the next instant the view changes by time alone. */
  private cache(role: RoleState, nowMs: number): void {
    const { tracker, breaker, keyOf } = this.health!;
    const key = keyOf.get(role.endpointId)!;
    const view = tracker.view(key, nowMs);
    role.setBand(bandRank(view.score, { good: tracker.config.bands.good, fair: tracker.config.bands.fair, eligible: tracker.config.eligibleScore }));
    const reputationUntil = view.cooldownRemainingMs > 0 ? nowMs + view.cooldownRemainingMs : 0;
    const breakerUntil = breaker.openUntil(role.endpoint.breakerKey, nowMs) ?? 0;
    role.benchedUntilMs = Math.max(reputationUntil, breakerUntil);
    const next = tracker.nextTimeChangeMs(key, nowMs) ?? Number.POSITIVE_INFINITY;
    role.healthRefreshAtMs = Math.min(next, breakerUntil > nowMs ? breakerUntil : Number.POSITIVE_INFINITY);
    this.nextRefreshAtMs = Math.min(this.nextRefreshAtMs, role.healthRefreshAtMs);
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
