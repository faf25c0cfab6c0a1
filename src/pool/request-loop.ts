import { TransportError, type AttemptRecord } from '../errors/transport-error.js';
import { AttemptAbort } from '../http/attempt-abort.js';
import { classifyOutcome } from '../http/classify.js';
import type { ExecutorTarget, RawOutcome } from '../http/executor.js';
import type { TimerHandle } from '../clock.js';
import type { ChainCheck } from './chain-guard.js';
import { lookUpSend, sendLookupOf } from './reconcile.js';
import type { AbortReason, ClassifiedFailure, ClassifiedOutcome } from '../http/outcome.js';
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
  // Attempts stopped by the chain guard on a wrong-chain endpoint (now excluded) cost no retry.
  let guarded = 0;
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
    if (failure.cause === 'wrong-chain') {
      guarded++;
      continue;
    }
    const decision = evaluateTransportRetry({
      cause: failure.cause,
      dispatch: failure.dispatch,
      retryClass,
      attempt: attempt - guarded,
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
 * One request/response on the attempt's endpoint, classified. Never throws: a custom
 * executor that throws or returns a malformed outcome gives an ambiguous failure.
 */
async function exchange(
  pool: PoolInternals,
  attempt: AttemptControl,
  method: string,
  body: (id: number) => string,
  avoidStaleSockets: boolean,
): Promise<Exchanged> {
  const { clock } = pool;
  const id = pool.nextId();
  const cancellation = attempt.cancellation;
  let raw: RawOutcome;
  try {
    raw = await pool.executor.execute({
      target: attempt.target,
      body: body(id),
      get signal() {
        return cancellation.signal;
      },
      cancellation,
      maxResponseBytes: pool.maxResponseBytes,
      avoidStaleSockets,
    });
  } catch (error) {
    // A custom executor broke its contract by throwing; treat it as an ambiguous failure.
    raw = { type: 'error', kind: attempt.abortReason === undefined ? 'other' : 'aborted', dispatched: true, error };
  }
  const context = {
    method,
    id,
    abortReason: attempt.abortReason,
    // Read only when a Retry-After HTTP-date needs it.
    get wallNowMs() {
      return clock.wallNow();
    },
  };
  try {
    return { raw, outcome: classifyOutcome(raw, context) };
  } catch (error) {
    // A custom executor returned a malformed outcome: an ambiguous failure, like a throw.
    return { raw, outcome: classifyOutcome({ type: 'error', kind: 'other', dispatched: true, error }, context) };
  }
}

interface Exchanged {
  /** Undefined when nothing was sent for the call (the chain guard stopped it). */
  readonly raw: RawOutcome | undefined;
  readonly outcome: ClassifiedOutcome;
}

/** The cancellation of one attempt: the caller's signal, pool.close() and the attempt's timer. */
class AttemptControl {
  readonly cancellation = new AttemptAbort();
  readonly target: ExecutorTarget;
  abortReason: AbortReason | undefined;
  readonly #pool: PoolInternals;
  readonly #callerSignal: AbortSignal | undefined;
  readonly #timer: TimerHandle;
  readonly #onCallAbort = () => this.#abort('caller');

  constructor(pool: PoolInternals, permit: HttpRequestPermit, startedMs: number, callerSignal: AbortSignal | undefined) {
    this.#pool = pool;
    this.#callerSignal = callerSignal;
    const role = permitRole(permit);
    this.target = role.target;
    // pool.close() and the caller's signal both cancel the attempt as 'caller'.
    callerSignal?.addEventListener('abort', this.#onCallAbort, { once: true });
    if (callerSignal?.aborted) this.#onCallAbort();
    pool.inFlightAttempts.add(this.#onCallAbort);
    const roleTimeoutMs = role.settings.requestTimeoutMs;
    const untilDeadline = permit.deadlineMs - startedMs;
    this.#timer = pool.clock.setTimer(
      () => this.#abort(untilDeadline <= roleTimeoutMs ? 'deadline' : 'attempt-timeout'),
      Math.min(roleTimeoutMs, untilDeadline),
    );
  }

  #abort(reason: AbortReason): void {
    if (this.abortReason !== undefined) return;
    this.abortReason = reason;
    this.cancellation.abort();
  }

  finish(): void {
    this.#timer.cancel();
    this.#callerSignal?.removeEventListener('abort', this.#onCallAbort);
    this.#pool.inFlightAttempts.delete(this.#onCallAbort);
  }
}

/**
 * The call's exchange on the attempt's endpoint, after the chain guard's check when the
 * endpoint is not verified yet. `recorded` is false when the outcome says nothing new about
 * the endpoint (another call's check failed it, or it is on another chain).
 */
async function callExchange(pool: PoolInternals, control: AttemptControl, endpointId: string, call: CallContext): Promise<Exchanged & { readonly recorded: boolean }> {
  const guard = pool.chainGuard;
  if (guard !== undefined && guard.pending(endpointId)) {
    const ask = (check: ChainCheck) => exchange(pool, control, check.method, check.body, false).then((answer) => answer.outcome);
    const verdict = await guard.verify(endpointId, ask, control.cancellation);
    if (verdict.type === 'failed') return { raw: undefined, outcome: verdict.failure, recorded: verdict.ran && verdict.failure.cause !== 'wrong-chain' };
    if (verdict.type === 'cancelled') {
      const outcome = classifyOutcome({ type: 'error', kind: 'aborted', dispatched: false }, { method: call.method, id: 0, abortReason: control.abortReason, wallNowMs: 0 });
      return { raw: undefined, outcome, recorded: false };
    }
  }
  const answer = await exchange(pool, control, call.method, call.body, call.retryClass === 'never-after-dispatch');
  return { ...answer, recorded: true };
}

/**
 * `reconcileSends`: looks an ambiguous send up with reads through the pool. Undefined when
 * off, or when the method or its params cannot be looked up.
 */
async function reconcile(
  pool: PoolInternals,
  call: CallContext,
  endpointId: string,
  deadlineMs: number,
  signal: AbortSignal | undefined,
): Promise<{ readonly found: boolean; readonly lookups: number; readonly transactionId: string } | undefined> {
  const lookup = pool.reconcile && sendLookupOf(call.method, call.params);
  if (!lookup) return undefined;
  const read = (timeoutMs: number) => runRequest(pool, lookup.method, lookup.params, { timeoutMs, signal });
  const { found, lookups } = await lookUpSend(lookup, read, pool.clock, pool.reconcile!, deadlineMs, signal);
  pool.events.emit('reconcile', { atMs: pool.clock.now(), endpointId, method: call.method, found, lookups });
  return { found, lookups, transactionId: lookup.transactionId };
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
  // Event payloads are built only when someone listens (the hot path allocates nothing for them).
  const base = (atMs: number) => ({ atMs, endpointId: permit.endpointId, kind: call.kind, method: call.method, attempt });
  const started = clock.now();
  if (events.has('attempt')) events.emit('attempt', base(started));
  const control = new AttemptControl(pool, permit, started, callerSignal);
  let answer: Exchanged & { readonly recorded: boolean };
  try {
    answer = await callExchange(pool, control, permit.endpointId, call);
  } finally {
    control.finish();
  }
  const latencyMs = clock.now() - started;
  try {
    const { outcome, raw } = answer;
    if (outcome.ok) {
      permit.recordSuccess(latencyMs);
      if (events.has('success')) events.emit('success', { ...base(clock.now()), latencyMs });
      return outcome;
    }
    // An outcome that says nothing new about the endpoint moves neither its counters nor its reputation.
    if (answer.recorded && outcome.cause === 'rate-limited') permit.recordRateLimited(outcome.providerDelayMs);
    else if (answer.recorded) permit.recordFailure(outcome.cause, outcome);
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
        ...base(clock.now()),
        cause: outcome.cause,
        dispatch: outcome.dispatch,
        status: outcome.status,
        rpcCode: outcome.rpcCode,
        latencyMs,
        detail: outcome.detail,
      });
    }
    return { ...outcome, transportError: raw === undefined ? undefined : transportErrorOf(raw) };
  } finally {
    permit.release();
  }
}
