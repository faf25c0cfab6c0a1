import type { OverflowPolicy } from './types.js';

/**
 * A bounded queue between a socket (push) and one caller (`next()`), never unbounded: at
 * most `capacity` items and `maxBytes` bytes (each item counts the size it was pushed
 * with). When an item does not fit: `drop-oldest` discards the oldest items until it does
 * and counts them — the count is handed to the caller as one `overflow` item before the
 * next items; `error` ends the queue with the error given by `onOverflow`. An item alone
 * larger than `maxBytes` is still taken into an empty queue (a frame is bounded by the
 * socket's frame limit already): a stream of big items then flows one at a time.
 */
export class ItemBuffer<T> {
  readonly #capacity: number;
  readonly #maxBytes: number;
  readonly #policy: OverflowPolicy;
  readonly #overflowItem: (dropped: number) => T;
  readonly #overflowError: () => Error;
  /** Items from `#head` on; the consumed prefix is cut off once it is the larger half. */
  #items: T[] = [];
  /** The size of each item in `#items`, same indexes. */
  #sizes: number[] = [];
  #bytes = 0;
  #head = 0;
  #dropped = 0;
  #waiter: ((result: IteratorResult<T, undefined>) => void) | undefined;
  #failWaiter: ((error: Error) => void) | undefined;
  #ended = false;
  #error: Error | undefined;

  constructor(capacity: number, maxBytes: number, policy: OverflowPolicy, overflowItem: (dropped: number) => T, overflowError: () => Error) {
    this.#capacity = capacity;
    this.#maxBytes = maxBytes;
    this.#policy = policy;
    this.#overflowItem = overflowItem;
    this.#overflowError = overflowError;
  }

  get size(): number {
    return this.#items.length - this.#head;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Bytes buffered now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Adds an item of `bytes` (ignored once ended). Returns false when the `error` policy just ended the queue. */
  push(item: T, bytes = 0): boolean {
    if (this.#ended) return true;
    const waiter = this.#waiter;
    if (waiter !== undefined && this.#dropped === 0) {
      this.#waiter = undefined;
      this.#failWaiter = undefined;
      waiter({ value: item, done: false });
      return true;
    }
    const full = () => this.size >= this.#capacity || (this.size > 0 && this.#bytes + bytes > this.#maxBytes);
    if (full()) {
      if (this.#policy === 'error') {
        this.fail(this.#overflowError());
        return false;
      }
      while (full()) this.#dropHead();
    }
    this.#items.push(item);
    this.#sizes.push(bytes);
    this.#bytes += bytes;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#sizes = this.#sizes.slice(this.#head);
      this.#head = 0;
    }
    return true;
  }

  next(): Promise<IteratorResult<T, undefined>> {
    if (this.#dropped > 0) {
      const dropped = this.#dropped;
      this.#dropped = 0;
      return Promise.resolve({ value: this.#overflowItem(dropped), done: false });
    }
    if (this.size > 0) {
      const item = this.#items[this.#head]!;
      this.#items[this.#head] = undefined as T;
      this.#bytes -= this.#sizes[this.#head]!;
      this.#head++;
      if (this.#head === this.#items.length) {
        this.#items = [];
        this.#sizes = [];
        this.#head = 0;
      }
      return Promise.resolve({ value: item, done: false });
    }
    const error = this.#error;
    if (error !== undefined) {
      this.#error = undefined;
      return Promise.reject(error);
    }
    if (this.#ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.#waiter = resolve;
      this.#failWaiter = reject;
    });
  }

  /**
   * Ends the queue: the waiting and later `next()` calls resolve done. `drain`: items
   * already buffered are still handed out first (a stream that completed); otherwise they
   * are dropped (the caller closed it).
   */
  end(drain = false): void {
    if (!drain) this.#clear();
    if (this.#ended) return;
    this.#ended = true;
    this.#takeWaiter()?.resolve({ value: undefined, done: true });
  }

  /** Ends the queue with `error`: the waiting and the next `next()` call reject with it, later ones resolve done. */
  fail(error: Error): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#clear();
    const waiter = this.#takeWaiter();
    if (waiter !== undefined) waiter.reject(error);
    else this.#error = error;
  }

  #dropHead(): void {
    this.#items[this.#head] = undefined as T;
    this.#bytes -= this.#sizes[this.#head]!;
    this.#head++;
    this.#dropped++;
  }

  #clear(): void {
    this.#items = [];
    this.#sizes = [];
    this.#bytes = 0;
    this.#head = 0;
    this.#dropped = 0;
  }

  #takeWaiter() {
    const resolve = this.#waiter;
    const reject = this.#failWaiter;
    this.#waiter = undefined;
    this.#failWaiter = undefined;
    return resolve === undefined || reject === undefined ? undefined : { resolve, reject };
  }
}

/** Where a stream's items go: a caller's buffer, or a part that hands them on (the callers sharing a stream, a redundant pair's merge). */
export type ItemSink<T> = Pick<ItemBuffer<T>, 'push' | 'end' | 'fail'>;
