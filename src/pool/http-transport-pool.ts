import { PoolSession, type SessionHost } from '../consistency/session.js';
import { sessionHostOf } from '../consistency/session-host.js';
import { sessionPartsOf } from './session-parts.js';
import type { HttpRequestPermit } from '../admission/permit.js';
import type { PoolEventListener, PoolEventName } from '../api/events.js';
import type { HeadKind, OriginatedAnswer, OriginRequestOptions, RequestOptions, RpcRequester } from '../api/request-options.js';
import type { BatchCall, BatchItemResult, BatchOptions } from '../batch/types.js';
import type { HttpTransportPoolOptions, MethodClassification } from '../config/types.js';
import { poolClosedError, TransportError } from '../errors/transport-error.js';
import type { RequestKind } from '../retry/causes.js';
import type { AcquireOptions } from '../admission/acquire-options.js';
import { OBSERVE_CALLS, type CallObserver } from '../pipeline/call-observer.js';
import type { ServeStatusOptions, StatusServer } from '../status/status-server.js';
import { serveStatus } from '../status/serve-status.js';
import type { SubscribeOptions, Subscription } from '../subscriptions/types.js';
import { assemblePool, type PoolParts } from './assemble.js';
import { buildSnapshot, type PoolSnapshot } from './snapshot.js';

export type { AcquireOptions } from '../admission/acquire-options.js';

/**
 * One in-process pool of JSON-RPC HTTP endpoints: admission (tiers, rotation, RPS/burst,
 * concurrency, rate-limit cooldowns) under one deadline per call, reputation, an operator
 * cap, and retries that never resend a call that may already have reached a node.
 *
 * A facade: construction assembles the parts and the request path (`pool/assemble.ts`, which
 * states the stage order), and every method delegates.
 */
export class HttpTransportPool implements RpcRequester, AsyncDisposable {
  readonly #parts: PoolParts;
  readonly #options: HttpTransportPoolOptions;
  #sessionHost: SessionHost | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: HttpTransportPoolOptions) {
    this.#parts = assemblePool(options);
    this.#options = options;
  }

  /**
   * Sends one JSON-RPC call through the pool and resolves with its `result` (integers
   * above 2^53 as exact `bigint`). Rejects with a `TransportError` carrying every attempt.
   */
  request(method: string, params: readonly unknown[] = [], options: RequestOptions = {}): Promise<unknown> {
    return this.#parts.path.request(method, params, options);
  }

  /** One call pinned to the best endpoint of an operator not in `excludeOperators` (failing over among them), and who answered. */
  requestWithOrigin(method: string, params: readonly unknown[] = [], options: OriginRequestOptions = {}): Promise<OriginatedAnswer> {
    return this.#parts.origins.requestWithOrigin(method, params, options);
  }

  /**
   * A session over this pool: reads that never go older than what the session has seen
   * (docs/reads.md "Sessions"). Pass it wherever the pool goes (`createSolanaClient(session)`, the
   * adapters). Costs no timer and no socket; drop it when done.
   */
  session(): PoolSession {
    return new PoolSession(this, (this.#sessionHost ??= sessionHostOf(sessionPartsOf(this.#parts), this.#options)));
  }

  /** The highest head (Solana slot, EVM block) that two operators' endpoints reported; undefined until two have. */
  trustedHead = (kind: HeadKind): bigint | undefined => this.#parts.origins.trustedHead(kind);

  /** @internal The exporters' hook (see `pipeline/call-observer.ts`); returns the function that removes `observer`. */
  [OBSERVE_CALLS]<S>(observer: CallObserver<S>): () => void {
    return this.#parts.path.observe(observer);
  }

  /**
   * Sends `calls` as JSON-RPC batches: one HTTP request per kind and endpoint (split above
   * the endpoint's `maxBatchSize`), each item admitted as one token. Resolves with one
   * result or `TransportError` per call, in order; items that failed retryably are sent
   * again without the completed ones, and a request holding a send is never resent after
   * it may have reached a node. Rejects only for invalid input (nothing is sent).
   */
  batch(calls: readonly BatchCall[], options: BatchOptions = {}): Promise<BatchItemResult[]> {
    return this.#parts.path.batch(calls, options);
  }

  /** The kind and retry class the pool gives `method`: the built-in table plus the `methods` option. */
  classifyMethod(method: string): MethodClassification {
    return this.#parts.classify(method, {});
  }

  /** Waits for admission of one call of `method` (its kind comes from the method table). */
  acquireForMethod(method: string, options: AcquireOptions = {}): Promise<HttpRequestPermit> {
    if (typeof method !== 'string' || method.length === 0) {
      return Promise.reject(new TransportError('INVALID_INPUT', 'method must be a non-empty string', { context: { field: 'method' } }));
    }
    return this.#parts.admission.acquire(this.#parts.classify(method, {}).kind, options, undefined, false, method);
  }

  /** Waits for admission of one call of `kind` (`read`, `submit`, or a custom kind). */
  acquireForRequestKind(kind: RequestKind, options: AcquireOptions = {}): Promise<HttpRequestPermit> {
    return this.#parts.admission.acquire(kind, options);
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
    if (this.#parts.admission.closed) return Promise.reject(poolClosedError());
    return this.#parts.subscriptions.subscribe<T>(method, params, options);
  }

  /** Subscribes to an event; returns the unsubscribe function. */
  on<E extends PoolEventName>(name: E, listener: PoolEventListener<E>): () => void {
    return this.#parts.events.on(name, listener);
  }

  /** Per-role and per-endpoint state. Contains endpoint ids and operators only — never a URL, header or key. */
  snapshot(): PoolSnapshot {
    const { endpoints, roles, health, chainGuard, hedging, clock, admission, endpointHealth, subscriptions, cache, consensus } = this.#parts;
    const snapshot = buildSnapshot(endpoints, roles, health, chainGuard, hedging, clock.now(), admission.closed, endpointHealth);
    return { ...snapshot, subscriptions: subscriptions.snapshot(), cache: cache?.snapshot(), consensus: { ...consensus } };
  }

  /**
   * Serves `snapshot()` and the last 10 s of activity (share and p50/p99 per endpoint) as
   * JSON at `http://127.0.0.1:<port>/status`, on loopback only — what `sturdy-rpc top
   * --port <port>` shows. The server never keeps the process alive; `close()` on it or on
   * the pool stops it.
   */
  serveStatus(options: ServeStatusOptions = {}): Promise<StatusServer> {
    const { clock, admission, onClose } = this.#parts;
    return serveStatus(this, clock, { closed: () => admission.closed, onClose }, options);
  }

  /** Rejects waiting calls with `POOL_CLOSED`, aborts calls in flight, stops every timer and closes connections. */
  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    const { admission, endpointHealth, host, path, subscriptions, fleet, onClose } = this.#parts;
    admission.close();
    endpointHealth.close();
    for (const attempt of [...host.cancelOnClose]) attempt.abortByCaller();
    host.attemptTimers.close();
    path.close(poolClosedError);
    subscriptions.close();
    fleet?.close();
    const stops = [...onClose].map((stop) => stop());
    onClose.clear();
    this.#closing = Promise.all([host.executor.close(), ...stops]).then(() => undefined);
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
