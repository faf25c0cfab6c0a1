import { isTransportError, TransportError } from '../errors/transport-error.js';
import { lookUpSend, sendLookupOf } from './reconcile.js';
import { createRequestBody, type RequestBodyWriter } from '../jsonrpc/envelope.js';
import { lookupIdOf, sentTransactionIdOf } from '../jsonrpc/transaction-id.js';
import { evaluateTransportRetry } from '../retry/evaluate.js';
import { failWhileWaiting, finalError } from './call-errors.js';
import type { AcquireOptions, PoolInternals, RetryAvoidance } from './internals.js';
import type { RequestOptions } from './request-options.js';
import { attemptRound } from './hedged-attempt.js';
import { runAttempt, type AttemptFailure, type AttemptResult, type CallContext } from './run-attempt.js';
import { CallObservation, type CallLabeler, type CallObserver } from './call-observer.js';

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
export function runRequest(
  pool: PoolInternals,
  method: string,
  params: readonly unknown[],
  options: RequestOptions,
  observation?: CallObservation,
): Promise<unknown> {
  let call: CallContext;
  try {
    call = callOf(pool, method, params, options, observation);
  } catch (error) {
    return Promise.reject(error);
  }
  // Idempotent reads may share a request (coalescing, micro-batching); a send never does.
  if (call.retryClass === 'idempotent' && pool.shared !== undefined) return pool.shared.run(call, options);
  return runCall(pool, call, options);
}

/** Validates and classifies one call; throws `INVALID_INPUT` before anything is sent. */
function callOf(pool: PoolInternals, method: string, params: readonly unknown[], options: RequestOptions, observation: CallObservation | undefined): CallContext {
  if (typeof method !== 'string' || method.length === 0) throw invalidInput('method', 'method must be a non-empty string');
  if (!Array.isArray(params)) throw invalidInput('params', 'params must be an array');
  let body: RequestBodyWriter;
  try {
    body = createRequestBody(method, params);
  } catch (error) {
    throw new TransportError('INVALID_INPUT', 'params must be JSON-serializable (bigint allowed)', { context: { field: 'params' }, cause: error });
  }
  const { kind, retryClass } = pool.classify(method, options);
  // A send's id is computed once from its bytes: its answer must be that id, and its errors carry it.
  const sentTransactionId = retryClass === 'never-after-dispatch' ? sentTransactionIdOf(method, params) : undefined;
  const historical = pool.health.historicalOf(method, params);
  const lookupId = lookupIdOf(method, params);
  return { method, params, kind, retryClass, attempts: [], redact: pool.redact, body, sentTransactionId, lookupId, historical, observation, onSettled: undefined };
}

/** Runs one call on its own request (its attempts, hedges and retries). */
export async function runCall(pool: PoolInternals, call: CallContext, options: RequestOptions): Promise<unknown> {
  const { kind, retryClass } = call;
  const { clock } = pool;
  const { signal } = options;
  const startedAt = call.startedAtMs ?? clock.now();
  // A caller that aborts in the same tick it made the call must see nothing sent.
  if (signal) await Promise.resolve();
  let failed: Set<string> | undefined;
  // A historical read never goes to an endpoint known to be pruned (unless none other is left).
  const { historical } = call;
  const pruned = historical === undefined || options.endpoint !== undefined ? undefined : pool.historicalAvoid(kind, historical);
  let avoid: RetryAvoidance | undefined = pruned === undefined ? undefined : { endpoints: pruned, untilMs: Number.POSITIVE_INFINITY };
  let onlyRangeRefusals = true;
  // Only an idempotent read that is not pinned may be hedged or explore the costlier
  // endpoint (a hedge or a retry covers it); a send, an unknown method, a filter poll never.
  const hedgeable = retryClass === 'idempotent' && options.endpoint === undefined && pool.hedging?.of(kind)?.hasPeers === true;
  const explore = hedgeable && pool.nextExplores();
  const budget = pool.hedging?.of(kind)?.budget;
  budget?.deposit();
  let last: AttemptFailure | undefined;
  let deadlineMs = Number.POSITIVE_INFINITY;
  try {
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
              throw finalError('no-time-to-retry', last, call, last.endpointId, deadlineMs - startedAt, undefined, error);
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
      // The common case (nothing to hedge to, or not hedgeable) skips the race's bookkeeping.
      const round = hedgeable ? await attemptRound(pool, permit, call, attempt, signal) : undefined;
      const failure = round === undefined ? ((await runAttempt(pool, permit, call, attempt, signal)) as AttemptResult) : round.outcome;
      if (failure.ok) {
        // A coalesced request's joiners copy the result before its first caller can touch it.
        call.onSettled?.succeeded(failure.result);
        return failure.result;
      }
      const failedEndpointIds = round === undefined ? [failure.endpointId] : round.failedEndpointIds;
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
        const reconciled = decision.reason === 'ambiguous-dispatch' ? await reconcile(pool, call, failure.endpointId, deadlineMs, signal) : undefined;
        if (reconciled?.found) return reconciled.transactionId;
        throw finalError(decision.reason, failure, call, failure.endpointId, deadlineMs - startedAt, reconciled?.lookups);
      }
      // Retries share the hedges' budget: an outage must not multiply the load on the endpoints left.
      if (budget !== undefined && !budget.tryRetry(clock.now())) {
        throw finalError('budget-exhausted', failure, call, failure.endpointId, deadlineMs - startedAt);
      }
      last = failure;
      failed ??= new Set(pruned);
      for (const endpointId of failedEndpointIds) failed.add(endpointId);
      // A node that just said it is pruned joins them: the retry goes elsewhere at once.
      if (historical !== undefined) for (const endpointId of pool.historicalAvoid(kind, historical) ?? []) failed.add(endpointId);
      // A provider's eth_getLogs range limit does not change by asking again: while every endpoint
      // that failed this call refused that way, none is asked again (another may serve the range;
      // with none left the call fails now, and evm.getLogs splits the range). The end is finite
      // and past any deadline, so admission says at once that only they are left.
      onlyRangeRefusals &&= failure.detail === 'log-range-limit';
      // Failing over to another endpoint is immediate; an endpoint that already failed this
      // call is used again only after the backoff, and only when no other can admit.
      avoid = { endpoints: failed, untilMs: onlyRangeRefusals ? Number.MAX_VALUE : clock.now() + decision.delayMs };
    }
  } finally {
    // A coalesced request frees its key the moment it settles (no promise reaction on the hot path).
    call.onSettled?.settled();
  }
}

/**
 * `runRequest` under exporters: they learn the call's start (synchronously, in the caller's
 * async context), each attempt, and its end. Only used when someone observes.
 */
export async function observedRequest(
  pool: PoolInternals,
  observers: readonly CallObserver[],
  labeler: CallLabeler,
  method: string,
  params: readonly unknown[],
  options: RequestOptions,
): Promise<unknown> {
  const { clock } = pool;
  const valid = typeof method === 'string' && method.length > 0;
  const kind = valid ? (options.kind ?? pool.classify(method, options).kind) : 'other';
  const startedAtMs = clock.now();
  const observation = new CallObservation(observers, {
    method: valid ? method : '',
    methodLabel: valid ? labeler.methodLabel(method) : 'other',
    kind: labeler.kindLabel(kind),
    startedAtMs,
    startedAtWallMs: clock.wallNow(),
  });
  let error: unknown;
  try {
    return await runRequest(pool, method, params, options, observation);
  } catch (thrown) {
    error = thrown;
    throw thrown;
  } finally {
    observation.end({ error, durationMs: clock.now() - startedAtMs, endedAtWallMs: clock.wallNow() });
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
