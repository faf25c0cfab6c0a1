import type { DispatchState, FailureCause } from '../retry/causes.js';
import type { ReputationSignalKind } from '../reputation/signals.js';
import type { SentTransactionId } from '../jsonrpc/answer-ids.js';
import type { IntegrityAsk, IntegrityCheckName } from '../integrity/types.js';

/** Why the pool aborted an attempt's signal, if it did. */
export type AbortReason = 'caller' | 'deadline' | 'attempt-timeout';

/** What the classifier needs to know about the request that produced an outcome. */
export interface ClassifyContext {
  readonly method: string;
  /** The JSON-RPC id we sent. */
  readonly id: number;
  /** Set when the pool aborted the attempt's signal. */
  readonly abortReason: AbortReason | undefined;
  /** Wall-clock now (epoch ms), to read `Retry-After` HTTP-dates. */
  readonly wallNowMs: number;
  /** A send's transaction id, computed locally: a result that is not this id is a lie, not an answer. */
  readonly sentTransactionId?: SentTransactionId | undefined;
  /** What the call asked (a hash, a block, a log filter, a `minContextSlot`): an answer that contradicts it is a lie (`integrity`). */
  readonly integrity?: IntegrityAsk | undefined;
  /** Whether the answering endpoint is held to the pool's `expectedChain` (`verifyChain`). @default true */
  readonly chainVerified?: boolean | undefined;
}

export type ClassifiedOutcome =
  | {
      readonly ok: true;
      readonly dispatch: 'completed';
      readonly status: number;
      /** The JSON-RPC `result`, integers above 2^53 as exact `bigint`. */
      readonly result: unknown;
    }
  | ClassifiedFailure;

export interface ClassifiedFailure {
  readonly ok: false;
  readonly cause: FailureCause;
  readonly dispatch: DispatchState;
  readonly status: number | undefined;
  readonly rpcCode: number | undefined;
  readonly rpcMessage: string | undefined;
  readonly rpcData: unknown;
  /** Provider-requested delay (Retry-After, backoff_seconds, retry_after), capped at 60 000 ms. */
  readonly providerDelayMs: number | undefined;
  /** Reputation signal for the endpoint. */
  readonly signal: ReputationSignalKind;
  /** A protocol violation: feeds the invalid-rate detector. */
  readonly protocolViolation: boolean;
  /** Counts as a failure for the host circuit breaker (never 4xx, capability, cancellation). */
  readonly breakerFailure: boolean;
  /** Short, secret-free description, e.g. `html-body`, `id-mismatch`, `http-502`, `integrity`. */
  readonly detail: string;
  /** With detail `integrity`: which check the answer failed (`block-number`, `log-topics`, …). */
  readonly check?: IntegrityCheckName | undefined;
}
