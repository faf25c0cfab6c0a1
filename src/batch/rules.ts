/**
 * The rules of a wire batch (pure): which retry class decides an item's fate, what one
 * HTTP request tells the endpoint's record, and how many items one request may carry.
 *
 * The send rule for batches: a request that holds any `never-after-dispatch` item (a
 * send, a filter poll, an unknown method) is `never-after-dispatch` as a whole. When such
 * a request fails as a whole after it may have reached a node, none of its items is sent
 * again — the caller sent them as one unit. When the answer is attributable item by item,
 * each item follows its own class: a read whose element is missing may be read again
 * alone (nothing that could act twice is resent), a send's missing element is ambiguous.
 */
import type { ClassifiedFailure, ClassifiedOutcome } from '../http/outcome.js';
import type { ReputationSignalKind } from '../reputation/signals.js';
import type { RetryClass } from '../retry/causes.js';

/** The retry class of a request holding items of `classes`: `never-after-dispatch` when any item is. */
export function requestRetryClass(classes: readonly RetryClass[]): RetryClass {
  if (classes.includes('never-after-dispatch')) return 'never-after-dispatch';
  if (classes.every((retryClass) => retryClass === 'not-applicable')) return 'not-applicable';
  return 'idempotent';
}

/** The class that decides an item's retry: the request's when it failed as a whole, else the item's own. */
export function itemRetryClass(whole: boolean, own: RetryClass, request: RetryClass): RetryClass {
  if (own === 'not-applicable') return own;
  return whole ? request : own;
}

/** What one batch request reports on its endpoint: once, like a single call's attempt. */
export type EndpointVerdict =
  | { readonly type: 'success' }
  | { readonly type: 'rate-limited'; readonly providerDelayMs: number | undefined }
  | { readonly type: 'failure'; readonly failure: ClassifiedFailure };

const SEVERITY: Readonly<Record<ReputationSignalKind, number>> = {
  fatal: 5,
  critical: 4,
  major: 3,
  minor: 2,
  'very-slow': 1,
  slow: 1,
  none: 0,
  success: 0,
  recovery: 0,
};

/**
 * The endpoint's verdict on one request. A whole-request outcome counts as for a single
 * call. Item by item: any rate-limited item cools the role down (QuickNode answers a batch
 * over its limit with HTTP 200 and per-item errors); else the worst item that is the
 * endpoint's fault (a missing item, a wrapped upstream failure) is recorded; items that
 * are the application's own errors cost the endpoint nothing.
 */
export function endpointVerdict(whole: boolean, outcomes: readonly ClassifiedOutcome[]): EndpointVerdict {
  let delay: number | undefined;
  let rateLimited = false;
  let worst: ClassifiedFailure | undefined;
  for (const outcome of outcomes) {
    if (outcome.ok) continue;
    if (outcome.cause === 'rate-limited') {
      rateLimited = true;
      if (outcome.providerDelayMs !== undefined) delay = Math.max(delay ?? 0, outcome.providerDelayMs);
    } else if ((whole || SEVERITY[outcome.signal] > 0) && (worst === undefined || SEVERITY[outcome.signal] > SEVERITY[worst.signal])) {
      worst = outcome;
    }
    if (whole) break;
  }
  if (rateLimited) return { type: 'rate-limited', providerDelayMs: delay };
  if (worst !== undefined) return { type: 'failure', failure: worst };
  return { type: 'success' };
}

/**
 * Whether a whole-request answer to a batch of several items refuses the batch itself, not
 * its items: a node without batch support reads the array as one bad request (-32600 /
 * -32601 with no id), a gateway caps the size ("batch too large", HTTP 413). Both say the
 * items were not processed, so they may go again in smaller requests: `too-large` halves the
 * endpoint's batch size, `unsupported` sends its items one by one from then on.
 *
 * A rate limit (HTTP 429, a JSON-RPC rate-limit code: whatever the classifier calls
 * `rate-limited`) is never a refusal, whatever its wording ("batch rate limit exceeded"):
 * it cools the endpoint down for its `Retry-After` and says nothing about the batch's size.
 */
export function batchRefusal(outcome: ClassifiedOutcome): 'too-large' | 'unsupported' | undefined {
  if (outcome.ok || outcome.dispatch !== 'rejected' || outcome.cause === 'rate-limited') return undefined;
  if (outcome.status === 413) return 'too-large';
  const message = outcome.rpcMessage ?? '';
  const sizeWords = /too (large|many|big|long)|exceed|limit|max(imum)? (batch )?size/i.test(message);
  if (outcome.rpcCode === -32600 || outcome.rpcCode === -32601) return sizeWords ? 'too-large' : 'unsupported';
  if (/batch/i.test(message)) return sizeWords ? 'too-large' : 'unsupported';
  return undefined;
}

/** Default largest number of items in one request to an endpoint (ethers' `batchMaxCount` is 100). */
export const DEFAULT_MAX_BATCH_SIZE = 100;
