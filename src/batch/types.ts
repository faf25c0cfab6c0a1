import type { TransportError } from '../errors/transport-error.js';

/** One call of `pool.batch([...])`. */
export interface BatchCall {
  readonly method: string;
  /** Positional params (`bigint`s are written as exact JSON integers). @default [] */
  readonly params?: readonly unknown[];
}

/** Options of `pool.batch(calls, options)`. */
export interface BatchOptions {
  /** Deadline for the whole batch (admission, every request and retry of every item), in ms. @default the pool's `timeoutMs` */
  readonly timeoutMs?: number | undefined;
  /** Cancels every item still pending; each fails `ABORTED` (`AMBIGUOUS_DISPATCH` for a send that may have been written). */
  readonly signal?: AbortSignal | undefined;
  /** Pin every request of the batch to one endpoint id. */
  readonly endpoint?: string | undefined;
}

/** How one item of a batch ended: its own result, or its own `TransportError`. */
export type BatchItemResult =
  | { readonly ok: true; readonly result: unknown; readonly endpointId: string }
  | { readonly ok: false; readonly error: TransportError };

/** Pool option `batch`: micro-batching of `pool.request` calls. */
export interface MicroBatchSettings {
  /**
   * How long the first call of a batch waits for others, in ms. `0`: calls made in the same
   * tick (before the next timer turn) go together, like ethers' `batchStallTime`. @default 0
   */
  readonly waitMs?: number;
  /** Most calls in one micro-batch; a full batch leaves at once (ethers' `batchMaxCount`). @default 100 */
  readonly maxSize?: number;
}
