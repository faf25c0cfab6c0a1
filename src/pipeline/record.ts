/**
 * The record stage: runs one attempt on its permit through the exchange and reports what
 * happened — to the permit (role state, reputation, latency, cooldowns: see
 * `parts/permit-host.ts`), to endpoint health (every answer: heads, archival lessons), to
 * the events, and to the call's exporters when it has any — then releases the permit.
 */
import { providerAllowedRps } from '../jsonrpc/provider-rate.js';
import { rateLimitAllowedRps } from '../http/rate-limit-headers.js';
import { permitRole, type HttpRequestPermit } from '../admission/permit.js';
import type { ClassifiedOutcome } from '../http/outcome.js';
import { transportErrorOf, type AttemptResult, type CallContext, type LostAttempt, type RaceEntry } from './call-context.js';
import type { CallObservation } from './call-observer.js';
import { AttemptControl, classifyExchange, prepareExchange, thrownOutcome } from './exchange.js';
import type { RawOutcome } from '../http/executor.js';
import type { PipelineHost } from './host.js';

/** The rate a refusal says the provider allows: Infura's `allowed_rps` in the body, else a limit with its window in the headers. */
function allowedRpsOf(rpcData: unknown, raw: RawOutcome): number | undefined {
  return providerAllowedRps(rpcData) ?? (raw.type === 'response' ? rateLimitAllowedRps(raw.headers) : undefined);
}

/** One recorded attempt; in a hedge race (`entry`) it may come back `lost`. */
export type RecordedAttempt = (
  permit: HttpRequestPermit,
  call: CallContext,
  attempt: number,
  callerSignal: AbortSignal | undefined,
  entry?: RaceEntry,
) => Promise<AttemptResult | LostAttempt>;

function observeAttempt(
  observation: CallObservation,
  endpointId: string,
  attempt: number,
  outcome: ClassifiedOutcome,
  startedAtMs: number,
  latencyMs: number,
  lost: boolean,
): void {
  const { call } = observation;
  observation.attempt({
    endpointId,
    attempt,
    outcome: outcome.ok ? 'success' : lost ? 'lost' : 'failure',
    cause: outcome.ok ? undefined : outcome.cause,
    dispatch: outcome.dispatch,
    status: outcome.status,
    rpcCode: outcome.ok ? undefined : outcome.rpcCode,
    latencyMs,
    // From the call's one wall-clock read (see the observe stage).
    startedAtWallMs: call.startedAtWallMs + (startedAtMs - call.startedAtMs),
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
export function recordStage(pool: PipelineHost): RecordedAttempt {
  return (permit, call, attempt, callerSignal, entry) => runAttempt(pool, permit, call, attempt, callerSignal, entry);
}

async function runAttempt(
  pool: PipelineHost,
  permit: HttpRequestPermit,
  call: CallContext,
  attempt: number,
  callerSignal: AbortSignal | undefined,
  entry: RaceEntry | undefined,
): Promise<AttemptResult | LostAttempt> {
  const { clock, events } = pool;
  const started = clock.now();
  if (events.has('attempt')) events.emit('attempt', eventBase(permit, call, attempt, started));
  const control = new AttemptControl(pool, permitRole(permit), permit.deadlineMs, started, callerSignal);
  if (entry) entry.control = control;
  // The exchange's three steps inline: one async frame per attempt.
  prepareExchange(pool, control, call, call.retryClass === 'never-after-dispatch');
  let raw: RawOutcome;
  try {
    raw = await pool.executor.execute(control);
  } catch (error) {
    raw = thrownOutcome(control, error);
  } finally {
    control.finish();
  }
  const outcome: ClassifiedOutcome = classifyExchange(control, raw);
  const latencyMs = clock.now() - started;
  const { endpointId } = permit;
  // A hedge race's loser teaches nothing: its answer (if any) was cut short.
  if (entry?.lost !== true) pool.answers.onAnswer(permitRole(permit), call.method, call.params, call.historical, outcome);
  if (call.observation !== undefined) observeAttempt(call.observation, endpointId, attempt, outcome, started, latencyMs, entry?.lost === true);
  try {
    if (outcome.ok) {
      permit.recordSuccess(latencyMs);
      if (events.has('success')) events.emit('success', { ...eventBase(permit, call, attempt, clock.now()), latencyMs });
      return { ok: true, result: outcome.result, endpointId };
    }
    if (entry?.lost) return { ok: false, lost: true, endpointId, role: permitRole(permit), latencyMs };
    if (outcome.cause === 'rate-limited') permit.recordRateLimited(outcome.providerDelayMs, allowedRpsOf(outcome.rpcData, raw));
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
        ...(outcome.check === undefined ? {} : { check: outcome.check }),
      });
    }
    return { ...outcome, endpointId, transportError: control.raw === undefined ? undefined : transportErrorOf(control.raw) };
  } finally {
    permit.release();
  }
}
