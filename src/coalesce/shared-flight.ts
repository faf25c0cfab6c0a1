/**
 * One piece of work awaited by several callers (a coalesced read, a micro-batch), each of
 * whom may leave on its own signal. A caller that leaves gets its own error at once and
 * changes nothing for the others; the work is cancelled only when every caller has left.
 *
 * Cheap when nobody can leave: the work gets a signal only when its first caller brought
 * one (a caller without a signal never leaves, so the work can never be cancelled while it
 * waits, and no AbortController is made).
 */
export class SharedFlight<T> {
  readonly promise: Promise<T>;
  /** Callers waiting that may still leave. */
  #leavable = 0;
  /** A caller without a signal is waiting: the work is never cancelled. */
  #pinned = false;
  readonly #controller: AbortController | undefined;
  /** Called once when every caller has left and the work was cancelled. */
  onCancel: (() => void) | undefined;

  /** Starts the work at once; `cancellable`: whether the first caller brings a signal. */
  constructor(start: (signal: AbortSignal | undefined) => Promise<T>, cancellable: boolean);
  /** Shares work already started under `controller` (undefined: it cannot be cancelled). */
  constructor(started: Promise<T>, controller: AbortController | undefined);
  constructor(work: ((signal: AbortSignal | undefined) => Promise<T>) | Promise<T>, cancel: boolean | AbortController | undefined) {
    this.#controller = typeof cancel === 'boolean' ? (cancel ? new AbortController() : undefined) : cancel;
    // No handler of its own: the first caller holds this promise (`pin`), or `join` handles it.
    this.promise = typeof work === 'function' ? work(this.#controller?.signal) : work;
  }

  /** Whether every caller left and the work was cancelled (a new caller must start afresh). */
  get cancelled(): boolean {
    return this.#controller?.signal.aborted === true;
  }

  /** Marks the work as awaited by a caller that never leaves (it is never cancelled); returns this flight. */
  pinned(): this {
    this.#pinned = true;
    return this;
  }

  /**
   * Waits for the work as one more caller. `pick` makes this caller's value (its own copy);
   * `leaveError` is the rejection when `signal` aborts first.
   */
  join<R>(signal: AbortSignal | undefined, pick: (value: T) => R, leaveError: (signal: AbortSignal) => unknown): Promise<R> {
    if (signal === undefined) {
      this.#pinned = true;
      return this.promise.then(pick);
    }
    if (signal.aborted) {
      this.#maybeCancel();
      return Promise.reject(leaveError(signal));
    }
    this.#leavable++;
    return new Promise<R>((resolve, reject) => {
      let done = false;
      const onAbort = () => {
        if (done) return;
        done = true;
        this.#leavable--;
        reject(leaveError(signal));
        this.#maybeCancel();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const finish = () => {
        if (done) return false;
        done = true;
        this.#leavable--;
        signal.removeEventListener('abort', onAbort);
        return true;
      };
      this.promise.then(
        (value) => {
          if (!finish()) return;
          try {
            resolve(pick(value));
          } catch (error) {
            reject(error);
          }
        },
        (error: unknown) => {
          if (finish()) reject(error);
        },
      );
    });
  }

  #maybeCancel(): void {
    if (this.#pinned || this.#leavable > 0 || this.#controller === undefined || this.#controller.signal.aborted) return;
    this.#controller.abort();
    this.onCancel?.();
  }
}
