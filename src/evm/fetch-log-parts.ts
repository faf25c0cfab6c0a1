import { logRangeLimitOf } from './log-range-error.js';
import type { LogPartQueue } from './log-part-queue.js';
import type { BlockRange } from './log-ranges.js';
import type { EvmLog } from './object-schemas.js';

/**
 * Asks the queue's parts, at most `concurrency` at once, until none is left; returns every
 * part's logs (in no particular order: the caller merges them). A refused part goes back to
 * the queue as narrower parts. The first failure ends it: nothing more is asked (the caller
 * cancels the parts in flight). Each turn starts at most `concurrency` requests and then
 * waits for one, so a long range never holds the event loop (the deadline's timer fires).
 */
export function fetchLogParts(queue: LogPartQueue, concurrency: number, ask: (part: BlockRange) => Promise<EvmLog[]>): Promise<EvmLog[][]> {
  return new Promise((resolve, reject) => {
    const results: EvmLog[][] = [];
    let active = 0;
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      reject(error);
    };
    const settle = (part: BlockRange, logs: EvmLog[] | undefined, error: unknown) => {
      active--;
      if (failed) return;
      try {
        if (logs !== undefined) results.push(logs);
        else {
          const limit = logRangeLimitOf(error);
          if (limit === undefined) throw error;
          queue.refused(part, limit, error);
        }
      } catch (failure) {
        fail(failure);
        return;
      }
      pump();
    };
    const pump = () => {
      try {
        while (active < concurrency) {
          const part = queue.take();
          if (part === undefined) break;
          active++;
          ask(part).then(
            (logs) => settle(part, logs, undefined),
            (error: unknown) => settle(part, undefined, error),
          );
        }
      } catch (failure) {
        fail(failure);
        return;
      }
      if (active === 0) resolve(results);
    };
    pump();
  });
}
