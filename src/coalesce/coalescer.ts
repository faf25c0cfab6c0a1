/**
 * Coalescing of identical reads (README "Batching and coalescing"): calls with the same
 * key (the serialized request body plus the options that change where and how long it
 * runs) while one is in flight share its request. The first caller starts it; later
 * callers join. Each caller may leave on its own signal; the request is cancelled only
 * when every caller has left. The pool decides which calls may coalesce (idempotent reads
 * only); this file only keeps the flights.
 */
import { SharedFlight } from './shared-flight.js';

/** A joiner's own copy of a result: callers may mutate what they get. `structuredClone` keeps `bigint`s. */
function copyOf<T>(value: T): T {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}

export class Coalescer {
  readonly #flights = new Map<string, SharedFlight<unknown>>();
  /** Calls that joined a request already in flight (requests saved). */
  joined = 0;

  /**
   * Runs `start` for `key`, or joins the request in flight for it. The first caller gets
   * the result itself, every joiner a structured clone.
   */
  run(key: string, signal: AbortSignal | undefined, start: (signal: AbortSignal | undefined) => Promise<unknown>, leaveError: (signal: AbortSignal) => unknown): Promise<unknown> {
    const current = this.#flights.get(key);
    if (current !== undefined && !current.cancelled) {
      this.joined++;
      return current.join(signal, copyOf, leaveError);
    }
    if (signal?.aborted) return Promise.reject(leaveError(signal));
    const flight = new SharedFlight(start, signal !== undefined);
    this.#flights.set(key, flight);
    const clear = () => {
      if (this.#flights.get(key) === flight) this.#flights.delete(key);
    };
    flight.onCancel = clear;
    flight.promise.then(clear, clear);
    // The first caller without a signal waits on the request itself: no extra promise on the common path.
    return signal === undefined ? flight.pin() : flight.join(signal, identity, leaveError);
  }

  /** Requests in flight that callers may join. */
  get size(): number {
    return this.#flights.size;
  }
}

const identity = <T>(value: T): T => value;
