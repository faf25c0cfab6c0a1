/**
 * Public shapes of subscriptions: what `pool.subscribe()` yields, its options, and the
 * pool-level `subscriptions` settings.
 */
import type { SocketFactory } from './socket.js';

/** Why a subscription moved to another socket. */
export type RebindReason = 'closed' | 'error' | 'silent' | 'pong-timeout' | 'left-rotation' | 'rejected';

interface ItemBase {
  /** Monotonic time the item was produced, in ms (the pool's clock). */
  readonly atMs: number;
  /** The endpoint the subscription is on now (for `rebind`: the new one). */
  readonly endpointId: string;
}

/** A notification from the node: `value` is the notification's `result` (integers above 2^53 as exact `bigint`s). */
export interface NotificationItem<T = unknown> extends ItemBase {
  readonly kind: 'notification';
  readonly value: T;
  /** Read over HTTP after a rebind (what the node pushed while the subscription was away), not pushed by a node. */
  readonly backfilled?: true;
  /** `newHeads`: this block replaces one already delivered at its number (a reorg while the subscription was away). */
  readonly reorged?: true;
}

/** Why a backfill left numbers unfilled: its `maxBlocks` or `maxMs` bound, or the nodes could not answer. */
export type GapReason = 'max-blocks' | 'max-ms' | 'failed';

/**
 * Ordered streams (slots, roots, new heads) and, with backfill, EVM logs: the numbers
 * (blocks, slots) `from`…`to` (inclusive) were never delivered — missed while the
 * subscription moved. With backfill on, `newHeads` and `logs` fill them themselves; a
 * gap then means the fill stopped (`reason`). Solana slots are not all blocks: `blocks()`
 * lists those that have one (`getBlocks` through the pool).
 */
export interface GapItem extends ItemBase {
  readonly kind: 'gap';
  readonly from: bigint;
  readonly to: bigint;
  /** Set when a backfill did not fill them (absent: the stream is not backfilled). */
  readonly reason?: GapReason;
  /** Solana `slotSubscribe`/`rootSubscribe`: the slots in `from`…`to` that hold a block (`getBlocks`), read when called. */
  readonly blocks?: () => Promise<readonly bigint[]>;
}

/**
 * Solana `accountSubscribe` and `programSubscribe`, after a rebind: the state now, read once
 * over HTTP (at least at the last delivered slot), in the notifications' shape — one value
 * for an account, one per matching account for a program. Replace what you hold with it:
 * changes made while the socket was down are in it, accounts gone are not.
 */
export interface ResyncItem<T = unknown> extends ItemBase {
  readonly kind: 'resync';
  readonly values: readonly T[];
}

/**
 * The subscription lost its socket and is live again (on `endpointId`). The node does not
 * replay what happened between the two; with backfill (the default) the pool does, before
 * live notifications resume: missed `newHeads` and `logs` (reorgs included), a `resync` of
 * accounts and programs. Streams not backfilled follow with a `gap` if numbers were skipped.
 */
export interface RebindItem extends ItemBase {
  readonly kind: 'rebind';
  /** The endpoint the subscription was on. */
  readonly fromEndpointId: string;
  readonly reason: RebindReason;
}

/** The caller read too slowly: `dropped` of the oldest buffered items were discarded (overflow policy `drop-oldest`). */
export interface OverflowItem extends ItemBase {
  readonly kind: 'overflow';
  readonly dropped: number;
}

export type SubscriptionItem<T = unknown> = NotificationItem<T> | GapItem | RebindItem | OverflowItem | ResyncItem<T>;

/** Options of `pool.subscribe()`. */
export interface SubscribeOptions {
  /** Aborting closes the subscription (the iterator ends). */
  readonly signal?: AbortSignal | undefined;
  /** How long to wait for the first node to confirm the subscription, in ms. @default the pool's `subscriptions.subscribeTimeoutMs` (10000) */
  readonly timeoutMs?: number | undefined;
  /**
   * Expected time between two notifications of an ordered stream, in ms: silence for
   * `silenceFactor` × this (at least `minSilenceMs`) declares the socket dead. @default per
   * method — 400 for Solana `slotSubscribe`/`rootSubscribe`; for `newHeads`, learned from the
   * stream itself after three blocks
   */
  readonly expectedIntervalMs?: number | undefined;
  /** Buffered items for this subscription. @default the pool's `subscriptions.bufferSize` */
  readonly bufferSize?: number | undefined;
  /** Buffered bytes for this subscription (each notification counts its frame's size), in bytes. @default the pool's `subscriptions.bufferBytes` */
  readonly bufferBytes?: number | undefined;
  /** Overflow policy for this subscription. @default the pool's `subscriptions.overflow` */
  readonly overflow?: OverflowPolicy | undefined;
  /**
   * 2: the stream is held on two endpoints at once (of two operators when the pool has them),
   * each notification delivered once, as soon as the first of the two brings it; when one
   * node fails the other goes on, with no gap. Both count under the operator cap.
   * @default the pool's `subscriptions.redundancy` (1)
   */
  readonly redundancy?: 1 | 2 | undefined;
  /** Backfill after a rebind for this subscription (its bounds, or `false`). @default the pool's `subscriptions.backfill` */
  readonly backfill?: BackfillOption | undefined;
}

/**
 * What a subscription fills in after a rebind, over HTTP through the pool, before live
 * notifications resume: `newHeads` every missed block, `logs` the missed blocks' logs (by
 * block hash, `removed: true` for blocks a reorg undid), accounts and programs one
 * `resync`. Past `maxBlocks` blocks or `maxMs` the fill stops and a `gap` item says what it
 * left. `true`: on, with the pool's bounds (or the defaults where the pool's is off).
 * `false`: no backfill (a `gap` for skipped numbers, nothing for the rest).
 */
export type BackfillOption = boolean | BackfillBounds;

export interface BackfillBounds {
  /** Blocks read at most per rebind (missed ones, and reorged ones below them). @default 128 */
  readonly maxBlocks?: number | undefined;
  /** Time allowed for one fill, in ms (live notifications wait meanwhile). @default 10000 */
  readonly maxMs?: number | undefined;
}

/**
 * What happens when a caller reads slower than notifications arrive and the buffer is
 * full: `drop-oldest` discards the oldest items and yields one `overflow` item saying how
 * many; `error` ends the iterator with `SUBSCRIPTION_OVERFLOW`. Memory stays bounded
 * either way.
 */
export type OverflowPolicy = 'drop-oldest' | 'error';

/** The caller's side of one subscription: an async iterable of items, closed with `close()`. */
export interface Subscription<T = unknown> extends AsyncIterable<SubscriptionItem<T>>, AsyncDisposable {
  /** The subscribe method (`slotSubscribe`, `eth_subscribe`, …). */
  readonly method: string;
  /** The endpoint serving it now. */
  readonly endpointId: string;
  /** True once closed (by `close()`, the signal, `pool.close()` or an overflow error). */
  readonly closed: boolean;
  /** Unsubscribes on the node (bounded wait), frees the socket when it was its last user, ends the iterator. Idempotent. */
  close(): Promise<void>;
  /** The next item; resolves `{ done: true }` once closed. Used by `for await`. */
  next(): Promise<IteratorResult<SubscriptionItem<T>, undefined>>;
}

/** Pool option `subscriptions`. */
export interface SubscriptionSettings {
  /**
   * Derive the WebSocket URL of endpoints without `wsUrl` from their `url`: `http:` → `ws:`,
   * `https:` → `wss:`, same host, port, path and query (keys included). Off by default: many
   * providers serve WebSocket on another host or path. @default false
   */
  readonly deriveWsUrl?: boolean;
  /** Subscriptions sharing one socket before another is opened to the same endpoint (providers cap it). @default 100 */
  readonly maxSubscriptionsPerSocket?: number;
  /** Buffered items per subscription. @default 1024 */
  readonly bufferSize?: number;
  /**
   * Buffered bytes per subscription, in bytes: each notification counts the size of the frame
   * it came in; past the bound the `overflow` policy applies as for `bufferSize`.
   * @default 2 × `maxFrameBytes` (32 MiB)
   */
  readonly bufferBytes?: number;
  /**
   * Largest WebSocket frame accepted, in bytes: a node sending a larger one has its socket
   * closed before the frame is buffered (`ws`'s `maxPayload`), and its subscriptions move.
   * @default the pool's `maxResponseBytes` (16 MiB)
   */
  readonly maxFrameBytes?: number;
  /** @default 'drop-oldest' */
  readonly overflow?: OverflowPolicy;
  /** Ping frame interval, in ms (Node `ws` only; the WHATWG `WebSocket` cannot ping). 0 disables. @default 5000 */
  readonly pingIntervalMs?: number;
  /** A socket with no pong this long after a ping is dead, in ms. @default 5000 */
  readonly pongTimeoutMs?: number;
  /** An ordered stream silent for this many expected intervals declares its socket dead, even while pongs arrive. @default 5 */
  readonly silenceFactor?: number;
  /** Lower bound of that silence, in ms. @default 2000 */
  readonly minSilenceMs?: number;
  /** Time allowed to open a socket and for each subscribe/unsubscribe answer, in ms. @default 5000 */
  readonly requestTimeoutMs?: number;
  /** Default of `subscribe()`'s `timeoutMs`, in ms. @default 10000 */
  readonly subscribeTimeoutMs?: number;
  /** Lower bound of the jittered backoff before re-using an endpoint whose socket failed, in ms. @default 250 */
  readonly initialBackoffMs?: number;
  /** Upper bound of that backoff, in ms. @default 10000 */
  readonly maxBackoffMs?: number;
  /** A socket left with no subscription is closed after this long (a new subscription reuses it), in ms. @default 1000 */
  readonly idleSocketMs?: number;
  /**
   * Identical subscriptions (same method, params, `redundancy` and `expectedIntervalMs`) from
   * several callers share one node subscription; each caller has its own buffer, overflow
   * policy and copy of every notification, and closing one leaves the others (the last one
   * unsubscribes at the node). A caller joining one still being placed waits for that
   * placement, within its own `timeoutMs` and signal. @default true
   */
  readonly share?: boolean;
  /** Default of `subscribe()`'s `redundancy`. @default 1 */
  readonly redundancy?: 1 | 2;
  /** Opens sockets. @default Node: `ws` (loaded on the first subscription); elsewhere: the global `WebSocket` */
  readonly socketFactory?: SocketFactory;
  /** Backfill after a rebind (see `BackfillOption`). @default `{ maxBlocks: 128, maxMs: 10000 }` */
  readonly backfill?: BackfillOption;
}

/**
 * Event `subscription`: `opened` (first confirmed by a node), `rebound` (moved to
 * `endpointId` from `fromEndpointId` for `reason`), `gap` (`from`…`to` never delivered),
 * `overflow` (`dropped` items discarded), `closed`. Each event is about one node
 * subscription: callers sharing it see one `opened`; each leg of a redundant pair has its
 * own `rebound` and `gap` events, while its callers get a `gap` item only for what both
 * legs missed.
 */
export interface SubscriptionEvent {
  readonly atMs: number;
  readonly phase: 'opened' | 'rebound' | 'gap' | 'overflow' | 'closed';
  readonly method: string;
  /** Caller-side id of the subscription (stable across rebinds; not the node's id). */
  readonly subscriptionId: number;
  readonly endpointId: string;
  readonly fromEndpointId?: string;
  readonly reason?: RebindReason;
  readonly from?: bigint;
  readonly to?: bigint;
  readonly dropped?: number;
}
