/**
 * Micro-batching: calls made within `waitMs` of the first (`0`: in the same tick) are
 * collected per group and handed over together, like ethers' `batchStallTime` and
 * `batchMaxCount`. A full group leaves at once. A caller that aborts before its group
 * leaves is dropped from it (nothing is sent for it). Time comes from the injected clock.
 */
import type { Clock, TimerHandle } from '../clock.js';
import type { MicroBatchSettings } from './types.js';

/** One waiting call. */
export interface MicroBatchEntry<C> {
  readonly call: C;
  readonly signal: AbortSignal | undefined;
  readonly enqueuedAtMs: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Pending<C> {
  readonly entries: MicroBatchEntry<C>[];
  readonly timer: TimerHandle;
}

export const MICRO_BATCH_DEFAULTS = { waitMs: 0, maxSize: 100 } as const;

export class MicroBatcher<C> {
  readonly #clock: Clock;
  readonly #waitMs: number;
  readonly #maxSize: number;
  readonly #send: (entries: readonly MicroBatchEntry<C>[]) => void;
  readonly #pending = new Map<string, Pending<C>>();
  readonly #listeners = new Map<MicroBatchEntry<C>, () => void>();

  /** `send` gets each group's entries (at least one) and must settle every entry. */
  constructor(clock: Clock, settings: MicroBatchSettings, send: (entries: readonly MicroBatchEntry<C>[]) => void) {
    this.#clock = clock;
    this.#waitMs = settings.waitMs ?? MICRO_BATCH_DEFAULTS.waitMs;
    this.#maxSize = settings.maxSize ?? MICRO_BATCH_DEFAULTS.maxSize;
    this.#send = send;
  }

  /** Adds a call to `group`; settles with what `send` settles its entry with. */
  add(group: string, call: C, signal: AbortSignal | undefined, abortError: (signal: AbortSignal) => unknown): Promise<unknown> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise((resolve, reject) => {
      const entry: MicroBatchEntry<C> = { call, signal, enqueuedAtMs: this.#clock.now(), resolve, reject };
      let pending = this.#pending.get(group);
      if (pending === undefined) {
        pending = { entries: [], timer: this.#clock.setTimer(() => this.#flush(group), this.#waitMs) };
        this.#pending.set(group, pending);
      }
      pending.entries.push(entry);
      if (signal !== undefined) {
        const onAbort = () => {
          const current = this.#pending.get(group);
          const index = current?.entries.indexOf(entry) ?? -1;
          if (index < 0) return;
          current!.entries.splice(index, 1);
          this.#listeners.delete(entry);
          if (current!.entries.length === 0) {
            current!.timer.cancel();
            this.#pending.delete(group);
          }
          reject(abortError(signal));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        this.#listeners.set(entry, onAbort);
      }
      if (pending.entries.length >= this.#maxSize) this.#flush(group);
    });
  }

  /** Rejects every waiting call with `error` and cancels the timers (pool.close()). */
  close(error: () => unknown): void {
    for (const [group, pending] of [...this.#pending]) {
      this.#pending.delete(group);
      pending.timer.cancel();
      for (const entry of pending.entries) {
        this.#detach(entry);
        entry.reject(error());
      }
    }
  }

  #detach(entry: MicroBatchEntry<C>): void {
    const onAbort = this.#listeners.get(entry);
    if (onAbort === undefined) return;
    this.#listeners.delete(entry);
    entry.signal?.removeEventListener('abort', onAbort);
  }

  #flush(group: string): void {
    const pending = this.#pending.get(group);
    if (pending === undefined) return;
    this.#pending.delete(group);
    pending.timer.cancel();
    for (const entry of pending.entries) this.#detach(entry);
    if (pending.entries.length > 0) this.#send(pending.entries);
  }
}
