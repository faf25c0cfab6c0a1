/**
 * The caller's side of one subscription: the async iterable, its bounded buffer, dedup and
 * gap tracking across every socket it lives on, and the watchdog's view of its stream.
 */
import { SubscriptionIterator } from './subscription-iterator.js';
import type { TransportError } from '../errors/transport-error.js';
import type { BackfillSetup, BackfillStep } from './backfill-types.js';
import { BackfillDriver, type BackfillTarget } from './backfill-driver.js';
import { callerBuffer } from './caller-buffer.js';
import type { Connection, ConnectionMember } from './connection.js';
import type { ItemBuffer, ItemSink } from './item-buffer.js';
import { allowedSilenceMs, IntervalLearner, type SilenceSettings } from './silence.js';
import { StreamTracker } from './stream-order.js';
import type { StreamProfile } from './stream-profile.js';
import type { GapItem, GapReason, OverflowPolicy, RebindReason, Subscription, SubscriptionEvent, SubscriptionItem } from './types.js';

const BACKFILLED = { backfilled: true } as const;
const REORGED = { backfilled: true, reorged: true } as const;

/** What a subscription needs from its manager. */
export interface SubscriptionOwner {
  now(): number;
  emit(event: SubscriptionEvent): void;
  /** Closes it: unsubscribes on the node (bounded wait), frees its socket. */
  close(subscription: ManagedSubscription): Promise<void>;
  /** A `once` stream delivered its notification: release it without an unsubscribe call. */
  complete(subscription: ManagedSubscription): void;
  /** The `error` overflow policy ended it. */
  overflowed(subscription: ManagedSubscription): void;
}

export interface ManagedSubscriptionOptions {
  readonly id: number;
  readonly method: string;
  readonly params: readonly unknown[];
  readonly profile: StreamProfile;
  readonly bufferSize: number;
  readonly bufferBytes: number;
  readonly overflow: OverflowPolicy;
  readonly expectedIntervalMs: number | undefined;
  readonly silence: SilenceSettings;
  /** Set when it is not a caller's own: its items go to `link.sink` (see {@link SubscriptionLink}). */
  readonly link?: SubscriptionLink | undefined;
  /** Backfill after a rebind; undefined: none (the stream has no strategy, or `backfill: false`). */
  readonly backfill?: BackfillSetup | undefined;
}

/**
 * A node subscription whose items go elsewhere than a buffer of its own: to the callers
 * sharing it (shared-subscriptions.ts), or into the merge of a redundant pair
 * (redundant-stream.ts).
 */
export interface SubscriptionLink {
  readonly sink: ItemSink<SubscriptionItem>;
  /** Callers its items reach now. */
  callers(): number;
  /** True for one leg of a redundant pair. */
  readonly redundant: boolean;
  /** The endpoint its other leg is on (live, or being placed): placement keeps it off that endpoint and, when it can, that operator. */
  partnerEndpoint(): string | undefined;
}

export type PlacementState = 'placing' | 'live' | 'closed';

export class ManagedSubscription extends SubscriptionIterator implements Subscription, ConnectionMember, BackfillTarget {
  readonly id: number;
  readonly method: string;
  readonly params: readonly unknown[];
  readonly profile: StreamProfile;
  state: PlacementState = 'placing';
  endpointId = '';
  /** The socket it is assigned to, while placing or live. */
  connection: Connection | undefined;
  /** The node's subscription id (as the node sent it) while live. */
  serverId: unknown;
  /** True once a node confirmed it the first time. */
  everLive = false;
  /** The endpoint that failed it last: the next placement prefers another. */
  lastFailedEndpoint: string | undefined;
  /** Short, secret-free description of what the last placement attempt met. */
  lastFailure: string | undefined;
  /** The node's refusal of the first subscribe call (bad params, unknown method): no other node is tried. */
  refusal: TransportError<'SUBSCRIPTION_FAILED'> | undefined;
  /** Set when no endpoint can ever take it (every one with a WebSocket URL is on another chain). */
  noEndpoint = false;
  /** Placement attempts refused by nodes in a row (rpc errors on resubscribe). */
  refusals = 0;
  lastTickMs = 0;
  /** When it was last bound to a node, and when it last lost one (a redundant pair asks whether the other leg covered the outage). */
  liveSinceMs = 0;
  lostAtMs = 0;
  /** Wakes a placement loop sleeping on a backoff (set while it sleeps). */
  wake: (() => void) | undefined;
  /** Called once when it closes: placement waits on a socket stop waiting then. */
  readonly #closeWaiters = new Set<() => void>();
  readonly #owner: SubscriptionOwner;
  readonly link: SubscriptionLink | undefined;
  /** Its own caller's buffer; undefined when its items go to a link. */
  readonly #own: ItemBuffer<SubscriptionItem> | undefined;
  readonly #buffer: ItemSink<SubscriptionItem>;
  readonly #tracker: StreamTracker;
  readonly #learner: IntervalLearner | undefined;
  readonly #expectedIntervalMs: number | undefined;
  readonly #silence: SilenceSettings;
  readonly #backfill: BackfillDriver | undefined;
  /** The parts of it a notification meets (absent when the stream's strategy has none: no per-notification check of it). */
  readonly #holds: BackfillDriver | undefined;
  readonly #observe: ((value: unknown) => void) | undefined;
  /** Why the last fill left numbers unread, until the gap they make is delivered. */
  #unfilled: GapReason | undefined;
  #allowedMs: number | undefined;

  constructor(owner: SubscriptionOwner, options: ManagedSubscriptionOptions) {
    super();
    this.#owner = owner;
    this.id = options.id;
    this.method = options.method;
    this.params = options.params;
    this.profile = options.profile;
    this.#tracker = new StreamTracker(options.profile.order);
    this.#silence = options.silence;
    this.#expectedIntervalMs = options.expectedIntervalMs ?? options.profile.expectedIntervalMs;
    const ticks = options.profile.ticks || options.expectedIntervalMs !== undefined;
    this.#learner = ticks && this.#expectedIntervalMs === undefined ? new IntervalLearner() : undefined;
    this.#allowedMs = ticks ? allowedSilenceMs(this.#expectedIntervalMs, this.#silence) : undefined;
    this.link = options.link;
    if (options.link === undefined) this.#buffer = this.#own = callerBuffer(this, owner, options);
    else this.#buffer = options.link.sink;
    this.#backfill = options.backfill && new BackfillDriver({ ...options.backfill, holdLimit: options.bufferSize }, this);
    this.#holds = options.backfill?.strategy.fill === undefined ? undefined : this.#backfill;
    this.#observe = options.backfill?.strategy.observe;
  }

  now(): number {
    return this.#owner.now();
  }

  get closed(): boolean {
    return this.state === 'closed';
  }

  get allowedSilenceMs(): number | undefined {
    return this.#allowedMs;
  }

  /** Marks it closed for good (the manager's bookkeeping is done) and releases every wait on it. */
  markClosed(): void {
    this.state = 'closed';
    this.#backfill?.close();
    this.wake?.();
    for (const waiter of [...this.#closeWaiters]) waiter();
    this.#closeWaiters.clear();
  }

  /** Runs `callback` when it closes (not if already closed); returns the removal. */
  onClosed(callback: () => void): () => void {
    this.#closeWaiters.add(callback);
    return () => this.#closeWaiters.delete(callback);
  }

  /** A notification from the socket it is live on, that came in a frame of `frameBytes`. */
  notify(result: unknown, nowMs: number, frameBytes = 0): void {
    if (this.state !== 'live') return;
    if (this.#holds?.holding) {
      // Held unread while a fill runs: it still shows the socket is alive.
      this.#tick(nowMs);
      this.#holds.hold(result, nowMs, frameBytes);
    } else this.#deliver(result, nowMs, frameBytes, undefined, true);
  }

  deliverLive(result: unknown, nowMs: number, frameBytes: number): void {
    this.#deliver(result, nowMs, frameBytes, undefined, false);
  }

  deliverStep(step: BackfillStep, atMs: number): boolean {
    const endpointId = this.endpointId;
    switch (step.kind) {
      case 'notification':
        return this.#deliver(step.value, atMs, 0, step.reorged ? REORGED : BACKFILLED, false);
      case 'gap':
        return this.#pushGap(step.from, step.to, atMs, step.reason);
      case 'resync':
        // The per-account slots move to the state read: older live notifications are dropped.
        for (const value of step.values) this.#tracker.decide(value);
        return this.#push({ kind: 'resync', values: step.values, atMs, endpointId });
    }
  }

  resumeAfter(n: bigint, key: string): void {
    this.#tracker.resumeAfter(n, key);
  }

  unfilled(reason: GapReason): void {
    this.#unfilled = reason;
  }

  /** Live for the first time (the manager's bind). */
  started(): void {
    this.#backfill?.started();
  }

  /** Live again after a rebind (from `fromEndpointId`): a `rebind` item, then the backfill. */
  rebound(fromEndpointId: string, reason: RebindReason, nowMs: number): void {
    this.#push({ kind: 'rebind', fromEndpointId, reason, atMs: nowMs, endpointId: this.endpointId });
    this.#backfill?.rebound();
  }

  /** Delivers `result` through the stream's order and dedup; false when the subscription ended. */
  #deliver(result: unknown, nowMs: number, frameBytes: number, flags: typeof BACKFILLED | undefined, tick: boolean): boolean {
    const decision = this.#tracker.decide(result);
    if (!decision.deliver) return true;
    if (tick) this.#tick(nowMs);
    // A fill's reason holds for the gap right after it only.
    const reason = this.#unfilled;
    if (reason !== undefined) this.#unfilled = undefined;
    if (decision.gap !== undefined && !this.#pushGap(decision.gap.from, decision.gap.to, nowMs, reason)) return false;
    const endpointId = this.endpointId;
    // The live item stays a plain literal (the hot path); only filled ones carry flags.
    const item: SubscriptionItem = flags === undefined ? { kind: 'notification', value: result, atMs: nowMs, endpointId } : { kind: 'notification', value: result, atMs: nowMs, endpointId, ...flags };
    if (!this.#push(item, frameBytes)) return false;
    this.#observe?.(result);
    if (this.profile.once) {
      this.#buffer.end(true);
      this.#owner.complete(this);
    }
    return true;
  }

  #pushGap(from: bigint, to: bigint, atMs: number, reason: GapReason | undefined): boolean {
    const endpointId = this.endpointId;
    this.#owner.emit({ atMs, phase: 'gap', method: this.method, subscriptionId: this.id, endpointId, from, to });
    const gap: GapItem = { kind: 'gap', from, to, atMs, endpointId, ...(reason === undefined ? {} : { reason }), ...this.#backfill?.gapFields(from, to) };
    return this.#push(gap);
  }

  /** Now live on `endpointId` (again): the watchdog counts silence from here. */
  bound(endpointId: string, nowMs: number): void {
    this.state = 'live';
    this.endpointId = endpointId;
    this.lastTickMs = nowMs;
    this.liveSinceMs = nowMs;
    this.refusals = 0;
  }

  /** Its socket died: it is being placed again. */
  lost(nowMs: number): void {
    this.state = 'placing';
    this.lostAtMs = nowMs;
  }

  /** Ends the iterator (buffered items dropped); with `error`, the next `next()` rejects with it. */
  end(error?: Error): void {
    if (error === undefined) this.#buffer.end();
    else this.#buffer.fail(error);
  }

  next(): Promise<IteratorResult<SubscriptionItem, undefined>> {
    // A linked one is never handed to a caller: its callers read their own buffers.
    return this.#own?.next() ?? Promise.resolve({ value: undefined, done: true });
  }

  close(): Promise<void> {
    return this.#owner.close(this);
  }

  #tick(nowMs: number): void {
    if (this.#allowedMs !== undefined || this.#learner !== undefined) this.#ticked(nowMs);
  }

  #ticked(nowMs: number): void {
    this.lastTickMs = nowMs;
    const learner = this.#learner;
    if (learner === undefined) return;
    learner.observe(nowMs);
    const allowed = allowedSilenceMs(learner.intervalMs, this.#silence);
    if (allowed === this.#allowedMs) return;
    const first = this.#allowedMs === undefined;
    this.#allowedMs = allowed;
    // The first learned interval arms the watchdog; later ones are read when it fires.
    if (first) this.connection?.watch(this);
  }

  #push(item: SubscriptionItem, bytes = 0): boolean {
    if (this.#buffer.push(item, bytes)) return true;
    this.#owner.overflowed(this);
    return false;
  }
}
