/**
 * The read cache across a fleet (docs/reads.md "Read cache"): a local miss for a read that can be
 * final asks the fleet's store before a node (a by-number read while no finality is known
 * only looks: it claims nothing, as it may well be a read of the tip). The store holds the text another process kept
 * (served at once, kept here too), or a claim: the member that took it asks a node and
 * shares the answer, the others wait for it — one node request for the fleet. Waiting is
 * worth at most half the call's budget; a store that is out of reach, slow (past
 * `commandTimeoutMs`) or says the read was just not final sends the call to a node at once.
 * Concurrent local misses of one read share one look at the store (and then one request,
 * through coalescing). Made by the fleet's wiring only: a pool without `fleet` holds none of it.
 */
import { abortedError } from '../admission/admitter.js';
import type { RequestOptions } from '../api/request-options.js';
import { sleep, type Clock } from '../clock.js';
import type { FleetReads } from '../fleet/types.js';
import { failWhileWaiting } from '../pipeline/call-errors.js';
import { askBelow, type CacheMiss } from '../pipeline/cache.js';
import type { CallContext } from '../pipeline/call-context.js';
import type { ReadCache } from './read-cache.js';

export interface SharedReadCacheParts {
  readonly cache: ReadCache;
  readonly reads: FleetReads;
  readonly clock: Clock;
  /** How long a shared answer lives in the store, in ms. */
  readonly ttlMs: number;
  /** The store's name for a read: a hash of the pool's chain and the request text (no URL, header or param in clear). */
  storeKeyOf(requestKey: string): string;
  /** The call's time budget: its `timeoutMs`, or its kind's. */
  timeoutMsOf(call: CallContext, options: RequestOptions): number;
  /** The pool is closing: a wait ends (the call then fails `POOL_CLOSED` below). */
  closed(): boolean;
}

/** First pause between looks at a read another member fetches, in ms; each pause is 1.5× the last, up to the most. */
const FIRST_PAUSE_MS = 2;
const MOST_PAUSE_MS = 50;

/** What the store said, once per local lookup. */
interface Outcome {
  /** The answer another process kept. */
  readonly text?: string;
  /** This process took the claim: it asks a node and frees the claim (sharing the answer if final). */
  readonly claimed: boolean;
  /** After waiting for another member in vain: what is left of the budget (one value for every local caller, so they still coalesce). */
  readonly timeoutMs?: number;
}

interface Lookup {
  readonly outcome: Promise<Outcome>;
  /** Local callers not yet answered: the claim is freed when the last one ends without a final answer. */
  users: number;
  published: boolean;
}

const TO_A_NODE: Outcome = { claimed: false };
const CLAIMED: Outcome = { claimed: true };

export function sharedReadCacheMiss(parts: SharedReadCacheParts): CacheMiss {
  const { cache, reads, clock } = parts;
  const plain = askBelow(cache);
  const lookups = new Map<string, Lookup>();

  const look = async (storeKey: string, budgetMs: number, claim: boolean): Promise<Outcome> => {
    const startedAtMs = clock.now();
    const waitUntilMs = startedAtMs + budgetMs / 2;
    let pauseMs = FIRST_PAUSE_MS;
    for (let looks = 0; ; looks++) {
      const stored = await reads.readOrClaim(storeKey, claim ? budgetMs : 0);
      if (stored === undefined) return TO_A_NODE;
      if ('text' in stored) return { text: stored.text, claimed: false };
      if (stored.state === 'claimed') return looks === 0 ? CLAIMED : { claimed: true, timeoutMs: startedAtMs + budgetMs - clock.now() };
      if (stored.state === 'pass' || clock.now() + pauseMs > waitUntilMs || parts.closed()) return looks === 0 ? TO_A_NODE : { claimed: false, timeoutMs: startedAtMs + budgetMs - clock.now() };
      await sleep(clock, pauseMs);
      pauseMs = Math.min(MOST_PAUSE_MS, pauseMs * 1.5);
    }
  };

  /** One caller done: the last one frees a claim no final answer was shared under. */
  const leave = (storeKey: string, lookup: Lookup, outcome: Outcome) => {
    if (--lookup.users > 0) return;
    if (lookups.get(storeKey) === lookup) lookups.delete(storeKey);
    if (outcome.claimed && !lookup.published) reads.release(storeKey);
  };

  const publish = (storeKey: string, lookup: Lookup, kept: string | undefined) => {
    if (kept === undefined || lookup.published) return;
    lookup.published = true;
    reads.publish(storeKey, kept, parts.ttlMs);
  };

  return (next, call, options, key, rule) => {
    const mode = cache.shareOf(rule);
    if (mode === undefined) return plain(next, call, options, key, rule);
    const storeKey = parts.storeKeyOf(key);
    // The caller's errors and deadline count from now, the wait included.
    call.startedAtMs ??= clock.now();
    let lookup = lookups.get(storeKey);
    if (lookup === undefined) {
      lookup = { outcome: look(storeKey, parts.timeoutMsOf(call, options), mode === 'claim').catch(() => TO_A_NODE), users: 0, published: false };
      lookups.set(storeKey, lookup);
    }
    const current = lookup;
    current.users++;
    return untilAborted(current.outcome, call, options.signal).then(
      (outcome) => {
        if (outcome.text !== undefined) {
          const adopted = cache.adopt(key, call.method, outcome.text);
          if (adopted !== undefined) {
            leave(storeKey, current, outcome);
            return adopted.value;
          }
        }
        const below = outcome.timeoutMs === undefined ? options : { ...options, timeoutMs: Math.max(1, outcome.timeoutMs) };
        return next(call, below).then(
          (result) => {
            const kept = cache.onAnswer(key, call.method, call.params, rule, result, call.answeredBy);
            if (typeof kept === 'object') {
              void kept.then((text) => publish(storeKey, current, text)).finally(() => leave(storeKey, current, outcome));
            } else {
              publish(storeKey, current, kept);
              leave(storeKey, current, outcome);
            }
            return result;
          },
          (error: unknown) => {
            leave(storeKey, current, outcome);
            throw error;
          },
        );
      },
      (error: unknown) => {
        void current.outcome.then((outcome) => leave(storeKey, current, outcome));
        throw error;
      },
    );
  };
}

/** The shared look at the store, left at once by a caller whose signal aborts. */
function untilAborted<T>(promise: Promise<T>, call: CallContext, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(failWhileWaiting(abortedError(signal), call, undefined));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(failWhileWaiting(abortedError(signal), call, undefined));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}
