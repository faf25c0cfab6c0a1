/**
 * The errors admission fails a call with when no candidate can take it before its deadline:
 * each says what blocked (a rate-limit cooldown, a spent monthly budget, anything else with
 * the candidates' reasons) in a secret-free message, endpoint ids only.
 */
import { TransportError } from '../errors/transport-error.js';
import type { RequestKind } from '../retry/causes.js';
import type { AdmissionRequest } from './admission-model.js';
import { describeWaitingFor, type WaitingFor } from './waiting-for.js';

/** Rate-limit cooldowns are all that block, past the deadline: `RATE_LIMITED` with the provider's remaining delay. */
export function rateLimitedError(kind: RequestKind, retryAfterMs: number, timeoutMs: number): TransportError<'RATE_LIMITED'> {
  return new TransportError('RATE_LIMITED', `Every endpoint that can take a '${kind}' call is rate limited for ${retryAfterMs} ms, past the ${timeoutMs} ms deadline`, {
    context: { retryAfterMs },
  });
}

/** Every endpoint left has spent its month's credits and refuses past them (`plan.onExhausted: 'refuse'`): nothing was sent. */
export function budgetExhaustedError(kind: RequestKind, waitingFor: readonly WaitingFor[]): TransportError<'BUDGET_EXHAUSTED'> {
  const endpointIds = waitingFor.filter((w) => w.reason === 'budget').map((w) => w.endpointId);
  return new TransportError('BUDGET_EXHAUSTED', `Every endpoint that can take a '${kind}' call has spent its monthly credits (${endpointIds.join(', ')}); nothing was sent`, {
    context: { endpointIds, waitingFor },
  });
}

/** `DEADLINE_EXCEEDED` from admission, saying what each candidate was waiting for (`context.waitingFor`, and in words). */
export function admissionDeadlineError(request: AdmissionRequest, waitingFor: readonly WaitingFor[], tense: 'can' | 'could'): TransportError<'DEADLINE_EXCEEDED'> {
  const why = waitingFor.length === 0 ? '' : `; waiting for ${describeWaitingFor(waitingFor)}`;
  return new TransportError('DEADLINE_EXCEEDED', `No endpoint ${tense} admit a '${request.group.kind}' call within ${request.timeoutMs} ms${why}`, {
    context: { timeoutMs: request.timeoutMs, waitingFor: [...waitingFor] },
  });
}
