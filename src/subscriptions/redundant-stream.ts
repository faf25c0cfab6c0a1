/**
 * `redundancy: 2`: one stream held by two node subscriptions ("legs") on two endpoints — of
 * two operators when the pool has them — merged into one: each notification is delivered
 * once, from whichever leg brings it first, deduplicated by the stream's identity (block
 * number and hash, slot, log's block hash and index, account slot; the whole value for
 * streams without one). When a leg's node fails, the other leg is already there: nothing is
 * missed, so the merge reports a `gap` only for numbers both legs missed, and a leg's
 * `rebind` only when the other leg was not live through that leg's outage (the caller may
 * have missed changes then). The failed leg rebinds as any subscription does, never onto the
 * other leg's endpoint.
 *
 * The stream opens when its first leg is live; the second follows in the background, and is
 * tried again after each subscribe timeout until it is placed or the stream closes.
 */
import type { TimerQueue } from '../clock.js';
import type { ItemSink } from './item-buffer.js';
import type { ResolvedSubscriptionSettings } from './settings.js';
import { StreamTracker } from './stream-order.js';
import { streamProfileOf, type StreamOrder } from './stream-profile.js';
import type { ManagedSubscription, SubscriptionLink } from './subscription.js';
import type { SubscribeOptions, SubscriptionEvent, SubscriptionItem } from './types.js';
import { TransportError } from '../errors/transport-error.js';
import { stringifyJson } from '../jsonrpc/exact-json.js';

/** What the streams above single node subscriptions need from the manager. */
export interface StreamOpener {
  readonly settings: ResolvedSubscriptionSettings;
  /** The manager's timers (a caller's own deadline while it waits for a shared placement). */
  readonly timers: TimerQueue;
  /** Opens one node subscription whose items go to `link` (placement, its timeout and errors as for any subscription). */
  open(method: string, params: readonly unknown[], options: SubscribeOptions, link: SubscriptionLink): Promise<ManagedSubscription>;
  now(): number;
  emit(event: SubscriptionEvent): void;
}

/** Streams that carry no identity are deduplicated by their whole value. */
const BY_VALUE: StreamOrder = { type: 'identity', read: (value) => stringifyJson(value) };

/** Where the merged items go: the callers of the stream (shared-subscriptions.ts). */
type Downstream = ItemSink<SubscriptionItem> & { callers(): number };

const isTimeout = (error: unknown) => error instanceof TransportError && error.context['reason'] === 'timeout';

export class RedundantStream {
  readonly #opener: StreamOpener;
  readonly #method: string;
  readonly #params: readonly unknown[];
  readonly #options: SubscribeOptions;
  readonly #downstream: Downstream;
  readonly #legs: [ManagedSubscription | undefined, ManagedSubscription | undefined] = [undefined, undefined];
  readonly #merged: StreamTracker;
  /** Stops the second leg's placement when the stream closes first. */
  readonly #closing = new AbortController();
  #endpointId = '';
  #closed = false;

  private constructor(opener: StreamOpener, method: string, params: readonly unknown[], options: SubscribeOptions, downstream: Downstream) {
    this.#opener = opener;
    this.#method = method;
    this.#params = params;
    this.#options = options;
    this.#downstream = downstream;
    const order = streamProfileOf(method, params).order;
    this.#merged = new StreamTracker(order.type === 'none' ? BY_VALUE : order);
  }

  /** Resolves once the first leg is live (rejects as a subscribe call would). */
  static async open(opener: StreamOpener, method: string, params: readonly unknown[], options: SubscribeOptions, downstream: Downstream): Promise<RedundantStream> {
    const stream = new RedundantStream(opener, method, params, options, downstream);
    const first = await opener.open(method, params, options, stream.#link(0));
    stream.#legs[0] = first;
    stream.#endpointId = first.endpointId;
    void stream.#openSecond();
    return stream;
  }

  /** The id of its first leg: what the callers' events carry. */
  get id(): number {
    return this.#legs[0]?.id ?? this.#legs[1]?.id ?? 0;
  }

  /** The endpoint that brought the last notification. */
  get endpointId(): string {
    return this.#endpointId;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort();
    await Promise.all(this.#legs.map((leg) => leg?.close()));
  }

  async #openSecond(): Promise<void> {
    // The caller's signal only ever stops the first placement (see shared-subscriptions.ts): closing stops this one.
    const options = { ...this.#options, signal: this.#closing.signal };
    while (!this.#closed) {
      try {
        this.#legs[1] = await this.#opener.open(this.#method, this.#params, options, this.#link(1));
        return;
      } catch (error) {
        // A refusal, the pool closing: the stream goes on with one leg.
        if (!isTimeout(error)) return;
      }
    }
  }

  #link(index: 0 | 1): SubscriptionLink {
    return {
      sink: {
        push: (item, bytes = 0) => this.#accept(index, item, bytes),
        end: (drain = false) => this.#legEnded(index, drain, undefined),
        fail: (error) => this.#legEnded(index, false, error),
      },
      callers: () => this.#downstream.callers(),
      redundant: true,
      // Where the other leg is live, or is being placed now (selection and attaching happen in one turn: two legs never pick one endpoint together).
      partnerEndpoint: () => {
        const other = this.#legs[1 - index];
        return other !== undefined && other.connection !== undefined ? other.endpointId : undefined;
      },
    };
  }

  #accept(index: 0 | 1, item: SubscriptionItem, bytes: number): boolean {
    switch (item.kind) {
      case 'notification': {
        const decision = this.#merged.decide(item.value);
        if (!decision.deliver) return true;
        this.#endpointId = item.endpointId;
        if (decision.gap !== undefined) this.#downstream.push({ kind: 'gap', ...decision.gap, atMs: item.atMs, endpointId: item.endpointId });
        return this.#downstream.push(item, bytes);
      }
      case 'gap':
        // The merge finds its own gaps: what one leg missed the other may have brought.
        return true;
      case 'rebind':
        return this.#covered(index) || this.#downstream.push(item);
      case 'resync':
        // The state read after a rebind: news only when the other leg did not cover the outage.
        return this.#covered(index) || this.#downstream.push(item, bytes);
      case 'overflow':
        return this.#downstream.push(item);
    }
  }

  /** Whether the other leg was live through the whole outage of leg `index`. */
  #covered(index: 0 | 1): boolean {
    const leg = this.#legs[index];
    const other = this.#legs[1 - index];
    return leg !== undefined && other?.state === 'live' && other.liveSinceMs <= leg.lostAtMs;
  }

  /** A leg ended: a `once` stream completed (`drain`), or it failed or was closed. The stream goes on while the other leg is there. */
  #legEnded(index: 0 | 1, drain: boolean, error: Error | undefined): void {
    this.#legs[index] = undefined;
    const other = this.#legs[1 - index];
    if (drain) {
      this.#closed = true;
      this.#closing.abort();
      void other?.close();
      this.#downstream.end(true);
      return;
    }
    if (!this.#closed && other !== undefined && other.state !== 'closed') return;
    this.#closed = true;
    this.#closing.abort();
    if (error !== undefined) this.#downstream.fail(error);
    else this.#downstream.end();
  }
}
