/**
 * What every session of one pool shares (made once, on the first `pool.session()`): the
 * clock, call budgets, `retryEmpty` resolved, and how a wait for the floor asks the endpoints
 * behind it for their heads (the heads the pool knows may just be old: only probes of
 * endpoints out of rotation and head-bearing answers refresh them).
 */
import type { RequestOptions } from '../api/request-options.js';
import type { Clock } from '../clock.js';
import type { HttpTransportPoolOptions } from '../config/types.js';
import { retryEmptyMethods } from './empty-answers.js';
import { SLOT_WAIT_MS, type SessionHost } from './session.js';

/** About one block where the chain does not say: an L2's pace (Ethereum mainnet's is 12 s; set `retryEmpty.blockTimeMs`). */
export const DEFAULT_BLOCK_TIME_MS = 1_000;

/** What the sessions' host is made from: the pool's clock, call budgets, and its heads. */
export interface SessionPoolParts {
  readonly clock: Clock;
  timeoutMsOf(method: string, options: RequestOptions): number;
  /** Endpoints that serve `method` and are not known at or past `minHead`; whether any endpoint is. */
  behind(method: string, minHead: bigint): { readonly endpointIds: readonly string[]; readonly reached: boolean };
  request(method: string, params: readonly unknown[], options: RequestOptions): Promise<unknown>;
}

export function sessionHostOf(parts: SessionPoolParts, options: HttpTransportPoolOptions): SessionHost {
  const { retryEmpty } = options;
  const settings = typeof retryEmpty === 'object' ? retryEmpty : undefined;
  const headMethod = options.chain === 'solana' ? 'getSlot' : 'eth_blockNumber';
  return {
    clock: parts.clock,
    timeoutMsOf: (method, callOptions) => parts.timeoutMsOf(method, callOptions),
    retryEmpty: retryEmptyMethods(typeof retryEmpty === 'boolean' ? retryEmpty : settings?.methods),
    blockTimeMs: settings?.blockTimeMs ?? (options.chain === 'solana' ? SLOT_WAIT_MS : DEFAULT_BLOCK_TIME_MS),
    async askHeads(method, minHead, timeoutMs, signal) {
      const { endpointIds } = parts.behind(method, minHead);
      // Each endpoint behind, asked its head directly (a pinned call: its answer is that endpoint's head).
      await Promise.all(endpointIds.map((endpoint) => parts.request(headMethod, [], { endpoint, timeoutMs, signal }).catch(() => undefined)));
      return parts.behind(method, minHead).reached;
    },
  };
}
