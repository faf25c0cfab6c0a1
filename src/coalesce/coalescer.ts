/**
 * Coalescing of identical reads (docs/reads.md "Batching and coalescing"): calls with the same
 * key (the serialized request after its id, within a scope of the options that change
 * where and how long it runs) while one is in flight share its request. The first caller
 * starts it; later callers join. Each caller may leave on its own signal; the request is
 * cancelled only when every caller has left. The pool decides which calls may coalesce
 * (idempotent reads only); this file only keeps the requests in flight.
 *
 * The first caller's path is on every read's hot path, so it allocates one small entry and
 * no closure: the sharing machinery ({@link SharedFlight}) is built only when a second
 * caller joins or the first brought a signal.
 *
 * Every caller gets its own result. The first caller holds the request's own promise, and
 * its reactions run before the joiners' (they were registered first), so the joiners' copies
 * are not made from the value it gets: when anyone joined, the host hands the result over
 * (`entry.succeeded`) before any caller sees it, and the joiners copy a private copy of it.
 */
import { SharedFlight } from './shared-flight.js';

/** What starts a request and names a leaving caller's error; `C` is the caller's context. */
export interface CoalesceHost<C> {
  /**
   * Starts the request; calls `entry.succeeded(result)` before the returned promise resolves
   * with it, and `entry.settled()` when it ends (the key is free again then).
   */
  start(context: C, signal: AbortSignal | undefined, entry: InFlight): Promise<unknown>;
  leaveError(context: C, signal: AbortSignal): unknown;
  /**
   * A caller joined a request in flight; `joined` is what it would get. The host may return
   * something else: e.g. go on alone when the shared request fails for a reason of its own
   * (its first caller's deadline, earlier than this caller's).
   */
  joined?(context: C, joined: Promise<unknown>): Promise<unknown>;
}

/** A joiner's own copy of a result: callers may mutate what they get. `structuredClone` keeps `bigint`s. */
export function copyOf<T>(value: T): T {
  return typeof value === 'object' && value !== null ? structuredClone(value) : value;
}

const identity = <T>(value: T): T => value;

/** One request in flight under its key. */
export class InFlight {
  promise: Promise<unknown> | undefined;
  flight: SharedFlight<unknown> | undefined;
  /** Someone joined: the result is kept aside for the joiners' copies. */
  joined = false;
  #kept: { readonly value: unknown } | undefined;
  #done = false;
  readonly #owner: Coalescer;
  readonly #table: Map<string, InFlight>;
  readonly #scope: string;
  readonly #key: string;
  readonly #keepScope: boolean;

  constructor(owner: Coalescer, table: Map<string, InFlight>, scope: string, key: string, keepScope: boolean) {
    this.#owner = owner;
    this.#table = table;
    this.#scope = scope;
    this.#key = key;
    this.#keepScope = keepScope;
  }

  get done(): boolean {
    return this.#done;
  }

  /** The request's result, before any caller sees it: with joiners, a copy nobody else holds is kept for them. */
  succeeded(value: unknown): void {
    if (this.joined && this.#kept === undefined) this.#kept = { value: copyOf(value) };
  }

  /** A joiner's own copy: of the copy kept aside (the first caller may have changed the value it got). */
  copyForJoiner(value: unknown): unknown {
    return copyOf(this.#kept === undefined ? value : this.#kept.value);
  }

  /** The request ended (or every caller left): later calls send afresh. */
  settled(): void {
    if (this.#done) return;
    this.#done = true;
    if (this.#table.get(this.#key) !== this) return;
    this.#table.delete(this.#key);
    this.#owner.dropScopeIfEmpty(this.#scope, this.#table, this.#keepScope);
  }
}

export class Coalescer {
  /** Requests per scope (kind, pin, deadline), then per request text: two look-ups of strings that exist already. */
  readonly #scopes = new Map<string, Map<string, InFlight>>();

  /**
   * Starts the request for `key` in `scope`, or joins the one in flight. The first caller
   * gets the result itself, every joiner a structured clone of an untouched copy.
   * `keepScope`: keep the scope's table when it empties (the few common scopes).
   */
  run<C>(scope: string, keepScope: boolean, key: string, signal: AbortSignal | undefined, host: CoalesceHost<C>, context: C): Promise<unknown> {
    let table = this.#scopes.get(scope);
    if (table === undefined) this.#scopes.set(scope, (table = new Map()));
    const current = table.get(key);
    if (current !== undefined && !current.done && current.flight?.cancelled !== true) {
      current.joined = true;
      // The first caller had no signal: it never leaves, so the request is never cancelled.
      current.flight ??= new SharedFlight(current.promise!, undefined).pinned();
      const joined = current.flight.join(signal, (value) => current.copyForJoiner(value), (aborted) => host.leaveError(context, aborted));
      return host.joined === undefined ? joined : host.joined(context, joined);
    }
    if (signal?.aborted) return Promise.reject(host.leaveError(context, signal));
    const entry = new InFlight(this, table, scope, key, keepScope);
    table.set(key, entry);
    if (signal === undefined) {
      entry.promise = host.start(context, undefined, entry);
      return entry.promise;
    }
    const controller = new AbortController();
    entry.promise = host.start(context, controller.signal, entry);
    const flight = new SharedFlight(entry.promise, controller);
    entry.flight = flight;
    flight.onCancel = () => entry.settled();
    return flight.join(signal, identity, (aborted) => host.leaveError(context, aborted));
  }

  /** @internal An entry left its table empty. */
  dropScopeIfEmpty(scope: string, table: Map<string, InFlight>, keepScope: boolean): void {
    // Scopes of pins and deadlines come and go (a deadline may be any number): drop them when empty.
    if (!keepScope && table.size === 0 && this.#scopes.get(scope) === table) this.#scopes.delete(scope);
  }

}
