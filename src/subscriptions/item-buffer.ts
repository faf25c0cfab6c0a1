import type { OverflowPolicy } from './types.js';

/**
 * A bounded queue between a socket (push) and one caller (`next()`), never unbounded.
 * When full: `drop-oldest` discards the oldest item and counts it — the count is handed to
 * the caller as one `overflow` item before the next items; `error` ends the queue with the
 * error given by `onOverflow`.
 */
export class ItemBuffer<T> {
  readonly #capacity: number;
  readonly #policy: OverflowPolicy;
  readonly #overflowItem: (dropped: number) => T;
  readonly #overflowError: () => Error;
  /** Items from `#head` on; the consumed prefix is cut off once it is the larger half. */
  #items: T[] = [];
  #head = 0;
  #dropped = 0;
  #waiter: ((result: IteratorResult<T, undefined>) => void) | undefined;
  #failWaiter: ((error: Error) => void) | undefined;
  #ended = false;
  #error: Error | undefined;

  constructor(capacity: number, policy: OverflowPolicy, overflowItem: (dropped: number) => T, overflowError: () => Error) {
    this.#capacity = capacity;
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

  /** Adds an item (ignored once ended). Returns false when the `error` policy just ended the queue. */
  push(item: T): boolean {
    if (this.#ended) return true;
    const waiter = this.#waiter;
    if (waiter !== undefined && this.#dropped === 0) {
      this.#waiter = undefined;
      this.#failWaiter = undefined;
      waiter({ value: item, done: false });
      return true;
    }
    if (this.size >= this.#capacity) {
      if (this.#policy === 'error') {
        this.fail(this.#overflowError());
        return false;
      }
      this.#head++;
      this.#dropped++;
    }
    this.#items.push(item);
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
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
      this.#head++;
      if (this.#head === this.#items.length) {
        this.#items = [];
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

  #clear(): void {
    this.#items = [];
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
