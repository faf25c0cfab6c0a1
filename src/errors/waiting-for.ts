import type { FailureCause } from '../retry/causes.js';

/**
 * What kept an endpoint from taking the call:
 * - `chain-check`: `expectedChain` is set and the endpoint is not verified yet (its check
 *   runs, or failed and is asked again later — `lastCause` says how it failed);
 * - `wrong-chain`: the check found another chain; the endpoint is out for good;
 * - `breaker`: its host's circuit breaker is open;
 * - `benched`: a reputation detector put it in cooldown;
 * - `below-threshold`: its reputation score is under the eligibility score (30 by default);
 * - `lagging`: its head is further behind the chain's tip than `health.syncAllowance`;
 * - `backoff`: it already failed this call and the retry backoff has not ended;
 * - `cooldown`: it answered with a rate limit and the pause has not ended;
 * - `budget`: its plan's monthly credits are spent and it refuses past them (`onExhausted: 'refuse'`);
 * - `rate`: its `requestsPerSecond` bucket (or its plan's `creditsPerSecond`) is empty;
 * - `concurrency`: its `maxConcurrentRequests` permits are all in use;
 * - `queued`: it could admit, but calls queued earlier (FIFO per kind) are served first.
 */
export type WaitingReason =
  | 'chain-check'
  | 'wrong-chain'
  | 'breaker'
  | 'benched'
  | 'below-threshold'
  | 'lagging'
  | 'backoff'
  | 'cooldown'
  | 'budget'
  | 'rate'
  | 'concurrency'
  | 'queued';

/** One endpoint a timed-out call was waiting for (`DEADLINE_EXCEEDED` `context.waitingFor`). */
export interface WaitingFor {
  readonly endpointId: string;
  readonly reason: WaitingReason;
  /** How the endpoint last failed (for `chain-check`: how its last check failed), when it did. */
  readonly lastCause?: FailureCause;
  /** How long until this reason ends by time alone, in ms, when known. */
  readonly remainingMs?: number;
}
