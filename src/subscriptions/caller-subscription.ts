/**
 * One caller of a shared stream (see shared-subscriptions.ts): its own buffer and overflow
 * policy, its own signal, its own close. What it reads is the stream's items, each
 * notification its own copy.
 */
import { SubscriptionIterator } from './subscription-iterator.js';
import { callerBuffer, type CallerBufferOptions } from './caller-buffer.js';
import type { ItemBuffer } from './item-buffer.js';
import type { Subscription, SubscriptionEvent, SubscriptionItem } from './types.js';

/** The stream a caller reads, as the caller sees it. */
export interface CallerSource {
  /** The id of the stream's first node subscription: what its events carry. */
  readonly id: number;
  readonly method: string;
  readonly endpointId: string;
  now(): number;
  emit(event: SubscriptionEvent): void;
  /** The caller is gone; the last one closes the stream. */
  leave(caller: CallerSubscription): Promise<void>;
}

export class CallerSubscription extends SubscriptionIterator implements Subscription {
  readonly buffer: ItemBuffer<SubscriptionItem>;
  readonly #source: CallerSource;
  #closed = false;
  /** Undoes what closing it must undo (its signal's listener). */
  onClose: (() => void) | undefined;

  constructor(source: CallerSource, options: CallerBufferOptions) {
    super();
    this.#source = source;
    this.buffer = callerBuffer(this, source, options);
  }

  get id(): number {
    return this.#source.id;
  }

  get method(): string {
    return this.#source.method;
  }

  get endpointId(): string {
    return this.#source.endpointId;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The stream ended (it completed, failed or the pool closed): buffered items are still read when `drain`. */
  finish(drain: boolean, error?: Error): void {
    this.#markClosed();
    if (error !== undefined) this.buffer.fail(error);
    else this.buffer.end(drain);
  }

  next(): Promise<IteratorResult<SubscriptionItem, undefined>> {
    return this.buffer.next();
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#markClosed();
    this.buffer.end();
    return this.#source.leave(this);
  }

  #markClosed(): void {
    this.#closed = true;
    this.onClose?.();
    this.onClose = undefined;
  }
}
