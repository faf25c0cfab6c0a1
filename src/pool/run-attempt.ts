import type { AttemptRecord } from '../errors/transport-error.js';
import type { RequestBodyWriter } from '../jsonrpc/envelope.js';
import type { RawOutcome } from '../http/executor.js';
import type { ClassifiedFailure, ClassifiedOutcome } from '../http/outcome.js';
import type { HistoricalRead } from '../health/historical.js';
import type { RequestKind } from '../retry/causes.js';
import { AttemptControl, exchange, type Exchanged } from './attempt.js';
import type { FailedCall } from './call-errors.js';
import type { PoolInternals } from './internals.js';
import { permitRole, type HttpRequestPermit } from './permit.js';
import type { CallObservation } from './call-observer.js';

/** What one call carries from attempt to attempt. */
export interface CallContext extends FailedCall, Exchanged {
  readonly kind: RequestKind;
  readonly attempts: AttemptRecord[];
  /** The request body for a given JSON-RPC id (params serialized once). */
  readonly body: RequestBodyWriter;
  /** Set when the call reads historical data (archival routing and learning). */
  readonly historical: HistoricalRead | undefined;
  /** Exporters watching this call (undefined when nobody observes). */
  readonly observation?: CallObservation | undefined;
  /** Told of the result before the caller sees it, and once when the call's own request loop ends (coalescing frees the call's key). */
  onSettled?: { succeeded(result: unknown): void; settled(): void } | undefined;
  /** When the caller made the call, if before its request loop started (a coalesced joiner going on alone): its errors count from then. */
  startedAtMs?: number | undefined;
}

/** A failed attempt, with its endpoint and a secret-free stand-in for the transport error (its code only). */
export type AttemptFailure = ClassifiedFailure & { readonly endpointId: string; readonly transportError: Error | undefined };
export type AttemptResult = { readonly ok: true; readonly result: unknown; readonly endpointId: string } | AttemptFailure;
/** A hedge race's loser: cancelled because the other attempt answered first. Never recorded as a failure. */
export interface LostAttempt {
  readonly ok: false;
  readonly lost: true;
  readonly endpointId: string;
}

/** An attempt's place in a hedge race: the race cancels the loser through it. */
export interface RaceEntry {
  control: AttemptControl | undefined;
  /** Set by the race before it cancels this attempt: its outcome is the race's, not the endpoint's fault. */
  lost: boolean;
}

/**
 * The transport error reduced to its code: undici/DNS messages can name the host, and a
 * host may hide a key in a subdomain, so the original error is never kept.
 */
export function transportErrorOf(raw: RawOutcome): Error | undefined {
  if (raw.type !== 'error') return undefined;
  const code = raw.code ?? raw.kind;
  return Object.assign(new Error(`transport ${raw.kind} failure (${code})`), { code });
}

function observeAttempt(
  observation: CallObservation,
  endpointId: string,
  attempt: number,
  outcome: ClassifiedOutcome,
  latencyMs: number,
  lost: boolean,
  wallNowMs: number,
): void {
  observation.attempt({
    endpointId,
    attempt,
    outcome: outcome.ok ? 'success' : lost ? 'lost' : 'failure',
    cause: outcome.ok ? undefined : outcome.cause,
    dispatch: outcome.dispatch,
    status: outcome.status,
    rpcCode: outcome.ok ? undefined : outcome.rpcCode,
    latencyMs,
    startedAtWallMs: wallNowMs - latencyMs,
  });
}

/** Event fields shared by an attempt's events (built only when someone listens). */
function eventBase(permit: HttpRequestPermit, call: CallContext, attempt: number, atMs: number) {
  return { atMs, endpointId: permit.endpointId, kind: call.kind, method: call.method, attempt };
}

/**
 * Runs one attempt on `permit`, records its outcome and releases the permit. In a hedge
 * race (`entry`), an attempt the race cancelled is no-fault: nothing is recorded against
 * the endpoint, and its elapsed time only tells the latency estimate "at least this long".
 */
export async function runAttempt(
  pool: PoolInternals,
  permit: HttpRequestPermit,
  call: CallContext,
  attempt: number,
  callerSignal: AbortSignal | undefined,
  entry?: RaceEntry,
): Promise<AttemptResult | LostAttempt> {
  const { clock, events } = pool;
  const started = clock.now();
  if (events.has('attempt')) events.emit('attempt', eventBase(permit, call, attempt, started));
  const control = new AttemptControl(pool, permitRole(permit), permit.deadlineMs, started, callerSignal);
  if (entry) entry.control = control;
  let outcome: ClassifiedOutcome;
  try {
    outcome = await exchange(pool, control, call, call.retryClass === 'never-after-dispatch');
  } finally {
    control.finish();
  }
  const latencyMs = clock.now() - started;
  const { endpointId } = permit;
  // A hedge race's loser teaches nothing: its answer (if any) was cut short.
  if (entry?.lost !== true) pool.health.onAnswer(permitRole(permit), call.method, call.params, call.historical, outcome);
  if (call.observation !== undefined) observeAttempt(call.observation, endpointId, attempt, outcome, latencyMs, entry?.lost === true, clock.wallNow());
  try {
    if (outcome.ok) {
      permit.recordSuccess(latencyMs);
      if (events.has('success')) events.emit('success', { ...eventBase(permit, call, attempt, clock.now()), latencyMs });
      return { ok: true, result: outcome.result, endpointId };
    }
    if (entry?.lost) {
      pool.observeLost(permitRole(permit), latencyMs);
      return { ok: false, lost: true, endpointId };
    }
    if (outcome.cause === 'rate-limited') permit.recordRateLimited(outcome.providerDelayMs);
    else permit.recordFailure(outcome.cause, outcome, latencyMs);
    call.attempts.push({
      endpointId,
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
    return { ...outcome, endpointId, transportError: control.raw === undefined ? undefined : transportErrorOf(control.raw) };
  } finally {
    permit.release();
  }
}
