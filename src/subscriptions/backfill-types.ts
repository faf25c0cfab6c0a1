/** The shapes a backfill strategy, its driver and the manager share (`backfill.ts` picks the strategy). */
import type { ResolvedBackfill } from './settings.js';
import type { GapItem, GapReason } from './types.js';

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
  /** Ordered streams: the fill could not even tell the range (the head unread); the next gap the stream finds carries this reason. */
  readonly unfilled?: GapReason;
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
