/**
 * Cancellation of one attempt without touching `AbortSignal` on the hot path: on Node 20,
 * subscribing to a freshly created AbortSignal costs ~10–15 µs, more than the rest of
 * the pool's work per call. Executors that can, subscribe through `onAbort`; the real
 * `signal` is created only when an executor reads it (the fetch executor does).
 */
export interface Cancellation {
  readonly aborted: boolean;
  /** Runs `listener` once on abort (at once if already aborted); returns the unsubscribe function. */
  onAbort(listener: () => void): () => void;
}

export class AttemptAbort implements Cancellation {
  #aborted = false;
  #listeners: (() => void)[] = [];
  #controller: AbortController | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  onAbort(listener: () => void): () => void {
    if (this.#aborted) {
      listener();
      return () => {};
    }
    this.#listeners.push(listener);
    return () => {
      const index = this.#listeners.indexOf(listener);
      if (index >= 0) this.#listeners.splice(index, 1);
    };
  }

  /** A standard AbortSignal mirroring this attempt, created on first use. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      const controller = new AbortController();
      this.#controller = controller;
      if (this.#aborted) controller.abort();
      else this.#listeners.push(() => controller.abort());
    }
    return this.#controller.signal;
  }

  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}

/** A `Cancellation` over a standard AbortSignal (for callers that only have a signal). */
export function cancellationOf(signal: AbortSignal): Cancellation {
  return {
    get aborted() {
      return signal.aborted;
    },
    onAbort(listener) {
      if (signal.aborted) {
        listener();
        return () => {};
      }
      signal.addEventListener('abort', listener, { once: true });
      return () => signal.removeEventListener('abort', listener);
    },
  };
}
