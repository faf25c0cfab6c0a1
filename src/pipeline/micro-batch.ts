/**
 * The micro-batch stage (the pool's `batch` option): idempotent reads made within `waitMs`
 * go as one JSON-RPC batch (`pool.batch`), each caller free to leave on its own signal. A
 * pinned call, or one with its own kind or retry class, keeps its own request. Absent
 * without `batch`.
 */
import type { BatchCall, BatchItemResult, BatchOptions, MicroBatchSettings } from '../batch/types.js';
import { MicroBatcher, type MicroBatchEntry } from '../batch/micro-batcher.js';
import { SharedFlight } from '../coalesce/shared-flight.js';
import type { Clock } from '../clock.js';
import type { RequestOptions } from '../api/request-options.js';
import type { TransportError } from '../errors/transport-error.js';
import type { CallContext } from './call-context.js';
import { leftSharedRequest } from './coalesce.js';
import type { CallHandler, Stage } from './stage.js';

interface Waiting {
  readonly call: CallContext;
  readonly options: RequestOptions;
}

export interface MicroBatchStage {
  readonly stage: Stage<CallHandler>;
  /** pool.close(): calls still waiting for their micro-batch fail `POOL_CLOSED`. */
  close(closedError: () => TransportError): void;
}

export function microBatchStage(
  clock: Clock,
  settings: MicroBatchSettings,
  batch: (calls: readonly BatchCall[], options: BatchOptions) => Promise<BatchItemResult[]>,
): MicroBatchStage {
  let batcher: MicroBatcher<Waiting> | undefined;
  const stage: Stage<CallHandler> = (next) => {
    /** One micro-batch: alone when it holds one call, else one `pool.batch` that each caller may leave. */
    const send = (entries: readonly MicroBatchEntry<Waiting>[]): void => {
      if (entries.length === 1) {
        const [entry] = entries as [MicroBatchEntry<Waiting>];
        next(entry.call.call, entry.call.options).then(entry.resolve, entry.reject);
        return;
      }
      const first = entries[0]!;
      const { timeoutMs } = first.call.options;
      // The batch's deadline counts from the first call: the wait for the others is part of it.
      const left = timeoutMs === undefined ? undefined : Math.max(1, timeoutMs - (clock.now() - first.enqueuedAtMs));
      const calls = entries.map((entry) => ({ method: entry.call.call.method, params: entry.call.call.params }));
      const cancellable = entries.every((entry) => entry.signal !== undefined);
      const flight = new SharedFlight((signal) => batch(calls, { timeoutMs: left, signal }), cancellable);
      entries.forEach((entry, index) => {
        flight
          .join(
            entry.signal,
            (results) => {
              const result = results[index]!;
              if (!result.ok) throw result.error;
              return result.result;
            },
            (signal) => leftSharedRequest(entry.call.call, signal),
          )
          .then(entry.resolve, entry.reject);
      });
    };
    const own = new MicroBatcher<Waiting>(clock, settings, send);
    batcher = own;
    return (call, options) => {
      if (call.retryClass !== 'idempotent' || options.endpoint !== undefined || options.kind !== undefined || options.retryClass !== undefined) return next(call, options);
      // A coalesced request's key is free when its batch answers (it does not run the loop itself).
      const settled = call.onSettled;
      call.onSettled = undefined;
      const batched = own.add(`${call.kind}\n${options.timeoutMs ?? ''}`, { call, options }, options.signal, (aborted) => leftSharedRequest(call, aborted));
      if (settled !== undefined) {
        // Registered before any caller's reaction: the joiners' copy is taken before the first caller sees the result.
        batched.then(
          (result) => {
            settled.succeeded(result);
            settled.settled();
          },
          () => settled.settled(),
        );
      }
      return batched;
    };
  };
  return { stage, close: (closedError) => batcher?.close(closedError) };
}
