/**
 * The pool events the `logger` option turns into lines: the keys of `LOG_RULES`, named here
 * apart so the logger can listen from construction while the browser build still loads the
 * rules (`log-rules-loader.browser.ts`). `test/logging/log-rules.test.ts` holds the two equal.
 */
import type { PoolEventName } from '../api/events.js';

export const LOGGED_EVENTS = [
  'rate-learned',
  'concurrency-learned',
  'credit-budget',
  'cooldown',
  'reputation',
  'breaker',
  'chain',
  'head',
  'reconcile',
  'reshape',
] as const satisfies readonly PoolEventName[];
