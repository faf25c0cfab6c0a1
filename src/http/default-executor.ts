import type { HttpExecutor } from './executor.js';
import { createUndiciExecutor } from './undici-executor.js';

/**
 * The executor a pool uses when `executor` is not given. In Node: the undici executor (exact
 * dispatch tracking, stale-socket avoidance, per-origin connection pools).
 *
 * The browser/edge build (`browser`, `worker`, `edge-light` export conditions) swaps this
 * module for `default-executor.browser.ts`, so no undici and no `node:` module is in its graph.
 */
export function createDefaultExecutor(): HttpExecutor {
  return createUndiciExecutor();
}
