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
  /** Listeners; usually one (the executor's), so no array until a second one comes. */
  #listener: (() => void) | undefined;
  #more: (() => void)[] | undefined;
  #controller: AbortController | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  onAbort(listener: () => void): () => void {
    if (this.#aborted) {
      listener();
      return () => {};
    }
    if (this.#listener === undefined) this.#listener = listener;
    else (this.#more ??= []).push(listener);
    return () => {
      if (this.#listener === listener) this.#listener = undefined;
      else if (this.#more !== undefined) {
        const index = this.#more.indexOf(listener);
        if (index >= 0) this.#more.splice(index, 1);
      }
    };
  }

  /** A standard AbortSignal mirroring this attempt, created on first use. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      const controller = new AbortController();
      this.#controller = controller;
      if (this.#aborted) controller.abort();
      else this.onAbort(() => controller.abort());
    }
    return this.#controller.signal;
  }

  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    const first = this.#listener;
    const more = this.#more;
    this.#listener = undefined;
    this.#more = undefined;
    first?.();
    if (more !== undefined) for (const listener of more) listener();
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
