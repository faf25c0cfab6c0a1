/** What every session of one pool shares (made once, on the first `pool.session()`): the clock, call budgets, and `retryEmpty` resolved. */
import type { RequestOptions } from '../api/request-options.js';
import type { Clock } from '../clock.js';
import type { HttpTransportPoolOptions } from '../config/types.js';
import { retryEmptyMethods } from './empty-answers.js';
import { SLOT_WAIT_MS, type SessionHost } from './session.js';

/** About one block where the chain does not say: an L2's pace (Ethereum mainnet's is 12 s; set `retryEmpty.blockTimeMs`). */
export const DEFAULT_BLOCK_TIME_MS = 1_000;

export function sessionHostOf(parts: { readonly clock: Clock; timeoutMsOf(method: string, options: RequestOptions): number }, options: HttpTransportPoolOptions): SessionHost {
  const { retryEmpty } = options;
  const settings = typeof retryEmpty === 'object' ? retryEmpty : undefined;
  return {
    clock: parts.clock,
    timeoutMsOf: (method, callOptions) => parts.timeoutMsOf(method, callOptions),
    retryEmpty: retryEmptyMethods(typeof retryEmpty === 'boolean' ? retryEmpty : settings?.methods),
    blockTimeMs: settings?.blockTimeMs ?? (options.chain === 'solana' ? SLOT_WAIT_MS : DEFAULT_BLOCK_TIME_MS),
  };
}
