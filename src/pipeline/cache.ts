/**
 * The read cache stage (docs/reads.md "Read cache"): a read the cache has answers at once with a
 * fresh copy (parsed from the kept text, so the caller may mutate it); a miss goes on down
 * the path and its answer is offered to the cache. Sends, unknown methods, pinned calls and
 * reads whose class is off pass straight through. Absent with `cache: false`.
 */
import { requestRuleOf, type RequestRule } from '../cache/read-rules.js';
import type { CallHandler, Stage } from './stage.js';

/** What the stage needs of the cache's state (`parts/read-cache.ts`). */
export interface CacheStore {
  /** Whether a read of this rule can be kept (else it passes straight through). */
  wants(rule: RequestRule, method: string): boolean;
  /** The kept answer's JSON text, if live. */
  lookup(key: string): string | undefined;
  /** A miss's answer, with the endpoint that gave it (undefined when the call shared another's request). */
  onAnswer(key: string, method: string, params: readonly unknown[], rule: RequestRule, result: unknown, answeredBy: string | undefined): void;
}

export function cacheStage(cache: CacheStore): Stage<CallHandler> {
  return (next) => (call, options) => {
    // A pinned call asks that endpoint (verification, finality, the caller's own reasons): never served from here.
    if (call.retryClass !== 'idempotent' || options.endpoint !== undefined) return next(call, options);
    const rule = requestRuleOf(call.method, call.params);
    if (!cache.wants(rule, call.method)) return next(call, options);
    const key = call.body.tail;
    const text = cache.lookup(key);
    if (text !== undefined) return Promise.resolve(JSON.parse(text) as unknown);
    return next(call, options).then((result) => {
      cache.onAnswer(key, call.method, call.params, rule, result, call.answeredBy);
      return result;
    });
  };
}
