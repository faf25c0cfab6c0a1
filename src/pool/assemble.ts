/**
 * The pool assembled from its parts, and its request path composed once
 * (docs/architecture.md). The order of the path, outermost first, and why:
 *
 *   observe      exporters see every call as the caller made it, invalid ones too, in the
 *                caller's async context (present only while an exporter is attached);
 *   entry        validates and classifies (`INVALID_INPUT` before anything is sent);
 *   cache        a kept answer returns here, before coalescing and admission (a hit costs no
 *                permit, no token, no shared-flight entry); a miss goes on and is coalesced
 *                with its twins, so one answer is kept per request (`cache: false` removes it);
 *   coalesce     identical reads in flight share one request — before micro-batching, so a
 *                batch never carries the same read twice (`coalesce: false` removes it);
 *   micro-batch  reads made within `waitMs` go as one JSON-RPC batch (only with `batch`);
 *   consensus    only on the chains consensus reads take (entry → cache → coalesce → consensus →
 *                loop): each operator's turn is its own request, so it is never batched;
 *   loop         admission, the retry decision, the deadline, reconciliation of sends —
 *                one loop (`pipeline/loop.ts`) for single calls and `pool.batch` chunks;
 *   hedge        a late read gets a second attempt elsewhere — inside the loop, so a hedge
 *                and a retry share one budget and one deadline (`hedge: false` removes it);
 *   record       what an attempt reports: permit outcomes (fanned out to the parts'
 *                reporters, `parts/permit-host.ts`), endpoint health, events, exporters;
 *   exchange     one request/response under the attempt's cancellation, then the executor.
 *
 * Between calls, the parts (endpoint health and probes, the chain guard, fleet wiring,
 * subscriptions) filter candidates in admission and register their outcome reporters here.
 */
import { Admission } from '../admission/admitter.js';
import { buildKindGroups, callTimeoutMsOf } from '../admission/kind-groups.js';
import { EndpointLoad, RoleState } from '../admission/role-state.js';
import { PoolEvents } from '../api/events.js';
import { Balancer } from '../balance/balancer.js';
import { DEFAULT_MAX_BATCH_SIZE } from '../batch/rules.js';
import { systemClock, systemRandom, TimerQueue, type Clock, type Random } from '../clock.js';
import { DEFAULT_MAX_OPERATOR_SHARE, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_RETRY, methodConsensusOf, normalizeEndpoints, type NormalizedEndpoint } from '../config/normalize.js';
import { createConsensusCounters, type ConsensusCounters } from '../consensus/consensus-snapshot.js';
import { consensusParts } from '../parts/consensus-wiring.js';
import type { HttpTransportPoolOptions, MethodClassification } from '../config/types.js';
import { createRedactor, secretFragments } from '../errors/redact.js';
import { createDefaultExecutor } from '../http/default-executor.js';
import { integrityAskOf, integrityFactsOf } from '../integrity/integrity-ask.js';
import { classifyMethod, METHOD_TABLE } from '../jsonrpc/method-table.js';
import { creditMeterOf } from '../parts/credit-budget.js';
import { concurrencyAutopilotReporter, gradientLimitOf } from '../parts/concurrency-autopilot.js';
import { ChainGuard, chainChecksOf, describeExpectedChain } from '../parts/chain-guard.js';
import { EndpointHealth } from '../parts/endpoint-health.js';
import type { FleetWiring } from '../parts/fleet-wiring.js';
import { ReadCache } from '../parts/read-cache.js';
import { resolveCacheSettings } from '../cache/cache-settings.js';
import { balancerReporter, createPermitHost, roleStateReporter, type OutcomeReporter } from '../parts/permit-host.js';
import { PoolHealth } from '../parts/pool-health.js';
import { rateAutopilotReporter } from '../parts/rate-autopilot.js';
import { createOriginRequests, type OriginRequests } from '../parts/origin-requests.js';
import { createSettledHashes } from '../parts/settled-hashes.js';
import { endpointsBelowHead } from '../parts/head-floor.js';
import { PoolSubscriptions, wsUrlsOf } from '../parts/subscriptions.js';
import { createBatchSizes, runBatch, type BatchSizes } from '../pipeline/batch-request.js';
import { askEndpoint } from '../pipeline/exchange.js';
import { Hedging } from '../pipeline/hedge-state.js';
import type { CallBudget, PipelineHost } from '../pipeline/host.js';
import type { RequestKind } from '../retry/causes.js';
import { reconcileSettingsOf } from '../pipeline/reconcile.js';
import { PoolAdmission } from './admit.js';
import { assembleRequestPath, type RequestPath } from './request-path.js';
import type { RequestOptions } from '../api/request-options.js';
import type { CallContext } from '../pipeline/call-context.js';
import { attachLogger } from '../logging/pool-logger.js';

/** Everything a pool is made of; the facade (`HttpTransportPool`) delegates to it. */
export interface PoolParts {
  readonly clock: Clock;
  readonly events: PoolEvents;
  readonly endpoints: readonly NormalizedEndpoint[];
  readonly roles: readonly RoleState[];
  readonly admission: PoolAdmission;
  readonly host: PipelineHost;
  /** The composed request path (reassembled when an exporter attaches or detaches). */
  readonly path: RequestPath;
  readonly health: PoolHealth;
  readonly endpointHealth: EndpointHealth;
  readonly chainGuard: ChainGuard | undefined;
  readonly hedging: Hedging | undefined;
  readonly fleet: FleetWiring | undefined;
  readonly subscriptions: PoolSubscriptions;
  /** Calls answered by a named operator, and the head two operators vouch for (proofs of expiry and depth). */
  readonly origins: OriginRequests;
  /** The read cache's state; undefined with `cache: false`. */
  readonly cache: ReadCache | undefined;
  /** Consensus reads' counters. */
  readonly consensus: ConsensusCounters;
  /** What close() also stops: the logger, status servers. */
  readonly onClose: Set<() => void | Promise<void>>;
  classify(method: string, options: { readonly kind?: RequestKind | undefined; readonly retryClass?: MethodClassification['retryClass'] | undefined }): MethodClassification;
  /** A call's time budget, in ms: its `timeoutMs`, else the pool's default for the method's kind (what a session's wait is bounded by). */
  timeoutMsOf(method: string, options: RequestOptions): number;
}

/** A budget that never runs out and keeps nothing: without hedging, retries are bounded by `maxRetries` alone. */
const UNBOUNDED_BUDGET: CallBudget = { deposit: () => undefined, tryRetry: () => true };

export function assemblePool(options: HttpTransportPoolOptions): PoolParts {
  const endpoints = normalizeEndpoints(options);
  const clock = options.clock ?? systemClock;
  const random: Random = options.random ?? systemRandom;
  const events = new PoolEvents();
  const now = clock.now();
  const balance = options.balance === false ? undefined : (options.balance ?? {});
  const roles = endpoints.flatMap((endpoint) => {
    const load = new EndpointLoad(endpoint.maxConcurrentRequests, balance?.decayMs, creditMeterOf(endpoint, clock, events), gradientLimitOf(endpoint));
    return endpoint.roles.map((role) => new RoleState(endpoint, role, now, load));
  });
  const balancer = balance === undefined ? undefined : new Balancer(roles, balance);
  const rolesPerKind = new Map<RequestKind, number>();
  for (const role of roles) rolesPerKind.set(role.settings.kind, (rolesPerKind.get(role.settings.kind) ?? 0) + 1);
  const hedging = options.hedge === false ? undefined : new Hedging(options.hedge ?? {}, rolesPerKind, now);
  // The fleet brings its wiring (PoolFleet.wire): a pool without one imports no fleet code.
  const fleet = options.fleet === undefined ? undefined : (options.fleet.wire(clock) as FleetWiring);
  const health = new PoolHealth(options, endpoints, roles, events, clock, fleet?.healthHooks);
  const maxOperatorShare = options.concentration?.maxOperatorShare ?? DEFAULT_MAX_OPERATOR_SHARE;
  const groups = buildKindGroups(roles, random, maxOperatorShare, events, clock, options.timeoutMs);
  const methods = options.methods ?? {};
  const classify: PoolParts['classify'] = (method, callOptions) => {
    const base = classifyMethod(method, methods);
    return { kind: callOptions.kind ?? base.kind, retryClass: callOptions.retryClass ?? base.retryClass };
  };
  const redact = createRedactor(
    secretFragments(
      [...endpoints.map((e) => e.url), ...wsUrlsOf(endpoints, options.subscriptions)],
      endpoints.flatMap((e) => Object.values(e.headers)),
    ),
  );
  const onClose = new Set<() => void | Promise<void>>();

  // Between calls: the chain guard and endpoint health ask endpoints outside admission and
  // filter admission's candidates. Their hosts reach parts built below (closures, called later).
  const chainChecks = chainChecksOf(options);
  const expectedChain = describeExpectedChain(options);
  const ask = (role: RoleState, check: Parameters<typeof askEndpoint>[2]) => askEndpoint(host, role, check);
  const chainGuard: ChainGuard | undefined =
    chainChecks.length === 0
      ? undefined
      : new ChainGuard(chainChecks, roles, events, clock, {
          ask,
          wake: () => admission.drainAll(),
          closed: () => admission.closed,
          onWrongChain: (endpointId) => admission.excludeEndpoint(endpointId),
          onCheckFailed: (role, failure) => {
            if (failure.cause === 'rate-limited') permitHost.onRateLimited(role, failure.providerDelayMs);
            else permitHost.onFailure(role, failure.cause, failure);
          },
          onCheckSucceeded: (role, latencyMs) => health.recordSuccess(role, latencyMs),
          onVerdict: (endpointId, status) => fleet?.chainVerdict(endpointId, status),
        });
  const endpointHealth: EndpointHealth = new EndpointHealth(options.health, options.chain, endpoints, roles, health, chainGuard, events, clock, random, {
    ask,
    waiting: (kind) => admission.waiting(kind),
    wake: () => admission.drainAll(),
    closed: () => admission.closed,
  });
  const admission: PoolAdmission = new PoolAdmission(clock, new Admission(clock, endpointHealth, chainGuard, balancer), groups, endpoints, expectedChain);

  // What a permit's outcome reports to: each capability that is on registers its reporter.
  const reporters: OutcomeReporter[] = [
    {
      onSuccess: (role, latencyMs) => health.recordSuccess(role, latencyMs),
      onFailure: (role, cause, failure) => {
        health.recordFailure(role, cause, failure);
        endpointHealth.afterFailure(role);
      },
      onRateLimited: (role) => {
        health.recordFailure(role, 'rate-limited', undefined);
        endpointHealth.afterFailure(role);
      },
    },
  ];
  if (balancer !== undefined) reporters.push(balancerReporter(balancer, clock));
  if (hedging !== undefined) reporters.push(hedging.reporter);
  reporters.push(rateAutopilotReporter(roles, clock, events, fleet?.lateLearner));
  const concurrency = concurrencyAutopilotReporter(roles, clock, events);
  if (concurrency !== undefined) reporters.push(concurrency);
  reporters.push(roleStateReporter(clock, events, fleet === undefined ? undefined : (role, cooldownMs) => fleet.cooldownStarted(role, cooldownMs)));
  const permitHost = createPermitHost(reporters, clock, (kind) => admission.drain(kind));
  admission.reportTo(permitHost);

  fleet?.connect({ roles, endpoints, events, health, heads: endpointHealth, chainGuard, expectedChain, wake: (kind) => admission.drain(kind) });
  const subscriptions = new PoolSubscriptions({
    endpoints, roles, health: endpointHealth, chainGuard, events, clock, random, maxOperatorShare, redact,
    // `path` is built below; a backfill runs only after a subscription rebinds.
    request: (method, params, requestOptions) => path.request(method, params, requestOptions),
    options,
  });

  // Integrity (src/integrity/): the verified chain, and settled block hashes where EVM blocks may be read.
  const integrity = options.integrity === false ? undefined : options.integrity === true || options.integrity === undefined ? {} : options.integrity;
  const settled = integrity === undefined || options.chain === 'solana' ? undefined : createSettledHashes(integrity.reorgWindowBlocks, () => endpointHealth.tipOf('block'));
  const integrityFacts = { ...integrityFactsOf(options.expectedChain), settledHashAt: settled?.settledHashAt };
  let id = 0;
  const host: PipelineHost = {
    clock,
    random,
    executor: options.executor ?? createDefaultExecutor(),
    events,
    // Field by field: an explicit `undefined` (e.g. from an unset env var) keeps the default.
    retry: {
      maxRetries: options.retry?.maxRetries ?? DEFAULT_RETRY.maxRetries,
      initialBackoffMs: options.retry?.initialBackoffMs ?? DEFAULT_RETRY.initialBackoffMs,
      maxBackoffMs: options.retry?.maxBackoffMs ?? DEFAULT_RETRY.maxBackoffMs,
    },
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    redact,
    cancelOnClose: new Set(),
    attemptTimers: new TimerQueue(clock),
    answers: {
      historicalOf: (method, params) => endpointHealth.historicalOf(method, params),
      historicalAvoid: (kind, read) => {
        const group = groups.get(kind);
        return group === undefined ? undefined : endpointHealth.avoidFor(read, group.roles);
      },
      belowHead: (kind, minHead) => endpointsBelowHead(groups.get(kind)?.roles ?? [], minHead, (index) => endpointHealth.headOf(index, clock.now())?.value),
      onAnswer:
        settled === undefined
          ? (role, method, params, historical, outcome) => endpointHealth.onAnswer(role, method, params, historical, outcome)
          : (role, method, params, historical, outcome) => {
              endpointHealth.onAnswer(role, method, params, historical, outcome);
              settled.observe(role, method, outcome);
            },
    },
    closedError: () => admission.closedError,
    nextId: () => (id = id >= Number.MAX_SAFE_INTEGER ? 1 : id + 1),
    acquire: (kind, acquireOptions, avoid, explore, method) => admission.acquire(kind, acquireOptions, avoid, explore, method),
    tryAcquire: (kind, acquireOptions, avoid, explore, method) => admission.tryAcquire(kind, acquireOptions, avoid, explore, method),
    classify,
    // Integrity checks are on by default; off, a call reads no question from its params.
    integrityOf: integrity === undefined ? () => undefined : (method, params) => integrityAskOf(method, params, integrityFacts),
    budgetOf: (kind) => hedging?.of(kind)?.budget ?? UNBOUNDED_BUDGET,
    methodConsensus: methodConsensusOf(options),
  };
  const consensus = createConsensusCounters();
  const sizes: BatchSizes = createBatchSizes(
    new Map(endpoints.map((endpoint) => [endpoint.id, options.endpoints[endpoint.index]?.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE])),
    DEFAULT_MAX_BATCH_SIZE,
  );
  const cacheSettings = resolveCacheSettings(options.cache);
  const cache =
    cacheSettings === undefined
      ? undefined
      : new ReadCache(cacheSettings, { probeFinality: options.chain === 'evm', chainVerified: options.expectedChain?.chainId !== undefined }, clock, events, {
          // Pinned requests bypass the cache stage: these never answer from it, nor recurse.
          askBlock: (endpointId, ref) => path.request('eth_getBlockByNumber', [ref, false], { endpoint: endpointId }),
          askOtherOperator: (endpointId, method, params) => {
            const operator = endpoints.find((e) => e.id === endpointId)?.operator;
            const other = endpoints.find((e) => e.operator !== operator);
            return other === undefined ? undefined : path.request(method, params, { endpoint: other.id });
          },
        });
  const callTimeoutMs = (call: CallContext, callOptions: RequestOptions) => callTimeoutMsOf(groups.get(call.kind), callOptions);
  const path = assembleRequestPath(host, {
    coalesce: options.coalesce ?? true,
    cache,
    consensus: consensusParts({ roles, clock, isExcluded: (role, nowMs) => endpointHealth.isExcluded(role, nowMs), permits: permitHost }, endpointHealth.settings.allowance, consensus, callTimeoutMs),
    cacheMiss: cache && fleet?.readCacheMiss(cache, callTimeoutMs),
    timeoutMsOf: callTimeoutMs,
    microBatch: options.batch === undefined || options.batch === false ? undefined : options.batch,
    batch: (calls, batchOptions) => runBatch(host, sizes, calls, batchOptions),
    reconcile: reconcileSettingsOf(options.reconcileSends),
    hedge:
      hedging === undefined
        ? undefined
        : {
            hedging,
            timers: new TimerQueue(clock),
            tryHedgePermit: (kind, primary, signal, method) => admission.tryHedgePermit(kind, primary, signal, method),
            observeLost: (role, elapsedMs) => balancer?.observeLost(role, elapsedMs, clock.now()),
          },
    // Deterministic exploration: a credit, not a random draw, so the injected random's sequence (backoffs) is untouched.
    exploreRatio: balancer?.exploreRatio ?? 0,
    labeler: {
      // A value set the configuration bounds: the built-in table and the user's `methods`, never a prefix family.
      methodLabel: (method) => (METHOD_TABLE.has(method) || Object.hasOwn(methods, method) ? method : 'other'),
      kindLabel: (kind) => (groups.has(kind) ? kind : 'other'),
    },
  });
  const origins = createOriginRequests(roles, clock, options.chain, endpointHealth, {
    kindOf: (method, requestOptions) => classify(method, requestOptions).kind,
    request: (method, params, requestOptions) => path.request(method, params, requestOptions),
  });
  if (options.logger) onClose.add(attachLogger(options.logger, events, (observer) => path.observe(observer)));
  const timeoutMsOf = (method: string, requestOptions: RequestOptions) => callTimeoutMsOf(groups.get(classify(method, requestOptions).kind), requestOptions);
  return { clock, events, endpoints, roles, admission, host, path, health, endpointHealth, chainGuard, hedging, fleet, subscriptions, origins, cache, consensus, onClose, classify, timeoutMsOf };
}
