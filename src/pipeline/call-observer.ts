/**
 * The pool's one hook for exporters (Prometheus, OpenTelemetry, the logger): call start in
 * the caller's async context, each attempt's end, and the call's end with its outcome.
 * Internal: reached through the {@link OBSERVE_CALLS} symbol, so it is not public API and
 * costs one array-length check per call when nobody observes.
 */
import type { DispatchState, FailureCause, RequestKind } from '../retry/causes.js';

/** What an observer learns when a call starts. Labels are bounded: see the fields. */
export interface ObservedCall {
  /** The method as called (unbounded: never use it as a metric label or span name). */
  readonly method: string;
  /** `method` when it is in the built-in method table or the pool's `methods` option, else `other`. */
  readonly methodLabel: string;
  /** The request kind when a configured endpoint serves it, else `other`. */
  readonly kind: string;
  /** Monotonic start time (the pool's clock), in ms. */
  readonly startedAtMs: number;
  /** Wall-clock start (epoch ms, the pool's clock). */
  readonly startedAtWallMs: number;
}

/** One attempt of an observed call, reported when it ends. */
export interface ObservedAttempt {
  readonly endpointId: string;
  /** 1 for the first attempt of the call. */
  readonly attempt: number;
  /** `lost`: a hedge race's loser, cancelled because the other attempt answered first (no-fault). */
  readonly outcome: 'success' | 'failure' | 'lost';
  /** For `failure` and `lost`. */
  readonly cause: FailureCause | undefined;
  readonly dispatch: DispatchState;
  readonly status: number | undefined;
  readonly rpcCode: number | undefined;
  readonly latencyMs: number;
  /** Wall-clock start of the attempt (epoch ms): the call's `startedAtWallMs` plus monotonic time elapsed. */
  readonly startedAtWallMs: number;
}

/** How the call ended: `error` is what `pool.request()` rejected with (undefined on success). */
export interface ObservedCallEnd {
  readonly error: unknown;
  readonly durationMs: number;
  /** Wall-clock end of the call (epoch ms): its `startedAtWallMs` plus `durationMs`. */
  readonly endedAtWallMs: number;
}

/**
 * An exporter. `start` runs synchronously inside `pool.request()`, in the caller's async
 * context (an OpenTelemetry span started there has the caller's span as parent); what it
 * returns is handed back to `attempt` and `end` for the same call. Exceptions are swallowed.
 */
export interface CallObserver<S = unknown> {
  start(call: ObservedCall): S;
  attempt(state: S, call: ObservedCall, attempt: ObservedAttempt): void;
  end(state: S, call: ObservedCall, end: ObservedCallEnd): void;
}

/** The hook's key on the pool: `pool[OBSERVE_CALLS](observer)` returns the function that removes it. */
export const OBSERVE_CALLS: unique symbol = Symbol.for('sturdy-rpc.observeCalls') as never;

/** A pool that exporters can observe. */
export interface ObservablePool {
  [OBSERVE_CALLS]<S>(observer: CallObserver<S>): () => void;
}

/**
 * The observers of one call: `attempt` is what the request loop calls per attempt, `end`
 * once when the call settles. What an observer throws is ignored (and never printed): a
 * broken exporter must never fail a call. No closure or array per call for one observer.
 */
export class CallObservation {
  readonly #observers: readonly CallObserver[];
  readonly #state: unknown;
  readonly #states: unknown[] | undefined;
  readonly call: ObservedCall;

  constructor(observers: readonly CallObserver[], call: ObservedCall) {
    this.#observers = observers;
    this.call = call;
    if (observers.length === 1) {
      this.#state = start(observers[0]!, call);
      this.#states = undefined;
    } else {
      this.#states = observers.map((observer) => start(observer, call));
    }
  }

  attempt(attempt: ObservedAttempt): void {
    const observers = this.#observers;
    for (let i = 0; i < observers.length; i++) {
      try {
        observers[i]!.attempt(this.#states === undefined ? this.#state : this.#states[i], this.call, attempt);
      } catch {
        // ignored: see the class comment
      }
    }
  }

  end(end: ObservedCallEnd): void {
    const observers = this.#observers;
    for (let i = 0; i < observers.length; i++) {
      try {
        observers[i]!.end(this.#states === undefined ? this.#state : this.#states[i], this.call, end);
      } catch {
        // ignored: see the class comment
      }
    }
  }
}

function start(observer: CallObserver, call: ObservedCall): unknown {
  try {
    return observer.start(call);
  } catch {
    return undefined;
  }
}

/** Bounded labels of a call, from what the pool knows of its configuration. */
export interface CallLabeler {
  methodLabel(method: string): string;
  kindLabel(kind: RequestKind): string;
}

/** Turns observer registration into an unsubscribe function over a copy-on-write list. */
export class CallObservers {
  list: readonly CallObserver[] = [];

  add<S>(observer: CallObserver<S>): () => void {
    const entry = observer as unknown as CallObserver;
    this.list = [...this.list, entry];
    return () => {
      this.list = this.list.filter((other) => other !== entry);
    };
  }
}

export type { RequestKind };
