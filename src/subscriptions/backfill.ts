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
import { resolveBackfill, type ResolvedBackfill } from './settings.js';
import type { BackfillOption, GapItem, GapReason } from './types.js';

/** A pool call as a fill makes it (the pool's own `request`). */
export type BackfillRequest = (method: string, params: readonly unknown[], options: { readonly timeoutMs?: number; readonly signal?: AbortSignal }) => Promise<unknown>;

/** What one fill works with: its bounds and calls bounded by what is left of `maxMs`. */
export interface BackfillContext {
  readonly bounds: ResolvedBackfill;
  request(method: string, params: readonly unknown[]): Promise<unknown>;
  /** Whether `maxMs` has passed. */
  expired(): boolean;
}

/** One thing a fill delivers, in order. */
export type BackfillStep =
  | { readonly kind: 'notification'; readonly value: unknown; readonly reorged?: true }
  | { readonly kind: 'gap'; readonly from: bigint; readonly to: bigint; readonly reason: GapReason }
  | { readonly kind: 'resync'; readonly values: readonly unknown[] };

export interface BackfillFill {
  readonly steps: readonly BackfillStep[];
  /** Ordered streams: the number (and block hash) the filled notifications follow, so they are delivered in order even below what was delivered (a reorg). */
  readonly resumeAfter?: { readonly n: bigint; readonly key: string };
}

/** The strategy of one stream. */
export interface Backfill {
  /** A notification was delivered: remembers what a later fill starts from. */
  readonly observe?: (value: unknown) => void;
  /** Live for the first time (`logs` reads the head it covers from). */
  readonly started?: (context: BackfillContext) => void;
  /** After a rebind: what was missed. `held` are the live notifications that came meanwhile, not yet delivered. */
  readonly fill?: (held: readonly unknown[], context: BackfillContext) => Promise<BackfillFill>;
  /** Fields a `gap` item of this stream carries. */
  readonly gapFields?: (from: bigint, to: bigint) => Pick<GapItem, 'blocks'>;
}

/** A stream's strategy and what it runs with. */
export interface BackfillSetup {
  readonly strategy: Backfill;
  readonly bounds: ResolvedBackfill;
  readonly request: BackfillRequest;
}

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
