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
import type { TransportError } from '../errors/transport-error.js';
import { abortedError } from './admission.js';
import { runBatch } from './batch-request.js';
import { failWhileWaiting } from './call-errors.js';
import type { PoolInternals } from './internals.js';
import type { RequestOptions } from './request-options.js';
import type { CallContext } from './run-attempt.js';

/** How a call runs on its own: the request loop, under `signal`. */
export type RunAlone = (call: CallContext, options: RequestOptions) => Promise<unknown>;

/** A call waiting to share a request (its context for the coalescer and the micro-batcher). */
interface Sharing {
  readonly call: CallContext;
  readonly options: RequestOptions;
}

export class SharedRequests implements CoalesceHost<Sharing> {
  readonly #pool: PoolInternals;
  readonly #runAlone: RunAlone;
  readonly #coalescer: Coalescer | undefined;
  readonly #batcher: MicroBatcher<Sharing> | undefined;

  constructor(pool: PoolInternals, runAlone: RunAlone, coalesce: boolean, microBatch: MicroBatchSettings | undefined) {
    this.#pool = pool;
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
    return coalescer.run(scope, common, call.body.tail, options.signal, this, { call, options });
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
      const settled = () => entry.settled();
      batched.then(settled, settled);
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
