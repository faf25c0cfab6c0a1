import type { HttpExecutor } from './executor.js';
import { createFetchExecutor } from './fetch-executor.js';

/**
 * The default executor of the browser/edge build: the fetch executor (see
 * `default-executor.ts` for Node). The build script selects this file in place of its Node
 * twin for every `*.browser.ts` that sits next to one.
 */
export function createDefaultExecutor(): HttpExecutor {
  return createFetchExecutor();
}
