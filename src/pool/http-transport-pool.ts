import { EndpointLoad, RoleState } from '../admission/role-state.js';
import { systemClock, systemRandom, type Clock } from '../clock.js';
import { DEFAULT_MAX_OPERATOR_SHARE, normalizeEndpoints, type NormalizedEndpoint } from '../config/normalize.js';
import type { HttpTransportPoolOptions, MethodClassification } from '../config/types.js';
import { createRedactor, secretFragments } from '../errors/redact.js';
import { poolClosedError, TransportError } from '../errors/transport-error.js';
import { classifyMethod, METHOD_TABLE } from '../jsonrpc/method-table.js';
import type { RequestKind } from '../retry/causes.js';
import { Admission } from './admission.js';
import { PoolAdmission } from './admit.js';
import type { KindGroup } from './admission-model.js';
import { ChainGuard, chainChecksOf, describeExpectedChain, type ChainGuardHost } from './chain-guard.js';
import { PoolEvents, type PoolEventListener, type PoolEventName } from './events.js';
import { PoolHealth } from './pool-health.js';
import { EndpointHealth } from './endpoint-health.js';
import { FleetWiring } from './fleet-wiring.js';
import type { HttpRequestPermit, PermitHost } from './permit.js';
import { createPermitHost } from './permit-host.js';
import { Hedging } from './hedged-attempt.js';
import { askEndpoint } from './attempt.js';
import { Balancer } from '../balance/balancer.js';
import { observedRequest, runCall, runRequest } from './request-loop.js';
import { CallObservers, OBSERVE_CALLS, type CallLabeler, type CallObserver } from './call-observer.js';
import { runBatch } from './batch-request.js';
import { SharedRequests } from './shared-requests.js';
import type { BatchCall, BatchItemResult, BatchOptions } from '../batch/types.js';
import type { AcquireOptions, PoolInternals } from './internals.js';
import { createPoolInternals } from './pool-internals.js';
import type { HeadKind, OriginatedAnswer, OriginRequestOptions, RequestOptions, RpcRequester } from './request-options.js';
import { createOriginRequests, type OriginRequests } from './origin-requests.js';
import { buildSnapshot, type PoolSnapshot } from './snapshot.js';
import { buildKindGroups } from './topology.js';
import { attachLogger } from '../logging/pool-logger.js';
import type { ServeStatusOptions, StatusServer } from '../status/status-server.js';
import { serveStatus } from '../status/serve-status.js';
import { PoolSubscriptions, wsUrlsOf } from './subscriptions.js';
import type { SubscribeOptions, Subscription } from '../subscriptions/types.js';

export type { AcquireOptions } from './internals.js';

/**
 * One in-process pool of JSON-RPC HTTP endpoints: admission (tiers, rotation, RPS/burst,
 * concurrency, rate-limit cooldowns) under one deadline per call, reputation, an operator
 * cap, and retries that never resend a call that may already have reached a node.
 */
export class HttpTransportPool implements RpcRequester, AsyncDisposable {
  readonly #clock: Clock;
  readonly #events = new PoolEvents();
  readonly #endpoints: readonly NormalizedEndpoint[];
  readonly #roles: readonly RoleState[];
  readonly #groups: ReadonlyMap<RequestKind, KindGroup>;
  readonly #admission: PoolAdmission;
  /** Latency-aware choice; undefined with `balance: false` (plain rotation). */
  readonly #balancer: Balancer | undefined;
  /** Hedged reads and the retry budget; undefined with `hedge: false`. */
  readonly #hedging: Hedging | undefined;
  readonly #health: PoolHealth;
  /** Heads, lag, probes, chain re-checks and archival routing (`health`). */
  readonly #endpointHealth: EndpointHealth;
  readonly #internals: PoolInternals;
  readonly #methods: Readonly<Record<string, MethodClassification>>;
  readonly #expectedChain: string;
  readonly #chainGuard: ChainGuard | undefined;
  /** Exporters (Prometheus, OpenTelemetry, the logger); empty in the common case. */
  readonly #observers = new CallObservers();
  readonly #labeler: CallLabeler = {
    // A value set the configuration bounds: the built-in table and the user's `methods`, never a prefix family.
    methodLabel: (method) => (METHOD_TABLE.has(method) || Object.hasOwn(this.#methods, method) ? method : 'other'),
    kindLabel: (kind) => (this.#groups.has(kind) ? kind : 'other'),
  };
  /** What close() also stops: the logger, status servers. */
  readonly #onClose = new Set<() => void | Promise<void>>();
  readonly #subscriptions: PoolSubscriptions;
  /** Fleet mode (`fleet` option): shared buckets, cooldowns, benches, breaker opens, chain verdicts. */
  readonly #fleet: FleetWiring | undefined;
  /** What a permit reports to: role state, reputation, latency, hedging quantiles, cooldowns. */
  readonly #permitHost: PermitHost;
  /** Calls answered by a named operator, and the head two operators vouch for (proofs of expiry and depth). */
  readonly #origins: OriginRequests;
  #closing: Promise<void> | undefined;

  constructor(options: HttpTransportPoolOptions) {
    this.#endpoints = normalizeEndpoints(options);
    this.#clock = options.clock ?? systemClock;
    const random = options.random ?? systemRandom;
    const now = this.#clock.now();
    const balance = options.balance === false ? undefined : (options.balance ?? {});
    this.#roles = this.#endpoints.flatMap((endpoint) => {
      const load = new EndpointLoad(endpoint.maxConcurrentRequests, balance?.decayMs);
      return endpoint.roles.map((role) => new RoleState(endpoint, role, now, load));
    });
    this.#balancer = balance === undefined ? undefined : new Balancer(this.#roles, balance);
    const rolesPerKind = new Map<RequestKind, number>();
    for (const role of this.#roles) rolesPerKind.set(role.settings.kind, (rolesPerKind.get(role.settings.kind) ?? 0) + 1);
    this.#hedging = options.hedge === false ? undefined : new Hedging(options.hedge ?? {}, rolesPerKind, now);
    this.#fleet = options.fleet === undefined ? undefined : new FleetWiring(options.fleet, this.#clock);
    this.#health = new PoolHealth(options, this.#endpoints, this.#roles, this.#events, this.#clock, this.#fleet?.healthHooks);
    const maxOperatorShare = options.concentration?.maxOperatorShare ?? DEFAULT_MAX_OPERATOR_SHARE;
    this.#groups = buildKindGroups(this.#roles, random, maxOperatorShare, this.#events, this.#clock, options.timeoutMs);
    this.#methods = options.methods ?? {};
    if (options.logger) this.#onClose.add(attachLogger(options.logger, this.#events, (observer) => this.#observers.add(observer)));
    const chainChecks = chainChecksOf(options);
    this.#expectedChain = describeExpectedChain(options);
    this.#chainGuard =
      chainChecks.length === 0 ? undefined : new ChainGuard(chainChecks, this.#roles, this.#events, this.#clock, this.#chainGuardHost());
    this.#endpointHealth = new EndpointHealth(options.health, options.chain, this.#endpoints, this.#roles, this.#health, this.#chainGuard, this.#events, this.#clock, random, {
      ask: (role, check) => askEndpoint(this.#internals, role, check),
      waiting: (kind) => this.#admission.waiting(kind),
      wake: () => this.#admission.drainAll(),
      closed: () => this.#admission.closed,
    });
    this.#admission = new PoolAdmission(this.#clock, new Admission(this.#clock, this.#endpointHealth, this.#chainGuard, this.#balancer), this.#groups, this.#endpoints, this.#expectedChain);
    this.#permitHost = createPermitHost({
      clock: this.#clock,
      events: this.#events,
      health: this.#health,
      endpointHealth: this.#endpointHealth,
      balancer: this.#balancer,
      hedging: this.#hedging,
      fleet: this.#fleet,
      drain: (kind) => this.#admission.drain(kind),
    });
    this.#admission.reportTo(this.#permitHost);
    this.#fleet?.connect({
      roles: this.#roles,
      endpoints: this.#endpoints,
      events: this.#events,
      health: this.#health,
      heads: this.#endpointHealth,
      chainGuard: this.#chainGuard,
      expectedChain: this.#expectedChain,
      wake: (kind) => this.#admission.drain(kind),
    });
    let shared: SharedRequests | undefined;
    const redact = createRedactor(
      secretFragments([...this.#endpoints.map((e) => e.url), ...wsUrlsOf(this.#endpoints, options.subscriptions)], this.#endpoints.flatMap((e) => Object.values(e.headers))),
    );
    this.#subscriptions = new PoolSubscriptions({
      endpoints: this.#endpoints,
      roles: this.#roles,
      health: this.#endpointHealth,
      chainGuard: this.#chainGuard,
      events: this.#events,
      clock: this.#clock,
      random,
      maxOperatorShare,
      redact,
      options,
    });
    this.#internals = createPoolInternals(options, {
      clock: this.#clock,
      random,
      events: this.#events,
      redact,
      groups: this.#groups,
      admission: this.#admission,
      endpointHealth: this.#endpointHealth,
      balancer: this.#balancer,
      hedging: this.#hedging,
      classify: (method, requestOptions) => this.#classify(method, requestOptions),
      endpoints: this.#endpoints,
      shared: () => shared,
    });
    this.#origins = createOriginRequests(this.#roles, this.#clock, options.chain, this.#endpointHealth, {
      kindOf: (method, requestOptions) => this.#classify(method, requestOptions).kind,
      request: (method, params, requestOptions) => this.request(method, params, requestOptions),
    });
    const coalesce = options.coalesce ?? true;
    const microBatch = options.batch === undefined || options.batch === false ? undefined : options.batch;
    if (coalesce || microBatch !== undefined) shared = new SharedRequests(this.#internals, (call, callOptions) => runCall(this.#internals, call, callOptions), coalesce, microBatch, this.#groups);
  }

  /**
   * Sends one JSON-RPC call through the pool and resolves with its `result` (integers
   * above 2^53 as exact `bigint`). Rejects with a `TransportError` carrying every attempt.
   */
  request(method: string, params: readonly unknown[] = [], options: RequestOptions = {}): Promise<unknown> {
    const observers = this.#observers.list;
    if (observers.length === 0) return runRequest(this.#internals, method, params, options);
    return observedRequest(this.#internals, observers, this.#labeler, method, params, options);
  }

  /** One call pinned to the best endpoint of an operator not in `excludeOperators` (failing over among them), and who answered. */
  requestWithOrigin(method: string, params: readonly unknown[] = [], options: OriginRequestOptions = {}): Promise<OriginatedAnswer> {
    return this.#origins.requestWithOrigin(method, params, options);
  }

  /** The highest head (Solana slot, EVM block) that two operators' endpoints reported; undefined until two have. */
  trustedHead = (kind: HeadKind): bigint | undefined => this.#origins.trustedHead(kind);

  /** @internal The exporters' hook (see `pool/call-observer.ts`); returns the function that removes `observer`. */
  [OBSERVE_CALLS]<S>(observer: CallObserver<S>): () => void {
    return this.#observers.add(observer);
  }

  /**
   * Sends `calls` as JSON-RPC batches: one HTTP request per kind and endpoint (split above
   * the endpoint's `maxBatchSize`), each item admitted as one token. Resolves with one
   * result or `TransportError` per call, in order; items that failed retryably are sent
   * again without the completed ones, and a request holding a send is never resent after
   * it may have reached a node. Rejects only for invalid input (nothing is sent).
   */
  batch(calls: readonly BatchCall[], options: BatchOptions = {}): Promise<BatchItemResult[]> {
    return runBatch(this.#internals, calls, options);
  }

  /** The kind and retry class the pool gives `method`: the built-in table plus the `methods` option. */
  classifyMethod(method: string): MethodClassification {
    return this.#classify(method, {});
  }

  /** Waits for admission of one call of `method` (its kind comes from the method table). */
  acquireForMethod(method: string, options: AcquireOptions = {}): Promise<HttpRequestPermit> {
    if (typeof method !== 'string' || method.length === 0) {
      return Promise.reject(new TransportError('INVALID_INPUT', 'method must be a non-empty string', { context: { field: 'method' } }));
    }
    return this.#admission.acquire(this.#classify(method, {}).kind, options);
  }

  /** Waits for admission of one call of `kind` (`read`, `submit`, or a custom kind). */
  acquireForRequestKind(kind: RequestKind, options: AcquireOptions = {}): Promise<HttpRequestPermit> {
    return this.#admission.acquire(kind, options);
  }

  /**
   * Opens a WebSocket subscription (`slotSubscribe`, `accountSubscribe`, `eth_subscribe`, …)
   * on an endpoint with a WebSocket URL, chosen like a call (tier, reputation band, chain
   * guard) under the operator cap counted in open subscriptions. Resolves once a node
   * confirmed it; the iterable then survives its sockets: silent, closed or failing sockets
   * and endpoints leaving rotation move it elsewhere (a `rebind` item), duplicates are
   * dropped and skipped numbers of ordered streams reported (`gap`). It ends only with
   * `close()`, the signal, `pool.close()` or an `error` overflow.
   */
  subscribe<T = unknown>(method: string, params: readonly unknown[] = [], options: SubscribeOptions = {}): Promise<Subscription<T>> {
    if (this.#admission.closed) return Promise.reject(poolClosedError());
    return this.#subscriptions.subscribe<T>(method, params, options);
  }

  /** Subscribes to an event; returns the unsubscribe function. */
  on<E extends PoolEventName>(name: E, listener: PoolEventListener<E>): () => void {
    return this.#events.on(name, listener);
  }

  /** Per-role and per-endpoint state. Contains endpoint ids and operators only — never a URL, header or key. */
  snapshot(): PoolSnapshot {
    const snapshot = buildSnapshot(this.#endpoints, this.#roles, this.#health, this.#chainGuard, this.#hedging, this.#clock.now(), this.#admission.closed, this.#endpointHealth);
    return { ...snapshot, subscriptions: this.#subscriptions.snapshot() };
  }

  /**
   * Serves `snapshot()` and the last 10 s of activity (share and p50/p99 per endpoint) as
   * JSON at `http://127.0.0.1:<port>/status`, on loopback only — what `sturdy-rpc top
   * --port <port>` shows. The server never keeps the process alive; `close()` on it or on
   * the pool stops it.
   */
  serveStatus(options: ServeStatusOptions = {}): Promise<StatusServer> {
    return serveStatus(this, this.#clock, { closed: () => this.#admission.closed, onClose: this.#onClose }, options);
  }

  /** Rejects waiting calls with `POOL_CLOSED`, aborts calls in flight, stops every timer and closes connections. */
  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    const closedError = poolClosedError;
    this.#admission.close();
    this.#endpointHealth.close();
    for (const attempt of [...this.#internals.cancelOnClose]) attempt.abortByCaller();
    this.#internals.shared?.close(closedError);
    this.#subscriptions.close();
    this.#fleet?.close();
    const stops = [...this.#onClose].map((stop) => stop());
    this.#onClose.clear();
    this.#closing = Promise.all([this.#internals.executor.close(), ...stops]).then(() => undefined);
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #classify(method: string, options: RequestOptions): MethodClassification {
    const base = classifyMethod(method, this.#methods);
    return { kind: options.kind ?? base.kind, retryClass: options.retryClass ?? base.retryClass };
  }

  #chainGuardHost(): ChainGuardHost {
    return {
      ask: (role, check) => askEndpoint(this.#internals, role, check),
      wake: () => this.#admission.drainAll(),
      closed: () => this.#admission.closed,
      onWrongChain: (endpointId) => this.#admission.excludeEndpoint(endpointId),
      onCheckFailed: (role, failure) => {
        if (failure.cause === 'rate-limited') this.#permitHost.onRateLimited(role, failure.providerDelayMs);
        else this.#permitHost.onFailure(role, failure.cause, failure);
      },
      onCheckSucceeded: (role, latencyMs) => this.#health.recordSuccess(role, latencyMs),
      onVerdict: (endpointId, status) => this.#fleet?.chainVerdict(endpointId, status),
    };
  }
}
