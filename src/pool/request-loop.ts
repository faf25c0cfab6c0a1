import { TransportError, type AttemptRecord } from '../errors/transport-error.js';
import { AttemptAbort } from '../http/attempt-abort.js';
import { classifyOutcome } from '../http/classify.js';
import type { ExecuteRequest, ExecutorTarget, RawOutcome } from '../http/executor.js';
import type { RoleState } from '../admission/role-state.js';
import type { Clock, QueuedTimer } from '../clock.js';
import type { ChainCheck } from './chain-guard.js';
import { lookUpSend, sendLookupOf } from './reconcile.js';
import type { AbortReason, ClassifiedFailure, ClassifiedOutcome, ClassifyContext } from '../http/outcome.js';
import { createRequestBody } from '../jsonrpc/envelope.js';
import { evaluateTransportRetry } from '../retry/evaluate.js';
import type { RequestKind } from '../retry/causes.js';
import { failWhileWaiting, finalError, type FailedCall } from './call-errors.js';
import type { AcquireOptions, PoolInternals, RetryAvoidance } from './http-transport-pool.js';
import { permitRole, type HttpRequestPermit } from './permit.js';
import type { RequestOptions } from './request-options.js';

interface CallContext extends FailedCall {
  readonly kind: RequestKind;
  readonly attempts: AttemptRecord[];
  /** The request body for a given JSON-RPC id (params serialized once). */
  readonly body: (id: number) => string;
}

/** A failed attempt, with a secret-free stand-in for the transport error (its code only). */
type AttemptFailure = ClassifiedFailure & { readonly transportError: Error | undefined };
type AttemptResult = { readonly ok: true; readonly result: unknown } | AttemptFailure;

/**
 * The transport error reduced to its code: undici/DNS messages can name the host, and a
 * host may hide a key in a subdomain, so the original error is never kept.
 */
function transportErrorOf(raw: RawOutcome): Error | undefined {
  if (raw.type !== 'error') return undefined;
  const code = raw.code ?? raw.kind;
  return Object.assign(new Error(`transport ${raw.kind} failure (${code})`), { code });
}

function invalidInput(field: string, message: string): TransportError<'INVALID_INPUT'> {
  return new TransportError('INVALID_INPUT', message, { context: { field } });
}

/**
 * One call: acquire → execute → classify → record → decide, until a result, a final
 * failure, or the deadline. Every wait (admission, backoff, the attempt itself) is
 * bounded by the one deadline and cancelled by the caller's signal; a retry's backoff is
 * a condition of admission (failed endpoints are admissible only after it), so it never
 * delays failover to a healthy peer.
 */
export async function runRequest(pool: PoolInternals, method: string, params: readonly unknown[], options: RequestOptions): Promise<unknown> {
  if (typeof method !== 'string' || method.length === 0) throw invalidInput('method', 'method must be a non-empty string');
  if (!Array.isArray(params)) throw invalidInput('params', 'params must be an array');
  let body: (id: number) => string;
  try {
    body = createRequestBody(method, params);
  } catch (error) {
    throw new TransportError('INVALID_INPUT', 'params must be JSON-serializable (bigint allowed)', { context: { field: 'params' }, cause: error });
  }
  const { kind, retryClass } = pool.classify(method, options);
  const { clock } = pool;
  const { signal } = options;
  const startedAt = clock.now();
  const call: CallContext = { method, params, kind, retryClass, attempts: [], redact: pool.redact, body };
  // A caller that aborts in the same tick it made the call must see nothing sent.
  if (signal) await Promise.resolve();
  let failed: Set<string> | undefined;
  let avoid: RetryAvoidance | undefined;
  let deadlineMs = Number.POSITIVE_INFINITY;
  for (let attempt = 1; ; attempt++) {
    const acquireOptions: AcquireOptions = {
      signal,
      endpoint: options.endpoint,
      timeoutMs: attempt > 1 ? deadlineMs - clock.now() : options.timeoutMs,
    };
    // Synchronous when a role admits at once: no promise hops on the common path.
    let permit = pool.tryAcquire(kind, acquireOptions, avoid);
    if (permit === undefined) {
      try {
        permit = await pool.acquire(kind, acquireOptions, avoid);
      } catch (error) {
        throw failWhileWaiting(error, call, pool.closedError(), attempt > 1 ? deadlineMs - startedAt : undefined);
      }
    }
    if (attempt === 1) deadlineMs = permit.deadlineMs;
    if (signal?.aborted || pool.closedError()) {
      // Aborted between admission and the attempt: nothing was sent.
      permit.release();
      throw failWhileWaiting(undefined, call, pool.closedError());
    }
    const failure = await runAttempt(pool, permit, call, attempt, signal);
    if (failure.ok) return failure.result;
    if (failure.cause === 'aborted') throw failWhileWaiting(undefined, call, pool.closedError());
    const decision = evaluateTransportRetry({
      cause: failure.cause,
      dispatch: failure.dispatch,
      retryClass,
      attempt,
      settings: pool.retry,
      providerDelayMs: failure.providerDelayMs,
      remainingMs: deadlineMs - clock.now(),
      random: pool.random,
    });
    if (!decision.retry) {
      const reconciled = decision.reason === 'ambiguous-dispatch' ? await reconcile(pool, call, permit.endpointId, deadlineMs, signal) : undefined;
      if (reconciled?.found) return reconciled.transactionId;
      throw finalError(decision.reason, failure, call, permit.endpointId, deadlineMs - startedAt, reconciled?.lookups);
    }
    (failed ??= new Set()).add(permit.endpointId);
    // Failing over to another endpoint is immediate; an endpoint that already failed this
    // call is used again only after the backoff, and only when no other can admit.
    avoid = { endpoints: failed, untilMs: clock.now() + decision.delayMs };
  }
}

/**
 * One attempt in flight: its cancellation (the caller's signal, pool.close(), its timer)
 * and what its exchange left behind. It is its own entry in the pool's attempt-timer
 * queue, so an attempt arms no clock timer of its own.
 */
class AttemptControl implements QueuedTimer {
  readonly cancellation = new AttemptAbort();
  readonly target: ExecutorTarget;
  abortReason: AbortReason | undefined;
  dueMs = 0;
  /** The raw outcome of the last exchange. */
  raw: RawOutcome | undefined;
  readonly #pool: PoolInternals;
  readonly #callerSignal: AbortSignal | undefined;
  readonly #timeoutReason: AbortReason;
  readonly #onCallerAbort: (() => void) | undefined;

  constructor(pool: PoolInternals, role: RoleState, deadlineMs: number, startedMs: number, callerSignal: AbortSignal | undefined) {
    this.#pool = pool;
    this.target = role.target;
    this.#callerSignal = callerSignal;
    if (callerSignal !== undefined) {
      this.#onCallerAbort = () => this.abortByCaller();
      callerSignal.addEventListener('abort', this.#onCallerAbort, { once: true });
      if (callerSignal.aborted) this.abortByCaller();
    }
    pool.inFlightAttempts.add(this);
    const roleTimeoutMs = role.settings.requestTimeoutMs;
    const untilDeadline = deadlineMs - startedMs;
    this.#timeoutReason = untilDeadline <= roleTimeoutMs ? 'deadline' : 'attempt-timeout';
    pool.attemptTimers.add(this, Math.min(roleTimeoutMs, untilDeadline));
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
    this.#pool.inFlightAttempts.delete(this);
  }
}

/** What the executor gets: classes, so the lazy getters cost no closure per attempt. */
class AttemptRequest implements ExecuteRequest {
  readonly target: ExecutorTarget;
  readonly body: string;
  readonly cancellation: AttemptAbort;
  readonly maxResponseBytes: number;
  readonly avoidStaleSockets: boolean;

  constructor(target: ExecutorTarget, body: string, cancellation: AttemptAbort, maxResponseBytes: number, avoidStaleSockets: boolean) {
    this.target = target;
    this.body = body;
    this.cancellation = cancellation;
    this.maxResponseBytes = maxResponseBytes;
    this.avoidStaleSockets = avoidStaleSockets;
  }

  /** Created on first read only (the undici executor never reads it). */
  get signal(): AbortSignal {
    return this.cancellation.signal;
  }
}

class AttemptContext implements ClassifyContext {
  readonly method: string;
  readonly id: number;
  readonly abortReason: AbortReason | undefined;
  readonly #clock: Clock;

  constructor(method: string, id: number, abortReason: AbortReason | undefined, clock: Clock) {
    this.method = method;
    this.id = id;
    this.abortReason = abortReason;
    this.#clock = clock;
  }

  /** Read only when a Retry-After HTTP-date needs it. */
  get wallNowMs(): number {
    return this.#clock.wallNow();
  }
}

/**
 * One request/response on the attempt's endpoint, classified; the raw outcome is left on
 * `control`. Never throws: a custom executor that throws or returns a malformed outcome
 * gives an ambiguous failure.
 */
async function exchange(
  pool: PoolInternals,
  control: AttemptControl,
  method: string,
  body: (id: number) => string,
  avoidStaleSockets: boolean,
): Promise<ClassifiedOutcome> {
  const { clock } = pool;
  const id = pool.nextId();
  const cancellation = control.cancellation;
  let raw: RawOutcome;
  try {
    raw = await pool.executor.execute(new AttemptRequest(control.target, body(id), cancellation, pool.maxResponseBytes, avoidStaleSockets));
  } catch (error) {
    // A custom executor broke its contract by throwing; treat it as an ambiguous failure.
    raw = { type: 'error', kind: control.abortReason === undefined ? 'other' : 'aborted', dispatched: true, error };
  }
  control.raw = raw;
  const context = new AttemptContext(method, id, control.abortReason, clock);
  try {
    return classifyOutcome(raw, context);
  } catch (error) {
    // A custom executor returned a malformed outcome: an ambiguous failure, like a throw.
    return classifyOutcome({ type: 'error', kind: 'other', dispatched: true, error }, context);
  }
}

/** The chain guard's question to one endpoint, outside admission, under the role's `requestTimeoutMs`. */
export async function askEndpoint(pool: PoolInternals, role: RoleState, check: ChainCheck): Promise<{ readonly outcome: ClassifiedOutcome; readonly latencyMs: number }> {
  const started = pool.clock.now();
  // Outside admission, but it spends a token when one is there, so the first call waits its turn.
  role.bucket?.tryTake(started);
  // No call deadline: running out of `requestTimeoutMs` is the endpoint's fault (an attempt-timeout).
  const control = new AttemptControl(pool, role, Number.POSITIVE_INFINITY, started, undefined);
  try {
    const outcome = await exchange(pool, control, check.method, check.body, false);
    return { outcome, latencyMs: pool.clock.now() - started };
  } finally {
    control.finish();
  }
}

/**
 * `reconcileSends`: looks an ambiguous send up with reads through the pool. Undefined when
 * off, or when the method or its params cannot be looked up. The caller's signal and
 * pool.close() both end the search at once.
 */
async function reconcile(
  pool: PoolInternals,
  call: CallContext,
  endpointId: string,
  deadlineMs: number,
  callerSignal: AbortSignal | undefined,
): Promise<{ readonly found: boolean; readonly lookups: number; readonly transactionId: string } | undefined> {
  const lookup = pool.reconcile && sendLookupOf(call.method, call.params);
  if (!lookup) return undefined;
  const stop = new AbortController();
  const onStop = { abortByCaller: () => stop.abort() };
  const onCallerAbort = () => stop.abort();
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  if (callerSignal?.aborted || pool.closedError()) stop.abort();
  pool.inFlightAttempts.add(onStop);
  try {
    const read = (timeoutMs: number) => runRequest(pool, lookup.method, lookup.params, { timeoutMs, signal: stop.signal });
    const { found, lookups } = await lookUpSend(lookup, read, pool.clock, pool.reconcile!, deadlineMs, stop.signal);
    pool.events.emit('reconcile', { atMs: pool.clock.now(), endpointId, method: call.method, found, lookups });
    return { found, lookups, transactionId: lookup.transactionId };
  } finally {
    callerSignal?.removeEventListener('abort', onCallerAbort);
    pool.inFlightAttempts.delete(onStop);
  }
}

/** Event fields shared by an attempt's events (built only when someone listens). */
function eventBase(permit: HttpRequestPermit, call: CallContext, attempt: number, atMs: number) {
  return { atMs, endpointId: permit.endpointId, kind: call.kind, method: call.method, attempt };
}

/** Runs one attempt on `permit`, records its outcome and releases the permit. */
async function runAttempt(
  pool: PoolInternals,
  permit: HttpRequestPermit,
  call: CallContext,
  attempt: number,
  callerSignal: AbortSignal | undefined,
): Promise<AttemptResult> {
  const { clock, events } = pool;
  const started = clock.now();
  if (events.has('attempt')) events.emit('attempt', eventBase(permit, call, attempt, started));
  const control = new AttemptControl(pool, permitRole(permit), permit.deadlineMs, started, callerSignal);
  let outcome: ClassifiedOutcome;
  try {
    outcome = await exchange(pool, control, call.method, call.body, call.retryClass === 'never-after-dispatch');
  } finally {
    control.finish();
  }
  const latencyMs = clock.now() - started;
  try {
    if (outcome.ok) {
      permit.recordSuccess(latencyMs);
      if (events.has('success')) events.emit('success', { ...eventBase(permit, call, attempt, clock.now()), latencyMs });
      return outcome;
    }
    if (outcome.cause === 'rate-limited') permit.recordRateLimited(outcome.providerDelayMs);
    else permit.recordFailure(outcome.cause, outcome);
    call.attempts.push({
      endpointId: permit.endpointId,
      cause: outcome.cause,
      dispatch: outcome.dispatch,
      status: outcome.status,
      rpcCode: outcome.rpcCode,
      durationMs: latencyMs,
    });
    if (events.has('failure')) {
      events.emit('failure', {
        ...eventBase(permit, call, attempt, clock.now()),
        cause: outcome.cause,
        dispatch: outcome.dispatch,
        status: outcome.status,
        rpcCode: outcome.rpcCode,
        latencyMs,
        detail: outcome.detail,
      });
    }
    return { ...outcome, transportError: control.raw === undefined ? undefined : transportErrorOf(control.raw) };
  } finally {
    permit.release();
  }
}
