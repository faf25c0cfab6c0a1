import { EndpointLoad, RoleState } from '../admission/role-state.js';
import { systemClock, systemRandom, TimerQueue, type Clock } from '../clock.js';
import {
  DEFAULT_MAX_OPERATOR_SHARE,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_RETRY,
  normalizeEndpoints,
  type NormalizedEndpoint,
} from '../config/normalize.js';
import type { HttpTransportPoolOptions, MethodClassification } from '../config/types.js';
import { createRedactor, secretFragments } from '../errors/redact.js';
import { TransportError } from '../errors/transport-error.js';
import type { ClassifiedFailure } from '../http/outcome.js';
import { createUndiciExecutor } from '../http/undici-executor.js';
import { classifyMethod } from '../jsonrpc/method-table.js';
import type { FailureCause, RequestKind } from '../retry/causes.js';
import { abortedError, Admission } from './admission.js';
import type { KindGroup } from './admission-model.js';
import { reconcileSettingsOf } from './reconcile.js';
import { ChainGuard, chainChecksOf, chainMismatchError, describeExpectedChain, type ChainGuardHost } from './chain-guard.js';
import { PoolEvents, type PoolEventListener, type PoolEventName } from './events.js';
import { PoolHealth } from './pool-health.js';
import { FleetWiring } from './fleet-wiring.js';
import { HttpRequestPermit, permitRole, type PermitHost } from './permit.js';
import { Hedging } from './hedged-attempt.js';
import { askEndpoint } from './attempt.js';
import { Balancer } from '../balance/balancer.js';
import { runRequest } from './request-loop.js';
import type { AcquireOptions, PoolInternals, RetryAvoidance } from './internals.js';
import type { RequestOptions, RpcRequester } from './request-options.js';
import { buildSnapshot, type PoolSnapshot } from './snapshot.js';
import { buildKindGroups } from './topology.js';

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
  readonly #admission: Admission;
  /** Latency-aware choice; undefined with `balance: false` (plain rotation). */
  readonly #balancer: Balancer | undefined;
  /** Hedged reads and the retry budget; undefined with `hedge: false`. */
  readonly #hedging: Hedging | undefined;
  readonly #health: PoolHealth;
  readonly #internals: PoolInternals;
  readonly #methods: Readonly<Record<string, MethodClassification>>;
  /** Endpoint ids per operator (a hedge prefers another operator). */
  readonly #sameOperator = new Map<string, Set<string>>();
  readonly #expectedChain: string;
  readonly #chainGuard: ChainGuard | undefined;
  /** Fleet mode (`fleet` option): shared buckets, cooldowns, benches, breaker opens, chain verdicts. */
  readonly #fleet: FleetWiring | undefined;
  #closed = false;
  #closedError: TransportError<'POOL_CLOSED'> | undefined;
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
    for (const endpoint of this.#endpoints) {
      const ids = this.#sameOperator.get(endpoint.operator) ?? new Set<string>();
      ids.add(endpoint.id);
      this.#sameOperator.set(endpoint.operator, ids);
    }
    const chainChecks = chainChecksOf(options);
    this.#expectedChain = describeExpectedChain(options);
    this.#chainGuard =
      chainChecks.length === 0 ? undefined : new ChainGuard(chainChecks, this.#roles, this.#events, this.#clock, this.#chainGuardHost());
    this.#admission = new Admission(this.#clock, this.#health, this.#chainGuard, this.#balancer);
    this.#fleet?.connect({
      roles: this.#roles,
      endpoints: this.#endpoints,
      events: this.#events,
      health: this.#health,
      chainGuard: this.#chainGuard,
      expectedChain: this.#expectedChain,
      wake: (kind) => {
        const group = this.#groups.get(kind);
        if (group && !this.#closed) this.#admission.drain(group);
      },
    });
    const fragments = secretFragments(
      this.#endpoints.map((e) => e.url),
      this.#endpoints.flatMap((e) => Object.values(e.headers)),
    );
    let id = 0;
    // Deterministic exploration: a credit, not a random draw, so the injected random's sequence (backoffs) is untouched.
    const exploreRatio = this.#balancer?.exploreRatio ?? 0;
    let exploreCredit = 0;
    const pool = this;
    this.#internals = {
      clock: this.#clock,
      random,
      executor: options.executor ?? createUndiciExecutor(),
      events: this.#events,
      // Field by field: an explicit `undefined` (e.g. from an unset env var) keeps the default.
      retry: {
        maxRetries: options.retry?.maxRetries ?? DEFAULT_RETRY.maxRetries,
        initialBackoffMs: options.retry?.initialBackoffMs ?? DEFAULT_RETRY.initialBackoffMs,
        maxBackoffMs: options.retry?.maxBackoffMs ?? DEFAULT_RETRY.maxBackoffMs,
      },
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      reconcile: reconcileSettingsOf(options.reconcileSends),
      redact: createRedactor(fragments),
      cancelOnClose: new Set(),
      attemptTimers: new TimerQueue(this.#clock),
      hedgeTimers: new TimerQueue(this.#clock),
      closedError: () => pool.#closedError,
      nextId: () => (id = id >= Number.MAX_SAFE_INTEGER ? 1 : id + 1),
      acquire: (kind, acquireOptions, avoid, explore) => pool.#acquire(kind, acquireOptions, avoid, explore),
      tryAcquire: (kind, acquireOptions, avoid, explore) => pool.#tryAcquire(kind, acquireOptions, avoid, explore),
      classify: (method, requestOptions) => pool.#classify(method, requestOptions),
      hedging: this.#hedging,
      tryHedgePermit: (kind, primary, signal) => pool.#tryHedgePermit(kind, primary, signal),
      observeLost: (role, elapsedMs) => pool.#balancer?.observeLost(role, elapsedMs, pool.#clock.now()),
      nextExplores: () => {
        if (exploreRatio === 0) return false;
        exploreCredit += exploreRatio;
        if (exploreCredit < 1) return false;
        exploreCredit -= 1;
        return true;
      },
    };
  }

  /**
   * Sends one JSON-RPC call through the pool and resolves with its `result` (integers
   * above 2^53 as exact `bigint`). Rejects with a `TransportError` carrying every attempt.
   */
  request(method: string, params: readonly unknown[] = [], options: RequestOptions = {}): Promise<unknown> {
    return runRequest(this.#internals, method, params, options);
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
    return this.#acquire(this.#classify(method, {}).kind, options);
  }

  /** Waits for admission of one call of `kind` (`read`, `submit`, or a custom kind). */
  acquireForRequestKind(kind: RequestKind, options: AcquireOptions = {}): Promise<HttpRequestPermit> {
    return this.#acquire(kind, options);
  }

  /** Subscribes to an event; returns the unsubscribe function. */
  on<E extends PoolEventName>(name: E, listener: PoolEventListener<E>): () => void {
    return this.#events.on(name, listener);
  }

  /** Per-role and per-endpoint state. Contains endpoint ids and operators only — never a URL, header or key. */
  snapshot(): PoolSnapshot {
    return buildSnapshot(this.#endpoints, this.#roles, this.#health, this.#chainGuard, this.#hedging, this.#clock.now(), this.#closed);
  }

  /** Rejects waiting calls with `POOL_CLOSED`, aborts calls in flight, stops every timer and closes connections. */
  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    this.#closed = true;
    const closedError = () => new TransportError('POOL_CLOSED', 'The pool was closed', { context: {} });
    this.#closedError = closedError();
    for (const group of this.#groups.values()) this.#admission.rejectAll(group, closedError);
    for (const attempt of [...this.#internals.cancelOnClose]) attempt.abortByCaller();
    this.#fleet?.close();
    this.#closing = this.#internals.executor.close();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #classify(method: string, options: RequestOptions): MethodClassification {
    const base = classifyMethod(method, this.#methods);
    return { kind: options.kind ?? base.kind, retryClass: options.retryClass ?? base.retryClass };
  }

  #tryAcquire(kind: RequestKind, options: AcquireOptions, avoid?: RetryAvoidance, explore = false): HttpRequestPermit | undefined {
    const group = this.#groups.get(kind);
    if (this.#closed || !group || group.enabledRoles === 0 || options.endpoint !== undefined) return undefined;
    const timeoutMs = options.timeoutMs ?? group.defaultTimeoutMs;
    if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) return undefined;
    const deadlineMs = this.#clock.now() + timeoutMs;
    const role = this.#admission.tryNow({
      group,
      pin: undefined,
      avoid: avoid?.endpoints,
      avoidUntilMs: avoid?.untilMs ?? 0,
      deadlineMs,
      timeoutMs,
      signal: options.signal,
      explore,
    });
    return role && new HttpRequestPermit(role, this.#permitHost, deadlineMs);
  }

  #tryHedgePermit(kind: RequestKind, primary: HttpRequestPermit, signal: AbortSignal | undefined): HttpRequestPermit | undefined {
    const timeoutMs = primary.deadlineMs - this.#clock.now();
    const never = Number.POSITIVE_INFINITY;
    const role = permitRole(primary);
    // PATH's rule: not the first attempt's operator, when another can take it; never the same endpoint.
    const sameOperator = this.#sameOperator.get(role.endpoint.operator)!;
    return (
      this.#tryAcquire(kind, { timeoutMs, signal }, { endpoints: sameOperator, untilMs: never }) ??
      (sameOperator.size > 1 ? this.#tryAcquire(kind, { timeoutMs, signal }, { endpoints: new Set([role.endpointId]), untilMs: never }) : undefined)
    );
  }

  #acquire(kind: RequestKind, options: AcquireOptions, avoid?: RetryAvoidance, explore = false): Promise<HttpRequestPermit> {
    if (this.#closed) return Promise.reject(new TransportError('POOL_CLOSED', 'The pool was closed', { context: {} }));
    if (options.signal?.aborted) return Promise.reject(abortedError(options.signal));
    const group = this.#groups.get(kind);
    const pin = options.endpoint === undefined ? undefined : group?.roles.find((role) => role.endpointId === options.endpoint);
    if (!group || (options.endpoint !== undefined && !pin)) return Promise.reject(this.#noEndpoint(kind, options.endpoint));
    if (group.enabledRoles === 0 || pin?.disabled) return Promise.reject(chainMismatchError(this.#expectedChain, kind, pin?.endpointId));
    const timeoutMs = options.timeoutMs ?? (pin ? pin.settings.requestTimeoutMs : group.defaultTimeoutMs);
    if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) {
      return Promise.reject(new TransportError('INVALID_INPUT', 'timeoutMs must be a finite number > 0', { context: { field: 'timeoutMs' } }));
    }
    const deadlineMs = this.#clock.now() + timeoutMs;
    return this.#admission
      .acquire({ group, pin, avoid: avoid?.endpoints, avoidUntilMs: avoid?.untilMs ?? 0, deadlineMs, timeoutMs, signal: options.signal, explore })
      .then((role) => new HttpRequestPermit(role, this.#permitHost, deadlineMs));
  }

  #noEndpoint(kind: RequestKind, pinned: string | undefined): TransportError<'NO_ENDPOINT'> {
    if (pinned === undefined) return new TransportError('NO_ENDPOINT', `No endpoint serves '${kind}' requests`, { context: { kind } });
    // Echo a pin only when it is a configured id: a caller may have passed a URL (with its key) by mistake.
    if (this.#endpoints.some((endpoint) => endpoint.id === pinned)) {
      return new TransportError('NO_ENDPOINT', `Endpoint '${pinned}' does not serve '${kind}' requests`, {
        context: { kind, pinnedEndpoint: pinned },
      });
    }
    return new TransportError('NO_ENDPOINT', `The pinned endpoint is not a configured endpoint id (kind '${kind}')`, { context: { kind } });
  }

  #chainGuardHost(): ChainGuardHost {
    return {
      ask: (role, check) => askEndpoint(this.#internals, role, check),
      wake: () => {
        for (const group of this.#groups.values()) this.#admission.drain(group);
      },
      closed: () => this.#closed,
      onWrongChain: (endpointId) => this.#excludeEndpoint(endpointId),
      onCheckFailed: (role, failure) => {
        if (failure.cause === 'rate-limited') this.#permitHost.onRateLimited(role, failure.providerDelayMs);
        else this.#permitHost.onFailure(role, failure.cause, failure);
      },
      onCheckSucceeded: (role, latencyMs) => this.#health.recordSuccess(role, latencyMs),
      onVerdict: (endpointId, status) => this.#fleet?.chainVerdict(endpointId, status),
    };
  }


  /** The chain guard found `endpointId` on another chain: out of every kind for good; calls that can no longer be served fail now. */
  #excludeEndpoint(endpointId: string): void {
    for (const group of this.#groups.values()) {
      const role = group.roles.find((candidate) => candidate.endpointId === endpointId);
      if (!role || role.disabled) continue;
      role.disable();
      group.enabledRoles--;
      const kind = group.kind;
      if (group.enabledRoles === 0) this.#admission.rejectAll(group, () => chainMismatchError(this.#expectedChain, kind, undefined));
      else this.#admission.rejectAll(group, () => chainMismatchError(this.#expectedChain, kind, endpointId), (request) => request.pin === role);
    }
  }

  readonly #permitHost: PermitHost = {
    onSuccess: (role, latencyMs) => {
      role.recordSuccess();
      this.#health.recordSuccess(role, latencyMs);
      this.#balancer?.observe(role, latencyMs, this.#clock.now());
      const hedging = this.#hedging?.of(role.settings.kind);
      if (hedging?.hasPeers) hedging.quantile.observe(latencyMs);
    },
    onFailure: (role, cause: FailureCause, failure: ClassifiedFailure | undefined, elapsedMs?: number) => {
      role.recordFailure();
      // A timed-out attempt took at least this long: the latency estimate must know.
      if (cause === 'timeout' && elapsedMs !== undefined) this.#balancer?.observeAtLeast(role, elapsedMs, this.#clock.now());
      this.#health.recordFailure(role, cause, failure);
      if (failure?.providerDelayMs !== undefined && cause !== 'rate-limited') this.#startCooldown(role, failure.providerDelayMs, false);
    },
    onRateLimited: (role, providerDelayMs) => {
      this.#health.recordFailure(role, 'rate-limited', undefined);
      this.#startCooldown(role, providerDelayMs, true);
    },
    onRelease: (role, reported) => {
      const endpointWasFull = role.load.max !== undefined && role.load.inFlight >= role.load.max;
      role.release(this.#clock.now(), reported);
      if (endpointWasFull) {
        // The endpoint's shared limit frees a permit for each of its kinds.
        for (const { kind } of role.endpoint.roles) {
          const group = this.#groups.get(kind);
          if (group) this.#admission.drain(group);
        }
        return;
      }
      const group = this.#groups.get(role.settings.kind);
      if (group) this.#admission.drain(group);
    },
  };

  #startCooldown(role: RoleState, providerDelayMs: number | undefined, rateLimited: boolean): void {
    const now = this.#clock.now();
    const before = role.availability;
    const cooldownMs = rateLimited ? role.recordRateLimited(now, providerDelayMs) : role.startCooldown(now, providerDelayMs);
    const kind = role.settings.kind;
    if (rateLimited) this.#events.emit('rate-limited', { atMs: now, endpointId: role.endpointId, kind, providerDelayMs, cooldownMs });
    if (before !== 'rate-limited') this.#events.emit('cooldown', { atMs: now, endpointId: role.endpointId, kind, phase: 'start', durationMs: cooldownMs });
    this.#fleet?.cooldownStarted(role, role.cooldownUntilMs - now);
  }
}
