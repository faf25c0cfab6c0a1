/**
 * The pool as the request loop sees it: a contract, so `request-loop.ts`, `run-attempt.ts`,
 * `attempt.ts` and `hedged-attempt.ts` depend on this file and not on the pool class.
 */
import type { RoleState } from '../admission/role-state.js';
import type { Clock, Random, TimerQueue } from '../clock.js';
import type { MethodClassification } from '../config/types.js';
import type { TransportError } from '../errors/transport-error.js';
import type { HttpExecutor } from '../http/executor.js';
import type { RequestKind, RetryClass } from '../retry/causes.js';
import type { TransportRetrySettings } from '../retry/evaluate.js';
import type { HistoricalRead } from '../health/historical.js';
import type { EndpointHealth } from './endpoint-health.js';
import type { PoolEvents } from './events.js';
import type { Hedging } from './hedged-attempt.js';
import type { HttpRequestPermit } from './permit.js';
import type { ReconcileSettings } from './reconcile.js';
import type { RequestOptions } from './request-options.js';
import type { SharedRequests } from './shared-requests.js';

/** Options of `acquireForMethod` / `acquireForRequestKind`. */
export interface AcquireOptions {
  /** Deadline for admission, in ms. @default the pool's default call deadline (`timeoutMs`) */
  readonly timeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Pin to one endpoint id. */
  readonly endpoint?: string | undefined;
}

/** @internal Endpoints that failed this call, and until when they may not be retried (the backoff). */
export interface RetryAvoidance {
  readonly endpoints: ReadonlySet<string>;
  readonly untilMs: number;
}

/** @internal Everything the request loop needs from the pool. */
export interface PoolInternals {
  readonly clock: Clock;
  readonly random: Random;
  readonly executor: HttpExecutor;
  readonly events: PoolEvents;
  readonly retry: TransportRetrySettings;
  readonly maxResponseBytes: number;
  /** `reconcileSends`, resolved; undefined when off. */
  readonly reconcile: ReconcileSettings | undefined;
  readonly redact: (text: string) => string;
  /** Work in flight that pool.close() cancels: attempts, checks, reconciliations. */
  readonly cancelOnClose: Set<{ abortByCaller(): void }>;
  /** One clock timer for every attempt's time limit. */
  readonly attemptTimers: TimerQueue;
  /** One clock timer for every call's hedge delay. */
  readonly hedgeTimers: TimerQueue;
  /** The POOL_CLOSED error once the pool is closed. */
  closedError(): TransportError<'POOL_CLOSED'> | undefined;
  nextId(): number;
  /** `explore`: an idempotent read that may take the costlier candidate (latency-aware choice). */
  acquire(kind: RequestKind, options: AcquireOptions, avoid?: RetryAvoidance, explore?: boolean): Promise<HttpRequestPermit>;
  /** The permit when a role admits right now; undefined otherwise (including every error case: `acquire` reports those). */
  tryAcquire(kind: RequestKind, options: AcquireOptions, avoid?: RetryAvoidance, explore?: boolean): HttpRequestPermit | undefined;
  classify(method: string, options: RequestOptions): MethodClassification & { readonly retryClass: RetryClass };
  /** Endpoint health: every attempt's answer is reported to it (heads, archival lessons). */
  readonly health: Pick<EndpointHealth, 'onAnswer' | 'historicalOf'>;
  /** Endpoints of `kind` a historical read must not go to (known pruned), or undefined. */
  historicalAvoid(kind: RequestKind, read: HistoricalRead): ReadonlySet<string> | undefined;
  /** Whether this idempotent read explores (takes the costlier candidate): every 1/exploreRatio-th one. */
  nextExplores(): boolean;
  /** Hedging and the retry budget; undefined with `hedge: false`. */
  readonly hedging: Hedging | undefined;
  /** A permit for a hedge of `primary`'s call, now or never: another operator first, then any other endpoint. */
  tryHedgePermit(kind: RequestKind, primary: HttpRequestPermit, signal: AbortSignal | undefined): HttpRequestPermit | undefined;
  /** An attempt on `role` lost a hedge race and was cancelled after `elapsedMs`. */
  observeLost(role: RoleState, elapsedMs: number): void;
  /** Most items in one batch request to `endpointId` (its `maxBatchSize`, or less once it refused a batch). */
  maxBatchSize(endpointId: string): number;
  /** `endpointId` refused a batch: at most `limit` items per request to it from now on. */
  limitBatchSize(endpointId: string, limit: number): void;
  /** Coalescing and micro-batching of idempotent reads; undefined when both are off. */
  readonly shared: SharedRequests | undefined;
}
