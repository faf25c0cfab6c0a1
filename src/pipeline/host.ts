/**
 * What the request path needs from the pool: a contract of types from below, so the loop,
 * its stages and the exchange depend on this file and on no implementation above them.
 * What only one stage needs (hedging's state, batch sizes, coalescing's map) is that stage's
 * own dependency, handed to it when `pool/assemble.ts` builds the chain.
 */
import type { IntegrityAsk } from '../integrity/types.js';
import type { HttpRequestPermit } from '../admission/permit.js';
import type { RoleState } from '../admission/role-state.js';
import type { PoolEvents } from '../api/events.js';
import type { ConsensusOptions } from '../api/request-options.js';
import type { Clock, Random, TimerQueue } from '../clock.js';
import type { MethodClassification } from '../config/types.js';
import type { TransportError } from '../errors/transport-error.js';
import type { HistoricalRead } from '../health/historical.js';
import type { HttpExecutor } from '../http/executor.js';
import type { ClassifiedOutcome } from '../http/outcome.js';
import type { RequestKind, RetryClass } from '../retry/causes.js';
import type { TransportRetrySettings } from '../retry/evaluate.js';
import type { AcquireOptions, RetryAvoidance } from '../admission/acquire-options.js';

export type { AcquireOptions, RetryAvoidance } from '../admission/acquire-options.js';

/** What learns from every answer (endpoint health: heads, archival lessons) and routes historical reads. */
export interface AnswerObserver {
  /** The historical read a call makes (archival routing and learning), or undefined. */
  historicalOf(method: string, params: readonly unknown[]): HistoricalRead | undefined;
  /** Endpoints of `kind` a historical read must not go to (known pruned), or undefined. */
  historicalAvoid(kind: RequestKind, read: HistoricalRead): ReadonlySet<string> | undefined;
  /** Endpoints of `kind` whose known head is below `minHead` (or unknown), or undefined when none is; null when no endpoint has reached it. */
  belowHead(kind: RequestKind, minHead: bigint): ReadonlySet<string> | undefined | null;
  onAnswer(role: RoleState, method: string, params: readonly unknown[], historical: HistoricalRead | undefined, outcome: ClassifiedOutcome): void;
}

/** The retry budget a call's retries (and hedges) draw from; a no-op one when hedging is off. */
export interface CallBudget {
  deposit(): void;
  tryRetry(nowMs: number): boolean;
}

/** @internal Everything the request path needs from the pool. */
export interface PipelineHost {
  readonly clock: Clock;
  readonly random: Random;
  readonly executor: HttpExecutor;
  readonly events: PoolEvents;
  readonly retry: TransportRetrySettings;
  readonly maxResponseBytes: number;
  readonly redact: (text: string) => string;
  /** Work in flight that pool.close() cancels: attempts, checks, reconciliations. */
  readonly cancelOnClose: Set<{ abortByCaller(): void }>;
  /** One clock timer for every attempt's time limit. */
  readonly attemptTimers: TimerQueue;
  readonly answers: AnswerObserver;
  /** The POOL_CLOSED error once the pool is closed. */
  closedError(): TransportError<'POOL_CLOSED'> | undefined;
  nextId(): number;
  /** `explore`: an idempotent read that may take the costlier candidate (latency-aware choice). */
  acquire(kind: RequestKind, options: AcquireOptions, avoid?: RetryAvoidance, explore?: boolean, method?: string): Promise<HttpRequestPermit>;
  /** The permit when a role admits right now; undefined otherwise (including every error case: `acquire` reports those). */
  tryAcquire(kind: RequestKind, options: AcquireOptions, avoid?: RetryAvoidance, explore?: boolean, method?: string): HttpRequestPermit | undefined;
  classify(method: string, options: { readonly kind?: RequestKind | undefined; readonly retryClass?: RetryClass | undefined }): MethodClassification;
  /** What a call's answer is checked against (`src/integrity/`); always undefined with `integrity: false`. */
  integrityOf(method: string, params: readonly unknown[]): IntegrityAsk | undefined;
  /** The retry budget of `kind` (shared with its hedges). */
  budgetOf(kind: RequestKind): CallBudget;
  /** The method table's `consensus` per method; undefined when no method asks for it. */
  readonly methodConsensus: ReadonlyMap<string, ConsensusOptions> | undefined;
}
