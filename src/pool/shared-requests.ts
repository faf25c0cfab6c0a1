/**
 * Calls that share a request (README "Batching and coalescing"): identical idempotent reads
 * in flight together share one (coalescing, on by default), and with the pool's `batch`
 * option idempotent reads made within `waitMs` go as one JSON-RPC batch. Sends, unknown
 * methods and filter polls never share anything: each is its own request.
 */
import { MicroBatcher, type MicroBatchEntry } from '../batch/micro-batcher.js';
import type { MicroBatchSettings } from '../batch/types.js';
import { Coalescer, type CoalesceHost, type InFlight } from '../coalesce/coalescer.js';
import { SharedFlight } from '../coalesce/shared-flight.js';
import { isTransportError, type TransportError } from '../errors/transport-error.js';
import type { RequestKind } from '../retry/causes.js';
import type { KindGroup } from './admission-model.js';
import { abortedError } from './admission.js';
import { runBatch } from './batch-request.js';
import { failWhileWaiting } from './call-errors.js';
import type { PoolInternals } from './internals.js';
import type { RequestOptions } from './request-options.js';
import type { CallContext } from './run-attempt.js';
import { callTimeoutMsOf } from './topology.js';

/** How a call runs on its own: the request loop, under `signal`. */
export type RunAlone = (call: CallContext, options: RequestOptions) => Promise<unknown>;

/** A call waiting to share a request (its context for the coalescer and the micro-batcher). */
interface Sharing {
  readonly call: CallContext;
  readonly options: RequestOptions;
  /** Its coalescing scope (kind, pin, `timeoutMs`), kept when it goes on alone with less time. */
  readonly scope?: string;
  readonly keepScope?: boolean;
  /** Set once it went on alone: its own deadline, from when it made the call. */
  readonly deadlineMs?: number;
}

export class SharedRequests implements CoalesceHost<Sharing> {
  readonly #pool: PoolInternals;
  readonly #runAlone: RunAlone;
  readonly #coalescer: Coalescer | undefined;
  readonly #batcher: MicroBatcher<Sharing> | undefined;
  /** The pool's kind groups: a joiner's own deadline budget is read from them. */
  readonly #groups: ReadonlyMap<RequestKind, KindGroup>;

  constructor(pool: PoolInternals, runAlone: RunAlone, coalesce: boolean, microBatch: MicroBatchSettings | undefined, groups: ReadonlyMap<RequestKind, KindGroup>) {
    this.#pool = pool;
    this.#groups = groups;
    this.#runAlone = runAlone;
    this.#coalescer = coalesce ? new Coalescer() : undefined;
    this.#batcher = microBatch === undefined ? undefined : new MicroBatcher(pool.clock, microBatch, (entries) => this.#sendMicroBatch(entries));
  }

  /** Runs an idempotent read: coalesced, micro-batched, or alone. */
  run(call: CallContext, options: RequestOptions): Promise<unknown> {
    const coalescer = this.#coalescer;
    if (coalescer === undefined || options.coalesce === false) return this.#batchOrAlone(call, options, options.signal, undefined);
    // Same kind, pin and deadline (the scope), same request text after the id: the same request.
    // The common scope is the kind itself: no string is built per call.
    const common = options.endpoint === undefined && options.timeoutMs === undefined;
    const scope = common ? call.kind : `${call.kind}\n${options.endpoint ?? ''}\n${options.timeoutMs ?? ''}`;
    return coalescer.run(scope, common, call.body.tail, options.signal, this, { call, options, scope, keepScope: common });
  }

  /**
   * @internal A caller joined a request in flight. It keeps its own deadline: the shared
   * request runs under its first caller's, which (same scope, same `timeoutMs`) ends no later
   * than this caller's, so the joiner can never be held past its own deadline — only failed
   * before it. When the shared request runs out of its time, this caller goes on with the time
   * it has left (sharing again with the other joiners that do): never `DEADLINE_EXCEEDED` early.
   */
  joined(sharing: Sharing, joined: Promise<unknown>): Promise<unknown> {
    const { call, options } = sharing;
    const now = this.#pool.clock.now();
    const deadlineMs = sharing.deadlineMs ?? now + callTimeoutMsOf(this.#groups.get(call.kind), options);
    // Its deadline errors name its own budget, counted from when it made the call.
    call.startedAtMs ??= now;
    return joined.catch((error: unknown) => {
      const leftMs = deadlineMs - this.#pool.clock.now();
      if (!(leftMs > 0) || !isTransportError(error) || error.code !== 'DEADLINE_EXCEEDED' || options.signal?.aborted || this.#pool.closedError()) throw error;
      const alone: Sharing = { ...sharing, deadlineMs, options: { ...options, timeoutMs: leftMs } };
      return this.#coalescer!.run(sharing.scope!, sharing.keepScope!, call.body.tail, options.signal, this, alone);
    });
  }

  /** @internal The coalescer starts a request. */
  start(sharing: Sharing, signal: AbortSignal | undefined, entry: InFlight): Promise<unknown> {
    return this.#batchOrAlone(sharing.call, sharing.options, signal, entry);
  }

  /** @internal A caller left a shared request (its signal aborted). */
  leaveError(sharing: Sharing, signal: AbortSignal): TransportError {
    return this.#leaveError(sharing.call, signal);
  }

  /** pool.close(): calls still waiting for their micro-batch fail `POOL_CLOSED`. */
  close(closedError: () => TransportError): void {
    this.#batcher?.close(closedError);
  }

  #leaveError(call: CallContext, signal: AbortSignal): TransportError {
    return failWhileWaiting(abortedError(signal), call, undefined);
  }

  /** `entry`: told when the request ends (the coalescer's key is free again). */
  #batchOrAlone(call: CallContext, options: RequestOptions, signal: AbortSignal | undefined, entry: InFlight | undefined): Promise<unknown> {
    const own = signal === options.signal ? options : { ...options, signal };
    // A pinned call or one with its own kind or retry class keeps its own request.
    if (this.#batcher === undefined || options.endpoint !== undefined || options.kind !== undefined || options.retryClass !== undefined) {
      // The request loop says when it ends: no promise reaction on the hot path.
      call.onSettled = entry;
      return this.#runAlone(call, own);
    }
    const batched = this.#batcher.add(`${call.kind}\n${options.timeoutMs ?? ''}`, { call, options: own }, signal, (aborted) => this.#leaveError(call, aborted));
    if (entry !== undefined) {
      // Registered before any caller's reaction: the joiners' copy is taken before the first caller sees the result.
      batched.then(
        (result) => {
          entry.succeeded(result);
          entry.settled();
        },
        () => entry.settled(),
      );
    }
    return batched;
  }
  /** One micro-batch: alone when it holds one call, else one `pool.batch` that each caller may leave. */
  #sendMicroBatch(entries: readonly MicroBatchEntry<Sharing>[]): void {
    if (entries.length === 1) {
      const [entry] = entries as [MicroBatchEntry<Sharing>];
      this.#runAlone(entry.call.call, entry.call.options).then(entry.resolve, entry.reject);
      return;
    }
    const first = entries[0]!;
    const { timeoutMs } = first.call.options;
    // The batch's deadline counts from the first call: the wait for the others is part of it.
    const left = timeoutMs === undefined ? undefined : Math.max(1, timeoutMs - (this.#pool.clock.now() - first.enqueuedAtMs));
    const calls = entries.map((entry) => ({ method: entry.call.call.method, params: entry.call.call.params }));
    const cancellable = entries.every((entry) => entry.signal !== undefined);
    const flight = new SharedFlight((signal) => runBatch(this.#pool, calls, { timeoutMs: left, signal }), cancellable);
    entries.forEach((entry, index) => {
      flight
        .join(
          entry.signal,
          (results) => {
            const result = results[index]!;
            if (!result.ok) throw result.error;
            return result.result;
          },
          (signal) => this.#leaveError(entry.call.call, signal),
        )
        .then(entry.resolve, entry.reject);
    });
  }
}
