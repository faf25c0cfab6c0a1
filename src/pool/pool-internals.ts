/** The pool's internals (`internals.ts`): what the request loop reaches of the pool, built from its parts. */
import type { Balancer } from '../balance/balancer.js';
import { DEFAULT_MAX_BATCH_SIZE } from '../batch/rules.js';
import { TimerQueue, type Clock, type Random } from '../clock.js';
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_RETRY, type NormalizedEndpoint } from '../config/normalize.js';
import type { HttpTransportPoolOptions, MethodClassification } from '../config/types.js';
import { createDefaultExecutor } from '../http/default-executor.js';
import type { RequestKind } from '../retry/causes.js';
import type { KindGroup } from './admission-model.js';
import type { PoolAdmission } from './admit.js';
import type { EndpointHealth } from './endpoint-health.js';
import type { PoolEvents } from './events.js';
import type { Hedging } from './hedged-attempt.js';
import type { PoolInternals } from './internals.js';
import { reconcileSettingsOf } from './reconcile.js';
import type { RequestOptions } from './request-options.js';
import type { SharedRequests } from './shared-requests.js';

export interface PoolInternalsParts {
  readonly clock: Clock;
  readonly random: Random;
  readonly events: PoolEvents;
  readonly redact: (text: string) => string;
  readonly groups: ReadonlyMap<RequestKind, KindGroup>;
  readonly admission: PoolAdmission;
  readonly endpointHealth: EndpointHealth;
  readonly balancer: Balancer | undefined;
  readonly hedging: Hedging | undefined;
  classify(method: string, options: RequestOptions): MethodClassification;
  readonly endpoints: readonly NormalizedEndpoint[];
  /** Coalescing and micro-batching, built after the internals (they run on them). */
  shared(): SharedRequests | undefined;
}

export function createPoolInternals(options: HttpTransportPoolOptions, parts: PoolInternalsParts): PoolInternals {
  const { clock, admission, endpointHealth, balancer, groups } = parts;
  // Each endpoint's `maxBatchSize`, lowered when it refuses a batch.
  const maxBatchSizes = new Map(parts.endpoints.map((endpoint) => [endpoint.id, options.endpoints[endpoint.index]?.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE]));
  let id = 0;
  // Deterministic exploration: a credit, not a random draw, so the injected random's sequence (backoffs) is untouched.
  const exploreRatio = balancer?.exploreRatio ?? 0;
  let exploreCredit = 0;
  return {
    clock,
    random: parts.random,
    executor: options.executor ?? createDefaultExecutor(),
    events: parts.events,
    // Field by field: an explicit `undefined` (e.g. from an unset env var) keeps the default.
    retry: {
      maxRetries: options.retry?.maxRetries ?? DEFAULT_RETRY.maxRetries,
      initialBackoffMs: options.retry?.initialBackoffMs ?? DEFAULT_RETRY.initialBackoffMs,
      maxBackoffMs: options.retry?.maxBackoffMs ?? DEFAULT_RETRY.maxBackoffMs,
    },
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    reconcile: reconcileSettingsOf(options.reconcileSends),
    redact: parts.redact,
    cancelOnClose: new Set(),
    attemptTimers: new TimerQueue(clock),
    hedgeTimers: new TimerQueue(clock),
    closedError: () => admission.closedError,
    nextId: () => (id = id >= Number.MAX_SAFE_INTEGER ? 1 : id + 1),
    acquire: (kind, acquireOptions, avoid, explore) => admission.acquire(kind, acquireOptions, avoid, explore),
    tryAcquire: (kind, acquireOptions, avoid, explore) => admission.tryAcquire(kind, acquireOptions, avoid, explore),
    classify: (method, requestOptions) => parts.classify(method, requestOptions),
    health: endpointHealth,
    historicalAvoid: (kind, read) => {
      const group = groups.get(kind);
      return group === undefined ? undefined : endpointHealth.avoidFor(read, group.roles);
    },
    hedging: parts.hedging,
    tryHedgePermit: (kind, primary, signal) => admission.tryHedgePermit(kind, primary, signal),
    observeLost: (role, elapsedMs) => balancer?.observeLost(role, elapsedMs, clock.now()),
    maxBatchSize: (endpointId) => maxBatchSizes.get(endpointId) ?? DEFAULT_MAX_BATCH_SIZE,
    limitBatchSize: (endpointId, limit) => maxBatchSizes.set(endpointId, Math.max(1, Math.min(limit, maxBatchSizes.get(endpointId) ?? limit))),
    get shared() {
      return parts.shared();
    },
    nextExplores: () => {
      if (exploreRatio === 0) return false;
      exploreCredit += exploreRatio;
      if (exploreCredit < 1) return false;
      exploreCredit -= 1;
      return true;
    },
  };
}
