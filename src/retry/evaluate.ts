import { systemRandom, type Random } from '../clock.js';
import { backoffDelayMs } from './backoff.js';
import type { DispatchState, FailureCause, RetryClass } from './causes.js';
import { MAX_PROVIDER_DELAY_MS } from './retry-after.js';

export interface TransportRetrySettings {
  /** Retries after the first attempt. */
  readonly maxRetries: number;
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
}

export interface EvaluateTransportRetryParameters {
  readonly cause: FailureCause;
  readonly dispatch: DispatchState;
  readonly retryClass: RetryClass;
  /** The number of the attempt that just failed (1 for the first). */
  readonly attempt: number;
  readonly settings: TransportRetrySettings;
  /** Delay the provider asked for (Retry-After etc.), in ms; becomes the failing role's cooldown, not this call's wait. */
  readonly providerDelayMs?: number | undefined;
  /** Time left before the call's deadline, in ms; a backoff that would end after it means no retry. */
  readonly remainingMs?: number | undefined;
  readonly random?: Random | undefined;
}

export type RetryStopReason =
  /** `request`, `rpc-application` and `aborted` failures are deterministic or wanted: never retried. */
  | 'cause-not-retryable'
  /** The method's retry class is `not-applicable`. */
  | 'not-applicable'
  /** A `never-after-dispatch` call may have reached a server: sending again could duplicate it. */
  | 'ambiguous-dispatch'
  /** `invalid-response` and `capability` are retried only for idempotent methods. */
  | 'not-idempotent'
  /** `maxRetries` retries were already made. */
  | 'budget-exhausted'
  /** The backoff would end after the deadline. */
  | 'deadline';

export type EvaluateTransportRetryReturnType =
  | {
      readonly retry: true;
      /** Backoff before the next attempt on another endpoint, in ms. */
      readonly delayMs: number;
      /**
       * Wait before sending to the same endpoint again: the backoff, lengthened by the
       * provider's delay (capped at 60 s). The pool enforces it as the role's cooldown.
       */
      readonly sameEndpointDelayMs: number;
    }
  | { readonly retry: false; readonly reason: RetryStopReason };

const NEVER_RETRIED: ReadonlySet<FailureCause> = new Set(['request', 'rpc-application', 'aborted']);
const IDEMPOTENT_ONLY: ReadonlySet<FailureCause> = new Set(['invalid-response', 'capability']);

/**
 * The retry decision, a pure function of its inputs.
 *
 * The rule that matters most: a `never-after-dispatch` call (sendTransaction,
 * eth_sendRawTransaction, unknown methods) whose attempt ended `dispatched-ambiguous` is
 * never sent again. It may be sent again only when the attempt provably never left
 * (`not-dispatched`) or the server said it did not process it (`rejected`).
 */
export function evaluateTransportRetry(params: EvaluateTransportRetryParameters): EvaluateTransportRetryReturnType {
  const { cause, dispatch, retryClass, attempt, settings } = params;
  if (NEVER_RETRIED.has(cause)) return { retry: false, reason: 'cause-not-retryable' };
  if (retryClass === 'not-applicable') return { retry: false, reason: 'not-applicable' };
  if (retryClass === 'never-after-dispatch') {
    if (dispatch === 'dispatched-ambiguous') return { retry: false, reason: 'ambiguous-dispatch' };
    if (dispatch !== 'not-dispatched' && dispatch !== 'rejected') return { retry: false, reason: 'not-idempotent' };
  }
  if (IDEMPOTENT_ONLY.has(cause) && retryClass !== 'idempotent') return { retry: false, reason: 'not-idempotent' };
  if (attempt > settings.maxRetries) return { retry: false, reason: 'budget-exhausted' };
  const delayMs = backoffDelayMs(attempt, settings, params.random ?? systemRandom);
  if (params.remainingMs !== undefined && delayMs >= params.remainingMs) return { retry: false, reason: 'deadline' };
  const providerDelayMs = Math.min(Math.max(0, params.providerDelayMs ?? 0), MAX_PROVIDER_DELAY_MS);
  return { retry: true, delayMs, sameEndpointDelayMs: Math.max(delayMs, providerDelayMs) };
}
