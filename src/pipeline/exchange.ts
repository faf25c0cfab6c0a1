/**
 * One exchange with one endpoint — a call's attempt, or the chain guard's check — under
 * the attempt's cancellation (the caller's signal, pool.close(), its time limit).
 */

import type { RoleState } from '../admission/role-state.js';
import type { QueuedTimer } from '../clock.js';
import { AttemptAbort } from '../http/attempt-abort.js';
import { classifyOutcome } from '../http/classify.js';
import type { ExecuteRequest, ExecutorTarget, RawOutcome } from '../http/executor.js';
import type { AbortReason, ClassifiedOutcome, ClassifyContext } from '../http/outcome.js';
import type { IntegrityAsk } from '../integrity/types.js';
import type { SentTransactionId } from '../jsonrpc/answer-ids.js';
import type { PipelineHost } from './host.js';

/**
 * One attempt in flight, as one object: its cancellation (the caller's signal, pool.close(),
 * its timer), the request the executor gets, the context its answer is classified in, and
 * the raw outcome its exchange left behind. It is its own entry in the pool's attempt-timer
 * queue, so an attempt arms no clock timer of its own — and allocates nothing else.
 */
export class AttemptControl implements QueuedTimer, ExecuteRequest, ClassifyContext {
  readonly cancellation = new AttemptAbort();
  readonly target: ExecutorTarget;
  readonly maxResponseBytes: number;
  abortReason: AbortReason | undefined;
  dueMs = 0;
  /** The raw outcome of the exchange. */
  raw: RawOutcome | undefined;
  // What the exchange sends (set by it): the request's body, and its answer's context.
  body = '';
  avoidStaleSockets = false;
  method = '';
  id = 0;
  sentTransactionId: SentTransactionId | undefined;
  integrity: IntegrityAsk | undefined;
  /** Whether this endpoint is held to the pool's `expectedChain` (its chain-fact answers are checked). */
  readonly chainVerified: boolean;
  readonly #pool: PipelineHost;
  readonly #callerSignal: AbortSignal | undefined;
  readonly #timeoutReason: AbortReason;
  readonly #onCallerAbort: (() => void) | undefined;

  constructor(pool: PipelineHost, role: RoleState, deadlineMs: number, startedMs: number, callerSignal: AbortSignal | undefined) {
    this.#pool = pool;
    this.target = role.target;
    this.maxResponseBytes = pool.maxResponseBytes;
    this.chainVerified = role.endpoint.verifyChain;
    this.#callerSignal = callerSignal;
    if (callerSignal !== undefined) {
      this.#onCallerAbort = () => this.abortByCaller();
      callerSignal.addEventListener('abort', this.#onCallerAbort, { once: true });
      if (callerSignal.aborted) this.abortByCaller();
    }
    pool.cancelOnClose.add(this);
    const roleTimeoutMs = role.settings.requestTimeoutMs;
    const untilDeadline = deadlineMs - startedMs;
    this.#timeoutReason = untilDeadline <= roleTimeoutMs ? 'deadline' : 'attempt-timeout';
    pool.attemptTimers.addAt(this, startedMs + Math.max(0, Math.min(roleTimeoutMs, untilDeadline)));
  }

  /** Created on first read only (the undici executor never reads it). */
  get signal(): AbortSignal {
    return this.cancellation.signal;
  }

  /** Read only when a Retry-After HTTP-date needs it. */
  get wallNowMs(): number {
    return this.#pool.clock.wallNow();
  }

  /** The attempt's time is up: the call's deadline, or the role's `requestTimeoutMs`. */
  fire(): void {
    this.#abort(this.#timeoutReason);
  }

  /** The caller's signal or pool.close(). */
  abortByCaller(): void {
    this.#abort('caller');
  }

  #abort(reason: AbortReason): void {
    if (this.abortReason !== undefined) return;
    this.abortReason = reason;
    this.cancellation.abort();
  }

  finish(): void {
    this.#pool.attemptTimers.remove(this);
    if (this.#onCallerAbort !== undefined) this.#callerSignal?.removeEventListener('abort', this.#onCallerAbort);
    this.#pool.cancelOnClose.delete(this);
  }
}

/** What one exchange sends: the method, the body for a JSON-RPC id, and a send's locally computed id. */
export interface Exchanged {
  readonly method: string;
  readonly body: (id: number) => string;
  readonly sentTransactionId?: SentTransactionId | undefined;
  /** What the call asked: an answer that contradicts it is `invalid-response` (`integrity`). */
  readonly integrity?: IntegrityAsk | undefined;
}

/** Sets what `control`'s exchange sends: a fresh JSON-RPC id, its body, and its answer's context. */
export function prepareExchange(pool: PipelineHost, control: AttemptControl, exchanged: Exchanged, avoidStaleSockets: boolean): void {
  const id = pool.nextId();
  control.id = id;
  control.method = exchanged.method;
  control.sentTransactionId = exchanged.sentTransactionId;
  control.integrity = exchanged.integrity;
  control.body = exchanged.body(id);
  control.avoidStaleSockets = avoidStaleSockets;
}

/**
 * The prepared exchange's raw outcome (left on `control`), classified. A custom executor that
 * returned a malformed outcome gives an ambiguous failure, as one that throws does.
 */
export function classifyExchange(control: AttemptControl, raw: RawOutcome): ClassifiedOutcome {
  control.raw = raw;
  try {
    return classifyOutcome(raw, control);
  } catch (error) {
    return classifyOutcome({ type: 'error', kind: 'other', dispatched: true, error }, control);
  }
}

/**
 * One request/response on the attempt's endpoint, classified; the raw outcome is left on
 * `control`. Never throws. (The record stage inlines the same three steps: one async frame
 * per attempt.)
 */
export async function exchange(pool: PipelineHost, control: AttemptControl, exchanged: Exchanged, avoidStaleSockets: boolean): Promise<ClassifiedOutcome> {
  prepareExchange(pool, control, exchanged, avoidStaleSockets);
  let raw: RawOutcome;
  try {
    raw = await pool.executor.execute(control);
  } catch (error) {
    raw = thrownOutcome(control, error);
  }
  return classifyExchange(control, raw);
}

/**
 * Sends `body` on the attempt's endpoint and returns the raw outcome (also left on
 * `control`). Never throws: a custom executor that throws gives an ambiguous failure.
 */
export async function sendRaw(pool: PipelineHost, control: AttemptControl, body: string, avoidStaleSockets: boolean): Promise<RawOutcome> {
  control.body = body;
  control.avoidStaleSockets = avoidStaleSockets;
  let raw: RawOutcome;
  try {
    raw = await pool.executor.execute(control);
  } catch (error) {
    raw = thrownOutcome(control, error);
  }
  control.raw = raw;
  return raw;
}

/** A custom executor broke its contract by throwing: an ambiguous failure. */
export function thrownOutcome(control: AttemptControl, error: unknown): RawOutcome {
  return { type: 'error', kind: control.abortReason === undefined ? 'other' : 'aborted', dispatched: true, error };
}

/** The chain guard's question (or a health probe) to one endpoint, outside admission, under the role's `requestTimeoutMs`. */
export async function askEndpoint(pool: PipelineHost, role: RoleState, check: Exchanged): Promise<{ readonly outcome: ClassifiedOutcome; readonly latencyMs: number }> {
  const started = pool.clock.now();
  // Outside admission, but it spends a token when one is there, so the first call waits its turn.
  role.bucket?.tryTake(started);
  // No call deadline: running out of `requestTimeoutMs` is the endpoint's fault (an attempt-timeout).
  const control = new AttemptControl(pool, role, Number.POSITIVE_INFINITY, started, undefined);
  try {
    const outcome = await exchange(pool, control, check, false);
    return { outcome, latencyMs: pool.clock.now() - started };
  } finally {
    control.finish();
  }
}
