import type { CacheSnapshot } from '../cache/cache-snapshot.js';
import type { ConsensusSnapshot } from '../consensus/consensus-snapshot.js';
import type { Availability, RoleState } from '../admission/role-state.js';
import { isLearning } from '../admission/learned-bucket.js';
import type { NormalizedEndpoint } from '../config/normalize.js';
import type { RequestKind } from '../retry/causes.js';
import type { SubscriptionEndpointSnapshot } from '../subscriptions/manager.js';
import type { ChainGuard, ChainStatus } from '../parts/chain-guard.js';
import type { Hedging } from '../pipeline/hedge-state.js';
import type { EndpointReputationView, PoolHealth } from '../parts/pool-health.js';
import type { ArchivalKnowledge } from '../health/archival-book.js';
import type { EndpointHeadView, EndpointHealth, EndpointHealthState } from '../parts/endpoint-health.js';

export interface RoleSnapshot {
  readonly endpointId: string;
  readonly kind: RequestKind;
  readonly tier: number;
  readonly availability: Availability;
  readonly requestsPerSecond: number | undefined;
  readonly burstCapacity: number | undefined;
  /** The rate learned for a `requestsPerSecond: 'auto'` role now, in requests per second; undefined for a fixed rate or none. */
  readonly learnedRequestsPerSecond?: number | undefined;
  /** Tokens in the bucket now (fractional); undefined without a rate limit. */
  readonly tokens: number | undefined;
  /** This role's own limit (`roles.<kind>.maxConcurrentRequests`, capped by the endpoint's). */
  readonly maxConcurrentRequests: number | undefined;
  readonly inFlight: number;
  readonly cooldownRemainingMs: number;
  readonly successes: number;
  readonly failures: number;
  readonly rateLimits: number;
}

export interface EndpointSnapshot {
  readonly endpointId: string;
  readonly operator: string;
  /** The endpoint's concurrency limit, shared by all its roles (undefined = unlimited). */
  readonly maxConcurrentRequests: number | undefined;
  /** The concurrency learned for a `maxConcurrentRequests: 'auto'` endpoint now; undefined for a fixed limit or none. */
  readonly learnedMaxConcurrentRequests?: number | undefined;
  /** Requests in flight on the endpoint, all roles together: what the node has received and not yet answered. */
  readonly inFlight: number;
  readonly reputation: EndpointReputationView | undefined;
  /** Remaining open time of the endpoint's host breaker, in ms (0 = closed). */
  readonly breakerOpenRemainingMs: number;
  /** The `expectedChain` check: `unchecked` without one (or with `verifyChain: false`); `wrong-chain` endpoints are excluded. */
  readonly chain: ChainStatus;
  /** The endpoint's last observed head (Solana slot or EVM block); undefined until an answer carried one. */
  readonly head: EndpointHeadView | undefined;
  /**
   * `lagging`: further behind the reference tip than the sync allowance (out of reads and
   * sends); `out-of-rotation`: benched by reputation, behind an open host breaker, or not
   * (yet) on the expected chain; `fresh`: a head within the allowance; `unknown`: no head yet,
   * its head aged (the tip moved on by more than the allowance since; it is being probed), or
   * its last attempt failed to connect or timed out (a dead node's last head says nothing).
   */
  readonly health: EndpointHealthState;
  /** Whether the node keeps history: declared (`archival`) or learned from answers. */
  readonly archival: ArchivalKnowledge;
  /** The endpoint's credit plan at work (`plan`); undefined without one. */
  readonly credits?: CreditsSnapshot | undefined;
}

/** An endpoint's credits: the per-second bucket and the month's spend. */
export interface CreditsSnapshot {
  readonly creditsPerSecond: number | undefined;
  /** Credits in the per-second bucket now (fractional, negative while a batch's debt is paid back); undefined without `creditsPerSecond`. */
  readonly available: number | undefined;
  readonly creditsPerMonth: number | undefined;
  /** Credits sent this UTC month since the pool started (in fleet mode, the fleet's). */
  readonly spentThisMonth: number;
  /** The month's credits are spent and the plan refuses past them. */
  readonly refusing: boolean;
}

function creditsOf(role: RoleState | undefined, nowMs: number): CreditsSnapshot | undefined {
  const meter = role?.load.credits;
  if (meter === undefined) return undefined;
  const { creditsPerSecond, creditsPerMonth } = meter.plan;
  return { creditsPerSecond, available: meter.available(nowMs)?.credits, creditsPerMonth, spentThisMonth: meter.spentCredits, refusing: meter.refusing() };
}

/** Per request kind: hedged reads and the budget that hedges and retries share (none with `hedge: false`). */
export interface KindSnapshot {
  readonly kind: RequestKind;
  /** Hedges started, and how their races ended: `won` (the hedge answered first), `lost` (the first attempt did). */
  readonly hedges: { readonly started: number; readonly won: number; readonly lost: number };
  /** Tokens left for retries (hedges may use only those above half the capacity). */
  readonly retryBudget: number;
}

/** A point-in-time view of the pool. Contains endpoint ids and operators only — never a URL, header or key. */
export interface PoolSnapshot {
  readonly closed: boolean;
  readonly endpoints: readonly EndpointSnapshot[];
  readonly roles: readonly RoleSnapshot[];
  readonly kinds: readonly KindSnapshot[];
  /** WebSocket subscriptions per endpoint with a WebSocket URL: sockets, subscriptions, pause after failures. */
  readonly subscriptions: readonly SubscriptionEndpointSnapshot[];
  /** The read cache; undefined with `cache: false`. */
  readonly cache?: CacheSnapshot | undefined;
  /** Consensus reads (`consensus: { operators }`) since the pool started. */
  readonly consensus?: ConsensusSnapshot | undefined;
}

export function buildSnapshot(
  endpoints: readonly NormalizedEndpoint[],
  roles: readonly RoleState[],
  health: PoolHealth,
  chainGuard: ChainGuard | undefined,
  hedging: Hedging | undefined,
  nowMs: number,
  closed: boolean,
  endpointHealth: EndpointHealth,
): Omit<PoolSnapshot, 'subscriptions'> {
  return {
    closed,
    kinds: [...(hedging?.kinds ?? [])].map(([kind, state]) => ({
      kind,
      hedges: { started: state.started, won: state.won, lost: state.lost },
      retryBudget: state.budget.tokens(nowMs),
    })),
    endpoints: endpoints.map((endpoint) => {
      const role = roles.find((candidate) => candidate.endpoint.id === endpoint.id);
      return {
      endpointId: endpoint.id,
      operator: endpoint.operator,
      maxConcurrentRequests: endpoint.maxConcurrentRequests,
      learnedMaxConcurrentRequests: role?.load.concurrency === undefined ? undefined : role.load.max,
      inFlight: role?.load.inFlight ?? 0,
      reputation: health.reputationOf(endpoint.id, nowMs),
      breakerOpenRemainingMs: health.breakerRemainingMs(endpoint.id, nowMs),
      chain: chainGuard?.status(endpoint.id) ?? 'unchecked',
      head: endpointHealth.headOf(endpoint.index, nowMs),
      health: endpointHealth.stateOf(endpoint.index, nowMs),
      archival: endpointHealth.archivalOf(endpoint.index, nowMs),
      credits: creditsOf(role, nowMs),
      };
    }),
    roles: roles.map((role) => {
      health.settle(role, nowMs);
      return {
        endpointId: role.endpointId,
        kind: role.settings.kind,
        tier: role.settings.tier,
        availability: role.availability,
        requestsPerSecond: role.settings.requestsPerSecond,
        burstCapacity: role.settings.burstCapacity,
        learnedRequestsPerSecond: isLearning(role.bucket) ? role.bucket.rateRps : undefined,
        tokens: role.bucket?.available(nowMs),
        maxConcurrentRequests: role.settings.maxConcurrentRequests,
        inFlight: role.inFlight,
        cooldownRemainingMs: Math.max(0, role.cooldownUntilMs - nowMs),
        successes: role.successes,
        failures: role.failures,
        rateLimits: role.rateLimits,
      };
    }),
  };
}
