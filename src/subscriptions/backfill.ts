/**
 * Backfill after a rebind: what a stream missed while its socket was down, read over HTTP
 * through the pool (its admission, retries and deadline) and delivered before live
 * notifications resume. One strategy per stream where the fill is exact; other streams
 * have none (and pay nothing). The caller's side of it (holding live notifications while a
 * fill runs) is `backfill-driver.ts`.
 */
import { headsBackfill } from './backfill-heads.js';
import { logsBackfill } from './backfill-logs.js';
import { accountResync, programResync, slotGaps } from './backfill-solana.js';
import type { Backfill, BackfillRequest, BackfillSetup } from './backfill-types.js';
import { resolveBackfill, type ResolvedBackfill } from './settings.js';
import type { BackfillOption } from './types.js';

export type { BackfillRequest } from './backfill-types.js';

/**
 * The backfill of a subscription: its `backfill` option over the pool's (`base`). Undefined
 * when off or when the stream has none — then nothing of it is in the notification path.
 */
export function backfillSetupOf(method: string, params: readonly unknown[], option: BackfillOption | undefined, base: ResolvedBackfill | undefined, request: BackfillRequest): BackfillSetup | undefined {
  const bounds = resolveBackfill(option, base);
  const strategy = bounds === undefined ? undefined : backfillOf(method, params, bounds, request);
  return strategy === undefined || bounds === undefined ? undefined : { strategy, bounds, request };
}

/** The backfill of `method` called with `params`; undefined for streams with none. */
export function backfillOf(method: string, params: readonly unknown[], bounds: ResolvedBackfill, request: BackfillRequest): Backfill | undefined {
  switch (method) {
    case 'eth_subscribe':
      return params[0] === 'newHeads' ? headsBackfill(bounds) : params[0] === 'logs' ? logsBackfill(params[1], bounds) : undefined;
    case 'accountSubscribe':
      return accountResync(params);
    case 'programSubscribe':
      return programResync(params);
    case 'slotSubscribe':
    case 'rootSubscribe':
      return slotGaps(request);
    default:
      return undefined;
  }
}
