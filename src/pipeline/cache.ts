/**
 * The read cache stage (docs/reads.md "Read cache"): a read the cache has answers at once with a
 * fresh copy (parsed from the kept text, so the caller may mutate it); a miss goes on down
 * the path and its answer is offered to the cache. Sends, unknown methods, pinned calls and
 * reads whose class is off pass straight through. Absent with `cache: false`.
 */
import type { RequestOptions } from '../api/request-options.js';
import { requestRuleOf, type RequestRule } from '../cache/read-rules.js';
import type { CallContext } from './call-context.js';
import type { CallHandler, Stage } from './stage.js';

/** What the stage needs of the cache's state (`parts/read-cache.ts`). */
export interface CacheStore {
  /** Whether a read of this rule can be kept (else it passes straight through). */
  wants(rule: RequestRule, method: string): boolean;
  /** The kept answer's JSON text, if live (a miss is counted under the method). */
  lookup(key: string, method: string, rule: RequestRule): string | undefined;
  /**
   * A miss's answer, with the endpoint that gave it (undefined when the call shared another's
   * request); `agreed`: operators agreed on it (a consensus read), so it needs no further check.
   * Returns the text when it was kept as finalized (a promise while it is verified).
   */
  onAnswer(key: string, method: string, params: readonly unknown[], rule: RequestRule, result: unknown, answeredBy: string | undefined, agreed?: boolean): string | undefined | Promise<string | undefined>;
  /** Whether every finalized answer kept was checked by a second operator (`verify: 'two-operators'`). */
  readonly verified: boolean;
}

/** What a miss does: by default, asks the rest of the path and offers the answer (`askBelow`); a fleet first asks its shared cache. */
export type CacheMiss = (next: CallHandler, call: CallContext, options: RequestOptions, key: string, rule: RequestRule) => Promise<unknown>;

/** The plain miss: the rest of the path answers, and the answer is offered to the cache (`agreed`: a consensus answer). */
export function askBelow(cache: CacheStore, agreed = false): CacheMiss {
  return (next, call, options, key, rule) =>
    next(call, options).then((result) => {
      cache.onAnswer(key, call.method, call.params, rule, result, call.answeredBy, agreed);
      return result;
    });
}

/**
 * `agreed`: the stage in front of consensus reads. Their answers are kept without a further
 * check; they are served from the cache only when it keeps verified answers alone (one
 * endpoint's word is not what a consensus read asked for).
 */
export function cacheStage(cache: CacheStore, miss: CacheMiss = askBelow(cache), agreed = false): Stage<CallHandler> {
  const serves = !agreed || cache.verified;
  return (next) => (call, options) => {
    // A pinned call asks that endpoint (verification, finality, the caller's own reasons): never served from here.
    if (call.retryClass !== 'idempotent' || options.endpoint !== undefined) return next(call, options);
    const rule = requestRuleOf(call.method, call.params);
    if (!cache.wants(rule, call.method)) return next(call, options);
    const key = call.body.tail;
    const text = serves ? cache.lookup(key, call.method, rule) : undefined;
    if (text !== undefined) return Promise.resolve(JSON.parse(text) as unknown);
    return miss(next, call, options, key, rule);
  };
}
