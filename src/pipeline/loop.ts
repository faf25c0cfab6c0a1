/**
 * The one request loop (issue 26 §1): acquire → send → decide → avoid, until nothing waits
 * to be sent. What one permit carries is the work's: a single call's round (`request-loop.ts`)
 * or a wire batch's chunk (`batch-request.ts`). Every wait (admission, backoff, the send
 * itself) is bounded by the one deadline, set by the first permit, and cancelled by the
 * caller's signal; a retry's backoff is a condition of admission (failed endpoints are
 * admissible only after it), so it never delays failover to a healthy peer.
 */
import type { HttpRequestPermit } from '../admission/permit.js';
import { isTransportError, type TransportError } from '../errors/transport-error.js';
import type { RequestKind, RetryClass } from '../retry/causes.js';
import { evaluateTransportRetry, type RetryStopReason } from '../retry/evaluate.js';
import { failWhileWaiting, finalError, type FailedCall } from './call-errors.js';
import type { AttemptFailure } from './call-context.js';
import type { AcquireOptions, CallBudget, PipelineHost, RetryAvoidance } from './host.js';

/** What the loop drives: the items one caller is waiting for, and what a permit sends of them. */
export interface LoopWork<Sent> {
  readonly kind: RequestKind;
  /** The method a credit plan prices at admission (undefined: a batch, whose items are charged as they are sent). */
  readonly method: string | undefined;
  readonly options: { readonly signal?: AbortSignal | undefined; readonly endpoint?: string | undefined; readonly timeoutMs?: number | undefined };
  /** When the caller made the call: its errors' time counts from then. */
  readonly startedAt: number;
  /** Set by the first permit; every later wait ends there. */
  deadlineMs: number;
  /** The endpoints the next admission avoids (failed ones until their backoff ends). */
  avoid: RetryAvoidance | undefined;
  /** The endpoints that failed this work (undefined until one did). */
  failed: Set<string> | undefined;
  /** Batch chunks go concurrently (a Set of sends in flight); a single call's rounds one after another, with none. */
  readonly concurrent: boolean;
  /** Once, before the first admission: the work's budget deposits and its first avoidance. */
  begin(): void;
  pending(): boolean;
  /** Whether admission number `attempt` may take the costlier candidate. */
  explores(attempt: number): boolean;
  send(permit: HttpRequestPermit, attempt: number): Promise<Sent>;
  /** Settles what `sent` finished; sets `avoid` for what goes again. A wait only to reconcile a send. */
  decide(sent: Sent, attempt: number): Promise<void> | undefined;
  /** Fails every item waiting to be sent (a single call throws). */
  failWaiting(errorOf: (item: FailedCall, last: AttemptFailure | undefined) => TransportError): void;
  /** The loop ended, however. */
  end(): void;
  /** What the loop resolves with once nothing waits. */
  readonly result: unknown;
}

/** Runs `work` to its end: resolves with `work.result`; rejects only with what `work` throws. */
export async function runLoop<Sent>(pool: PipelineHost, work: LoopWork<Sent>): Promise<unknown> {
  const { clock } = pool;
  const { signal, endpoint, timeoutMs } = work.options;
  // A caller that aborts in the same tick it made the call must see nothing sent.
  if (signal) await Promise.resolve();
  work.begin();
  const inflight = work.concurrent ? new Set<Promise<void>>() : undefined;
  try {
    // `attempt` counts permits: the first sets the deadline, later ones wait only until it.
    for (let attempt = 1; ; ) {
      if (!work.pending()) {
        if (inflight === undefined || inflight.size === 0) return work.result;
        await Promise.race(inflight);
        continue;
      }
      const acquireOptions: AcquireOptions = { signal, endpoint, timeoutMs: attempt > 1 ? work.deadlineMs - clock.now() : timeoutMs };
      const explore = work.explores(attempt);
      // Synchronous when a role admits at once: no promise hops on the common path.
      let permit = pool.tryAcquire(work.kind, acquireOptions, work.avoid, explore, work.method);
      if (permit === undefined) {
        try {
          permit = await pool.acquire(work.kind, acquireOptions, work.avoid, explore, work.method);
        } catch (error) {
          const failedAt = attempt;
          work.failWaiting((item, last) => admissionError(pool, item, error, last, work.deadlineMs, work.startedAt, failedAt));
          continue;
        }
      }
      if (attempt === 1) work.deadlineMs = permit.deadlineMs;
      if (signal?.aborted || pool.closedError()) {
        // Aborted between admission and the send: nothing was sent.
        permit.release();
        work.failWaiting((item) => failWhileWaiting(undefined, item, pool.closedError()));
        continue;
      }
      const sent = work.send(permit, attempt);
      const sentAt = attempt++;
      if (inflight === undefined) {
        const waiting = work.decide(await sent, sentAt);
        if (waiting !== undefined) await waiting;
      } else {
        const task: Promise<void> = sent.then((result) => {
          inflight.delete(task);
          void work.decide(result, sentAt);
        });
        inflight.add(task);
      }
    }
  } finally {
    work.end();
  }
}

/**
 * A failed item's fate: the reason it is final, or the backoff (ms) before an endpoint that
 * failed it may take it again. A retry draws from the kind's budget, shared with the hedges:
 * an outage must not multiply the load on the endpoints left.
 */
export function decideFailure(
  pool: PipelineHost,
  budget: CallBudget,
  failure: AttemptFailure,
  retryClass: RetryClass,
  tries: number,
  deadlineMs: number,
): RetryStopReason | 'budget-exhausted' | number {
  const decision = evaluate(pool, failure, retryClass, tries, deadlineMs);
  if (!decision.retry) return decision.reason;
  if (!budget.tryRetry(pool.clock.now())) return 'budget-exhausted';
  return decision.delayMs;
}

/** `endpointId` failed the work: admission avoids it (and every other that failed it) until `untilMs`. */
export function avoidFailed(work: LoopWork<unknown>, endpointId: string, untilMs: number): Set<string> {
  const failed = (work.failed ??= new Set());
  failed.add(endpointId);
  work.avoid = { endpoints: failed, untilMs };
  return failed;
}

/** The retry decision for a failed attempt (single calls and batch items alike). */
export function evaluate(pool: PipelineHost, failure: AttemptFailure, retryClass: RetryClass, attempt: number, deadlineMs: number) {
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
 * Why admission of an item's next send failed: when no endpoint can take a retry before the
 * deadline (a backoff or cooldown ends after it), the item failed for its last attempt's
 * reason, and says so now; otherwise the wait's own error.
 */
export function admissionError(
  pool: PipelineHost,
  call: FailedCall,
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
