import { TransportError, type AttemptRecord } from '../errors/transport-error.js';
import type { RequestKind } from '../retry/causes.js';
import type { TransportErrorCode } from '../errors/codes.js';
import type { ClassifiedFailure } from '../http/outcome.js';
import type { SentTransactionId } from '../jsonrpc/answer-ids.js';
import type { RetryClass } from '../retry/causes.js';
import type { RetryStopReason } from '../retry/evaluate.js';
import { describeWaitingFor } from '../admission/waiting-for.js';

/** What a call knows when it fails. */
export interface FailedCall {
  readonly method: string;
  readonly params: readonly unknown[];
  readonly retryClass: RetryClass;
  readonly attempts: readonly AttemptRecord[];
  readonly redact: (text: string) => string;
  /** A send's transaction id, computed locally from its bytes. */
  readonly sentTransactionId?: SentTransactionId | undefined;
}

/** A node's `error.data`, with every string (keys included) redacted; deeper than 8 levels is cut, never passed raw. */
function redactValue(value: unknown, redact: (text: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return redact(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= 8) return '[truncated]';
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redact, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [redact(key), redactValue(item, redact, depth + 1)]));
}

function summary(attempts: readonly AttemptRecord[]): string {
  if (attempts.length === 0) return '';
  const parts = attempts.map((a) => `${a.endpointId}: ${a.cause ?? 'ok'}${a.status === undefined ? '' : ` ${a.status}`}`);
  return ` [attempts: ${parts.join(', ')}]`;
}

/** The sent transaction's id and how to look it up, for reconciliation after an ambiguous send. */
function transactionIdOf(call: FailedCall): { readonly context: { signature?: string; transactionHash?: string }; readonly hint: string } {
  const id = call.sentTransactionId;
  if (id === undefined) return { context: {}, hint: '' };
  return id.field === 'signature'
    ? { context: { signature: id.value }, hint: ` Reconcile with getSignatureStatuses for signature ${id.value}.` }
    : { context: { transactionHash: id.value }, hint: ` Reconcile with eth_getTransactionByHash for ${id.value}.` };
}

/** Why an answer left a send ambiguous, in words, for the reasons that need more than their name. */
const AMBIGUOUS_WHY: Readonly<Record<string, string>> = {
  'cancelled-after-write': 'the call was cancelled after it was written',
  'send-result-mismatch': 'it answered with something other than this transaction’s id',
  'empty-result': 'it answered with an empty result',
};

/**
 * An ambiguous send: it may have reached a node, so it was not sent again. One outcome for
 * "no usable answer" — a lost answer, a cut-off body or a result that is not this
 * transaction's id — with the attempts, the endpoint and the locally computed id.
 */
function ambiguous(call: FailedCall, endpointId: string | undefined, cause: unknown, reason: string, lookups?: number): TransportError<'AMBIGUOUS_DISPATCH'> {
  const { context: ids, hint } = transactionIdOf(call);
  const why = AMBIGUOUS_WHY[reason] ?? reason;
  const context = { ...ids, reason };
  const looked =
    lookups === undefined
      ? ''
      : lookups === 0
        ? ' No lookup could be made (no time left before the deadline, or no endpoint to ask; a timeoutMs above requestTimeoutMs leaves time for reconcileSends).'
        : ` ${lookups} lookup(s) did not find it yet.`;
  return new TransportError(
    'AMBIGUOUS_DISPATCH',
    `${call.method} may have reached endpoint '${endpointId ?? 'unknown'}' (${why}); it was not sent again.${looked}${hint}${summary(call.attempts)}`,
    { context: lookups === undefined ? context : { ...context, lookups }, method: call.method, endpointId, attempts: call.attempts, cause },
  );
}

function lastWasAmbiguousSend(call: FailedCall): boolean {
  return call.retryClass === 'never-after-dispatch' && call.attempts.at(-1)?.dispatch === 'dispatched-ambiguous';
}

/**
 * Adds the call's method and attempts to an error raised while waiting (admission,
 * backoff, close), and turns an abort after an ambiguous send into `AMBIGUOUS_DISPATCH`:
 * the caller must learn that the transaction may have landed.
 */
export function failWhileWaiting(error: unknown, call: FailedCall, closed: TransportError | undefined, callTimeoutMs?: number): TransportError {
  const base = error instanceof TransportError ? error : new TransportError('ABORTED', 'The call was aborted by the caller', { context: {}, cause: error });
  const source = closed ?? base;
  if (source.code === 'DEADLINE_EXCEEDED' && callTimeoutMs !== undefined) {
    // Waiting for a retry's admission ran into the call's deadline: report the call's budget, not what was left of it.
    const timeoutMs = Math.round(callTimeoutMs);
    // Keep what admission said it was waiting for: with no attempt made, it is the only clue.
    const { waitingFor } = (source as TransportError<'DEADLINE_EXCEEDED'>).context;
    const why = waitingFor === undefined || waitingFor.length === 0 ? '' : `; waiting for ${describeWaitingFor(waitingFor)}`;
    return new TransportError('DEADLINE_EXCEEDED', `${call.method} did not complete within ${timeoutMs} ms${why}${summary(call.attempts)}`, {
      context: waitingFor === undefined ? { timeoutMs } : { timeoutMs, waitingFor },
      method: call.method,
      endpointId: call.attempts.at(-1)?.endpointId,
      attempts: call.attempts,
      cause: source,
    });
  }
  if (lastWasAmbiguousSend(call) && (source.code === 'ABORTED' || source.code === 'POOL_CLOSED')) {
    return ambiguous(call, call.attempts.at(-1)?.endpointId, source, 'cancelled-after-write');
  }
  return new TransportError(source.code, `${source.message}${summary(call.attempts)}`, {
    context: source.context,
    method: call.method,
    endpointId: call.attempts.at(-1)?.endpointId,
    attempts: call.attempts,
    cause: source.cause ?? (source === base ? undefined : source),
  } as never);
}

/** The node's JSON-RPC error of the last attempt as an `RPC_ERROR`, with message and data redacted. */
function nodeError(failure: ClassifiedFailure, call: FailedCall, endpointId: string): TransportError<'RPC_ERROR'> | undefined {
  if (failure.rpcCode === undefined) return undefined;
  const rpcMessage = call.redact(failure.rpcMessage ?? '');
  const rpcData = redactValue(failure.rpcData, call.redact);
  return new TransportError('RPC_ERROR', `${call.method} failed with JSON-RPC error ${failure.rpcCode}: ${rpcMessage}${summary(call.attempts)}`, {
    context: { rpcCode: failure.rpcCode, rpcMessage, ...(rpcData === undefined ? {} : { rpcData }) },
    method: call.method,
    endpointId,
    attempts: call.attempts,
  });
}

/**
 * The error for a call whose last attempt failed and may not be retried: by the retry
 * rule, or (`no-time-to-retry`) because admission showed that no endpoint can take a retry
 * before the deadline — `waitError` is what admission said (a rate limit's remaining delay).
 */
export function finalError(
  reason: RetryStopReason | 'no-time-to-retry',
  failure: ClassifiedFailure & { readonly transportError: Error | undefined },
  call: FailedCall,
  endpointId: string,
  timeoutMs: number,
  lookups?: number,
  waitError?: TransportError,
): TransportError {
  const rpcError = nodeError(failure, call, endpointId);
  const common = { method: call.method, endpointId, attempts: call.attempts };
  // Whatever the final code, the node's own error (redacted) or the transport error's code stays reachable as `cause`.
  const cause = rpcError ?? failure.transportError;
  const make = <C extends TransportErrorCode>(code: C, message: string, context: TransportError<C>['context']) =>
    new TransportError(code, `${message}${summary(call.attempts)}`, { ...common, context, cause } as never);

  if (reason === 'ambiguous-dispatch') return ambiguous(call, endpointId, failure.transportError, failure.detail, lookups);
  if (reason === 'deadline' || (failure.cause === 'timeout' && reason !== 'budget-exhausted')) {
    return make('DEADLINE_EXCEEDED', `${call.method} did not complete within ${Math.round(timeoutMs)} ms`, { timeoutMs });
  }
  // When every attempt failed the same way, that way names the error; a mix is RETRIES_EXHAUSTED.
  const sameCause = call.attempts.every((attempt) => attempt.cause === failure.cause);
  if ((reason === 'budget-exhausted' || reason === 'no-time-to-retry') && !sameCause) {
    return make('RETRIES_EXHAUSTED', `${call.method} failed after ${call.attempts.length} attempts`, { lastCause: failure.cause });
  }
  if (rpcError && (failure.cause === 'rpc-application' || failure.cause === 'capability' || failure.cause === 'request')) return rpcError;
  switch (failure.cause) {
    case 'rate-limited': {
      const retryAfterMs = waitError?.code === 'RATE_LIMITED' ? (waitError as TransportError<'RATE_LIMITED'>).context.retryAfterMs : failure.providerDelayMs;
      return make('RATE_LIMITED', `${call.method} was rate limited (last by endpoint '${endpointId}')`, retryAfterMs === undefined ? {} : { retryAfterMs });
    }
    case 'invalid-response':
      return make(
        'INVALID_RESPONSE',
        `${call.method} got an invalid response from endpoint '${endpointId}' (${failure.check === undefined ? failure.detail : `${failure.detail}: ${failure.check}`})`,
        failure.check === undefined ? { reason: failure.detail } : { reason: failure.detail, check: failure.check },
      );
    default:
      if (failure.status !== undefined && failure.status >= 400) {
        return make('HTTP_ERROR', `${call.method} failed with HTTP ${failure.status} from endpoint '${endpointId}'`, { status: failure.status });
      }
      return make('RETRIES_EXHAUSTED', `${call.method} failed after ${call.attempts.length} attempt(s) (${failure.cause}, ${failure.detail})`, { lastCause: failure.cause });
  }
}

/** No endpoint serves `kind` (or the pinned one does not); echoes a pin only when it is a configured id. */
export function noEndpointError(endpoints: readonly { readonly id: string }[], kind: RequestKind, pinned: string | undefined): TransportError<'NO_ENDPOINT'> {
  if (pinned === undefined) return new TransportError('NO_ENDPOINT', `No endpoint serves '${kind}' requests`, { context: { kind } });
  // Echo a pin only when it is a configured id: a caller may have passed a URL (with its key) by mistake.
  if (endpoints.some((endpoint) => endpoint.id === pinned)) {
    return new TransportError('NO_ENDPOINT', `Endpoint '${pinned}' does not serve '${kind}' requests`, { context: { kind, pinnedEndpoint: pinned } });
  }
  return new TransportError('NO_ENDPOINT', `The pinned endpoint is not a configured endpoint id (kind '${kind}')`, { context: { kind } });
}
