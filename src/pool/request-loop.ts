import { isTransportError, TransportError, type AttemptRecord } from '../errors/transport-error.js';
import type { RawOutcome } from '../http/executor.js';
import type { ClassifiedFailure, ClassifiedOutcome } from '../http/outcome.js';
import { AttemptControl, exchange, type Exchanged } from './attempt.js';
import { lookUpSend, sendLookupOf } from './reconcile.js';
import { createRequestBody } from '../jsonrpc/envelope.js';
import { sentTransactionIdOf } from '../jsonrpc/transaction-id.js';
import { evaluateTransportRetry } from '../retry/evaluate.js';
import type { RequestKind } from '../retry/causes.js';
import { failWhileWaiting, finalError, type FailedCall } from './call-errors.js';
import type { AcquireOptions, PoolInternals, RetryAvoidance } from './http-transport-pool.js';
import { permitRole, type HttpRequestPermit } from './permit.js';
import type { RequestOptions } from './request-options.js';

interface CallContext extends FailedCall, Exchanged {
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
  // A send's id is computed once from its bytes: its answer must be that id, and its errors carry it.
  const sentTransactionId = retryClass === 'never-after-dispatch' ? sentTransactionIdOf(method, params) : undefined;
  const call: CallContext = { method, params, kind, retryClass, attempts: [], redact: pool.redact, body, sentTransactionId };
  // A caller that aborts in the same tick it made the call must see nothing sent.
  if (signal) await Promise.resolve();
  let failed: Set<string> | undefined;
  let avoid: RetryAvoidance | undefined;
  // Only an idempotent read may try the costlier endpoint: a hedge or retry can cover it; a send cannot.
  const explore = retryClass === 'idempotent' && options.endpoint === undefined && pool.nextExplores();
  let last: { readonly failure: AttemptFailure; readonly endpointId: string } | undefined;
  let deadlineMs = Number.POSITIVE_INFINITY;
  for (let attempt = 1; ; attempt++) {
    const acquireOptions: AcquireOptions = {
      signal,
      endpoint: options.endpoint,
      timeoutMs: attempt > 1 ? deadlineMs - clock.now() : options.timeoutMs,
    };
    // Synchronous when a role admits at once: no promise hops on the common path.
    let permit = pool.tryAcquire(kind, acquireOptions, avoid, explore && attempt === 1);
    if (permit === undefined) {
      try {
        permit = await pool.acquire(kind, acquireOptions, avoid, explore && attempt === 1);
      } catch (error) {
        // No endpoint can take the retry before the deadline (a backoff or cooldown ends after
        // it): the call failed for the last attempt's reason, and says so now.
        if (last !== undefined && clock.now() < deadlineMs && isTransportError(error) && !pool.closedError()) {
          if (error.code === 'RATE_LIMITED' || error.code === 'DEADLINE_EXCEEDED') {
            throw finalError('no-time-to-retry', last.failure, call, last.endpointId, deadlineMs - startedAt, undefined, error);
          }
        }
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
      // Only "time is up" counts here: a retry on another endpoint starts at once, so only
      // admission knows whether one can start before the deadline (it says so early when not).
      remainingMs: clock.now() < deadlineMs ? Number.POSITIVE_INFINITY : 0,
      random: pool.random,
    });
    if (!decision.retry) {
      const reconciled = decision.reason === 'ambiguous-dispatch' ? await reconcile(pool, call, permit.endpointId, deadlineMs, signal) : undefined;
      if (reconciled?.found) return reconciled.transactionId;
      throw finalError(decision.reason, failure, call, permit.endpointId, deadlineMs - startedAt, reconciled?.lookups);
    }
    last = { failure, endpointId: permit.endpointId };
    (failed ??= new Set()).add(permit.endpointId);
    // Failing over to another endpoint is immediate; an endpoint that already failed this
    // call is used again only after the backoff, and only when no other can admit.
    avoid = { endpoints: failed, untilMs: clock.now() + decision.delayMs };
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
  const stopNow = () => stop.abort();
  const onStop = { abortByCaller: stopNow };
  callerSignal?.addEventListener('abort', stopNow, { once: true });
  if (callerSignal?.aborted || pool.closedError()) stopNow();
  pool.cancelOnClose.add(onStop);
  try {
    const read = (timeoutMs: number) => runRequest(pool, lookup.method, lookup.params, { timeoutMs, signal: stop.signal });
    const { found, lookups } = await lookUpSend(lookup, read, pool.clock, pool.reconcile!, deadlineMs, stop.signal);
    pool.events.emit('reconcile', { atMs: pool.clock.now(), endpointId, method: call.method, found, lookups });
    return { found, lookups, transactionId: lookup.transactionId };
  } finally {
    callerSignal?.removeEventListener('abort', stopNow);
    pool.cancelOnClose.delete(onStop);
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
    outcome = await exchange(pool, control, call, call.retryClass === 'never-after-dispatch');
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
    else permit.recordFailure(outcome.cause, outcome, latencyMs);
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
