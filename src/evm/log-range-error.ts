import { isTransportError } from '../errors/transport-error.js';
import { readLogRangeLimit, type LogRangeLimit } from '../jsonrpc/log-range-limit.js';

const MAX_CAUSE_DEPTH = 8;

/**
 * The provider's `eth_getLogs` limit behind a failed call — its kind, the widest range it
 * accepts and the range it suggested, when it said so — or `undefined` when `error` is
 * another failure. Reads the node's error (`RPC_ERROR`) anywhere in the `cause` chain, so
 * it works on what the pool throws after retrying elsewhere (`RETRIES_EXHAUSTED`).
 *
 * ```ts
 * const limit = logRangeLimitOf(error); // { kind: 'block-range', maxBlockRange: 500n, suggestedRange: { fromBlock, toBlock } }
 * ```
 */
export function logRangeLimitOf(error: unknown): LogRangeLimit | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && isTransportError(current); depth++) {
    if (current.rpcCode !== undefined) {
      const limit = readLogRangeLimit({ code: current.rpcCode, message: current.rpcMessage ?? '', data: current.rpcData });
      if (limit !== undefined) return limit;
    }
    current = current.cause;
  }
  return undefined;
}

export type { LogRangeLimit };
