import type { RoleState } from '../admission/role-state.js';
import type { Clock } from '../clock.js';
import type { HttpTransportPoolOptions } from '../config/types.js';
import type { NormalizedEndpoint } from '../config/normalize.js';
import type { ClassifiedFailure } from '../http/outcome.js';
import type { FailureCause } from '../retry/causes.js';
import type { CandidateFilter } from './admission.js';
import type { PoolEvents } from './events.js';

/** Reputation view of one endpoint, as shown in snapshots. */
export interface EndpointReputationView {
  readonly score: number;
  readonly band: 'good' | 'fair' | 'poor' | 'ineligible';
  readonly cooldownRemainingMs: number;
  readonly strikes: number;
  readonly criticalRate: number;
  readonly invalidRate: number;
}

/**
 * Connects roles to reputation and the host breaker: records outcomes, caches each role's
 * band and bench time for the admission loop, and emits `cooldown` end events.
 */
export class PoolHealth implements CandidateFilter {
  private readonly events: PoolEvents;
  private readonly clock: Clock;

  constructor(
    options: HttpTransportPoolOptions,
    endpoints: readonly NormalizedEndpoint[],
    roles: readonly RoleState[],
    events: PoolEvents,
    clock: Clock,
  ) {
    void options;
    void endpoints;
    void roles;
    this.events = events;
    this.clock = clock;
  }

  isExcluded(role: RoleState, nowMs: number): boolean {
    return role.band >= 3 || role.benchedUntilMs > nowMs;
  }

  excludedUntil(role: RoleState, nowMs: number): number {
    return role.benchedUntilMs > nowMs ? role.benchedUntilMs : Number.POSITIVE_INFINITY;
  }

  collapseGuard(roles: readonly RoleState[]): readonly RoleState[] {
    return roles;
  }

  settle(role: RoleState, nowMs: number): void {
    if (role.settleCooldown(nowMs)) {
      this.events.emit('cooldown', { atMs: nowMs, endpointId: role.endpointId, kind: role.settings.kind, phase: 'end' });
    }
  }

  recordSuccess(role: RoleState, latencyMs: number): void {
    void role;
    void latencyMs;
    void this.clock;
  }

  recordFailure(role: RoleState, cause: FailureCause, failure: ClassifiedFailure | undefined): void {
    void role;
    void cause;
    void failure;
  }

  breakerRemainingMs(endpointId: string, nowMs: number): number {
    void endpointId;
    void nowMs;
    return 0;
  }

  reputationOf(endpointId: string, nowMs: number): EndpointReputationView | undefined {
    void endpointId;
    void nowMs;
    return undefined;
  }
}
