/**
 * The call's entry and its request loop: acquire → round (attempt, hedge) → decide, until a
 * result, a final failure, or the deadline. Every wait (admission, backoff, the attempt
 * itself) is bounded by the one deadline and cancelled by the caller's signal; a retry's
 * backoff is a condition of admission (failed endpoints are admissible only after it), so it
 * never delays failover to a healthy peer.
 */
import { isTransportError, TransportError } from '../errors/transport-error.js';
import { createRequestBody, type RequestBodyWriter } from '../jsonrpc/envelope.js';
import { sentTransactionIdOf } from '../jsonrpc/transaction-id.js';
import type { RequestOptions } from '../api/request-options.js';
import { failWhileWaiting, finalError } from './call-errors.js';
import type { AcquireOptions, PipelineHost, RetryAvoidance } from './host.js';
import type { AttemptFailure, CallContext } from './call-context.js';
import type { CallObservation } from './call-observer.js';
import { evaluateTransportRetry } from '../retry/evaluate.js';
import { lookUpSend, sendLookupOf, type ReconcileSettings } from './reconcile.js';
import type { AttemptRunner, CallHandler, RequestHandler } from './stage.js';

function invalidInput(field: string, message: string): TransportError<'INVALID_INPUT'> {
  return new TransportError('INVALID_INPUT', message, { context: { field } });
}

/** The entry: validates and classifies a call (`INVALID_INPUT` before anything is sent), then hands it on. */
export function callEntry(host: PipelineHost, next: CallHandler): RequestHandler {
  return (method, params, options, observation) => {
    let call: CallContext;
    try {
      call = callOf(host, method, params, options, observation);
    } catch (error) {
      return Promise.reject(error);
    }
    return next(call, options);
  };
}

function callOf(host: PipelineHost, method: string, params: readonly unknown[], options: RequestOptions, observation: CallObservation | undefined): CallContext {
  if (typeof method !== 'string' || method.length === 0) throw invalidInput('method', 'method must be a non-empty string');
  if (!Array.isArray(params)) throw invalidInput('params', 'params must be an array');
  let body: RequestBodyWriter;
  try {
    body = createRequestBody(method, params);
  } catch (error) {
    throw new TransportError('INVALID_INPUT', 'params must be JSON-serializable (bigint allowed)', { context: { field: 'params' }, cause: error });
  }
  const { kind, retryClass } = host.classify(method, options);
  // A send's id is computed once from its bytes: its answer must be that id, and its errors carry it.
  const sentTransactionId = retryClass === 'never-after-dispatch' ? sentTransactionIdOf(method, params) : undefined;
  const historical = host.answers.historicalOf(method, params);
  const pinned = options.endpoint !== undefined;
  const integrity = host.integrityOf(method, params);
  return { method, params, kind, pinned, retryClass, attempts: [], redact: host.redact, body, sentTransactionId, integrity, historical, observation, onSettled: undefined };
}

/** What the loop is given besides the host. */
export interface LoopParts {
  /** The round on an admitted permit: the record stage, wrapped by the hedge stage when hedging is on. */
  readonly round: AttemptRunner;
  /** Whether this call's first attempt explores (takes the costlier candidate); never without hedging and balancing. */
  readonly explores: (call: CallContext) => boolean;
  /** `reconcileSends`: how an ambiguous send is looked up (undefined when off), and the path its lookups take. */
  readonly reconcile: { readonly settings: ReconcileSettings; readonly read: RequestHandler } | undefined;
}

/** The request loop: runs one call on its own request (its rounds and retries). */
export function requestLoop(host: PipelineHost, parts: LoopParts): CallHandler {
  return (call, options) => runCall(host, parts, call, options);
}

async function runCall(pool: PipelineHost, parts: LoopParts, call: CallContext, options: RequestOptions): Promise<unknown> {
  const { kind, retryClass } = call;
  const { clock } = pool;
  const { signal } = options;
  const startedAt = call.startedAtMs ?? clock.now();
  // A caller that aborts in the same tick it made the call must see nothing sent.
  if (signal) await Promise.resolve();
  let failed: Set<string> | undefined;
  // A historical read never goes to an endpoint known to be pruned (unless none other is left).
  const { historical } = call;
  const pruned = historical === undefined || call.pinned ? undefined : pool.answers.historicalAvoid(kind, historical);
  let avoid: RetryAvoidance | undefined = pruned === undefined ? undefined : { endpoints: pruned, untilMs: Number.POSITIVE_INFINITY };
  let onlyRangeRefusals = true;
  const explore = parts.explores(call);
  const budget = pool.budgetOf(kind);
  budget.deposit();
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
          throw admissionError(pool, call, error, last, deadlineMs, startedAt, attempt);
        }
      }
      if (attempt === 1) deadlineMs = permit.deadlineMs;
      if (signal?.aborted || pool.closedError()) {
        // Aborted between admission and the attempt: nothing was sent.
        permit.release();
        throw failWhileWaiting(undefined, call, pool.closedError());
      }
      const failure = await parts.round(permit, call, attempt, signal);
      if (failure.ok) {
        // A coalesced request's joiners copy the result before its first caller can touch it.
        call.onSettled?.succeeded(failure.result);
        return failure.result;
      }
      if (failure.cause === 'aborted') throw failWhileWaiting(undefined, call, pool.closedError());
      const decision = evaluate(pool, failure, retryClass, attempt, deadlineMs);
      if (!decision.retry) {
        const reconciled = decision.reason === 'ambiguous-dispatch' ? await reconcile(pool, parts, call, failure.endpointId, deadlineMs, signal) : undefined;
        if (reconciled?.found) return reconciled.transactionId;
        throw finalError(decision.reason, failure, call, failure.endpointId, deadlineMs - startedAt, reconciled?.lookups);
      }
      // Retries share the hedges' budget: an outage must not multiply the load on the endpoints left.
      if (!budget.tryRetry(clock.now())) throw finalError('budget-exhausted', failure, call, failure.endpointId, deadlineMs - startedAt);
      last = failure;
      failed ??= new Set(pruned);
      failed.add(failure.endpointId);
      if (failure.alsoFailed !== undefined) failed.add(failure.alsoFailed);
      // A node that just said it is pruned joins them: the retry goes elsewhere at once.
      if (historical !== undefined) for (const endpointId of pool.answers.historicalAvoid(kind, historical) ?? []) failed.add(endpointId);
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

/** The retry decision for a failed attempt (shared by single calls and batch items). */
export function evaluate(pool: PipelineHost, failure: AttemptFailure, retryClass: CallContext['retryClass'], attempt: number, deadlineMs: number) {
  return evaluateTransportRetry({
    cause: failure.cause,
    dispatch: failure.dispatch,
    retryClass,
    attempt,
    settings: pool.retry,
    providerDelayMs: failure.providerDelayMs,
    // Only "time is up" counts here: a retry on another endpoint starts at once, so only
    // admission knows whether one can start before the deadline (it says so early when not).
    remainingMs: pool.clock.now() < deadlineMs ? Number.POSITIVE_INFINITY : 0,
    random: pool.random,
  });
}

/**
 * Why admission of a call's next attempt failed: when no endpoint can take a retry before the
 * deadline (a backoff or cooldown ends after it), the call failed for its last attempt's
 * reason, and says so now; otherwise the wait's own error (shared by single calls and batch items).
 */
export function admissionError(
  pool: PipelineHost,
  call: Parameters<typeof failWhileWaiting>[1],
  error: unknown,
  last: AttemptFailure | undefined,
  deadlineMs: number,
  startedAt: number,
  attempt: number,
): TransportError {
  const closed = pool.closedError();
  if (last !== undefined && pool.clock.now() < deadlineMs && isTransportError(error) && !closed && (error.code === 'RATE_LIMITED' || error.code === 'DEADLINE_EXCEEDED')) {
    return finalError('no-time-to-retry', last, call, last.endpointId, deadlineMs - startedAt, undefined, error);
  }
  return failWhileWaiting(error, call, closed, attempt > 1 ? deadlineMs - startedAt : undefined);
}

/**
 * `reconcileSends`: looks an ambiguous send up with reads through the pool. Undefined when
 * off, or when the method or its params cannot be looked up. The caller's signal and
 * pool.close() both end the search at once.
 */
async function reconcile(
  pool: PipelineHost,
  parts: LoopParts,
  call: CallContext,
  endpointId: string,
  deadlineMs: number,
  callerSignal: AbortSignal | undefined,
): Promise<{ readonly found: boolean; readonly lookups: number; readonly transactionId: string } | undefined> {
  const settings = parts.reconcile;
  const lookup = settings && sendLookupOf(call.method, call.params);
  if (!settings || !lookup) return undefined;
  const stop = new AbortController();
  const stopNow = () => stop.abort();
  const onStop = { abortByCaller: stopNow };
  callerSignal?.addEventListener('abort', stopNow, { once: true });
  if (callerSignal?.aborted || pool.closedError()) stopNow();
  pool.cancelOnClose.add(onStop);
  try {
    const read = (timeoutMs: number) => settings.read(lookup.method, lookup.params, { timeoutMs, signal: stop.signal });
    const { found, lookups } = await lookUpSend(lookup, read, pool.clock, settings.settings, deadlineMs, stop.signal);
    pool.events.emit('reconcile', { atMs: pool.clock.now(), endpointId, method: call.method, found, lookups });
    return { found, lookups, transactionId: lookup.transactionId };
  } finally {
    callerSignal?.removeEventListener('abort', stopNow);
    pool.cancelOnClose.delete(onStop);
  }
}
