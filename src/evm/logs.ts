import * as z from 'zod/mini';
import { TransportError } from '../errors/transport-error.js';
import type { RequestOptions } from '../api/request-options.js';
import { assertEvmAddress } from './address.js';
import { blockParam, checkHash, invalidInput, quantity, type EvmBlockParameter } from './inputs.js';
import { fetchLogParts } from './fetch-log-parts.js';
import { LogPartQueue } from './log-part-queue.js';
import { logRangeLimitOf, type LogRangeLimit } from './log-range-error.js';
import { mergeLogs } from './log-ranges.js';
import type { EvmMethodContext } from './method-context.js';
import { logSchema, type EvmLog } from './object-schemas.js';
import { parseResult, quantitySchema } from './schemas.js';

/** Which logs `getLogs` returns. */
export interface EvmLogFilter {
  /** One contract address, or any of several. */
  readonly address?: string | readonly string[];
  /** Up to 4 positions: a topic, any of several, or `null` (any). */
  readonly topics?: readonly (string | readonly string[] | null)[];
  /** @default 'latest' */
  readonly fromBlock?: EvmBlockParameter;
  /** @default 'latest' */
  readonly toBlock?: EvmBlockParameter;
  /** One block by hash (excludes `fromBlock`/`toBlock`; never split). */
  readonly blockHash?: string;
}

/** Options of `getLogs`. */
export interface GetLogsParameters {
  /** Split proactively into parts of at most this many blocks (a provider limit you know). @default none: split only when refused */
  readonly maxBlockRange?: number | bigint;
  /** Parts in flight at once (each still admitted by the pool's limits). @default 4 */
  readonly maxConcurrentParts?: number;
  /**
   * The most `eth_getLogs` requests one call may send, refused ones included. When the blocks
   * left would need more at the span the provider allows, the call fails with
   * `LOG_RANGE_LIMIT` before sending them. @default 10000
   */
  readonly maxParts?: number;
}

/** Default of `GetLogsParameters.maxParts`: requests of one `getLogs` call. */
const DEFAULT_GET_LOGS_MAX_PARTS = 10_000;

/** Default deadline of a whole `getLogs`, all parts included, in ms (when `options.timeoutMs` is not set). */
export const DEFAULT_GET_LOGS_TIMEOUT_MS = 60_000;

/** `eth_getLogs` that survives provider limits. */
export interface EvmLogMethods {
  /**
   * `eth_getLogs`. A range a provider refuses (block-range or result-count limit, see
   * `logRangeLimitOf`) is split — at the range it suggested, else at its stated limit,
   * else in halves — and the parts are fetched (each its own pool call with its own
   * retries, at most `maxConcurrentParts` at once) and merged in chain order without
   * duplicates. `options.timeoutMs` bounds the whole (default 60 000 ms); the caller's
   * `signal` cancels every part. Fails with `LOG_RANGE_LIMIT` when the range would need
   * more than `maxParts` requests, or when the provider refuses a single block.
   */
  getLogs(filter: EvmLogFilter, parameters?: GetLogsParameters, options?: RequestOptions): Promise<EvmLog[]>;
}

const TAGS_RESOLVED_BY_NUMBER = new Set(['latest', 'pending']);
const logsSchema = z.array(logSchema);
const blockNumberOnly = z.object({ number: quantitySchema });

function filterParam(filter: unknown): Record<string, unknown> {
  if (typeof filter !== 'object' || filter === null) return invalidInput('filter', 'an object');
  const f = filter as EvmLogFilter;
  const out: Record<string, unknown> = {};
  if (f.address !== undefined) {
    if (Array.isArray(f.address)) f.address.forEach((a: unknown, i: number) => assertEvmAddress(a, `filter.address.${i}`));
    else assertEvmAddress(f.address, 'filter.address');
    out['address'] = f.address;
  }
  if (f.topics !== undefined) {
    if (!Array.isArray(f.topics) || f.topics.length > 4) invalidInput('filter.topics', 'an array of at most 4 positions');
    f.topics.forEach((topic: unknown, i: number) => {
      if (topic === null) return;
      if (Array.isArray(topic)) topic.forEach((t: unknown, j: number) => checkHash(t, `filter.topics.${i}.${j}`));
      else checkHash(topic, `filter.topics.${i}`);
    });
    out['topics'] = f.topics;
  }
  if (f.blockHash !== undefined) {
    if (f.fromBlock !== undefined || f.toBlock !== undefined) invalidInput('filter.blockHash', 'absent when fromBlock or toBlock is set');
    out['blockHash'] = checkHash(f.blockHash, 'filter.blockHash');
  }
  return out;
}

function checkParameters(parameters: GetLogsParameters): { maxSpan: bigint | undefined; concurrency: number; maxParts: number } {
  const { maxBlockRange, maxConcurrentParts = 4, maxParts = DEFAULT_GET_LOGS_MAX_PARTS } = parameters;
  if (!Number.isSafeInteger(maxConcurrentParts) || maxConcurrentParts < 1) invalidInput('maxConcurrentParts', 'an integer ≥ 1');
  if (!Number.isSafeInteger(maxParts) || maxParts < 1) invalidInput('maxParts', 'an integer ≥ 1');
  if (maxBlockRange === undefined) return { maxSpan: undefined, concurrency: maxConcurrentParts, maxParts };
  const span = BigInt(quantity(maxBlockRange, 'maxBlockRange'));
  if (span < 1n) invalidInput('maxBlockRange', 'an integer ≥ 1');
  return { maxSpan: span, concurrency: maxConcurrentParts, maxParts };
}

export function createLogMethods({ requester, clock }: EvmMethodContext): EvmLogMethods {
  return {
    async getLogs(filter, parameters = {}, options = {}) {
      const base = filterParam(filter);
      const fromParam = blockParam(filter.fromBlock ?? 'latest', 'filter.fromBlock');
      const toParam = blockParam(filter.toBlock ?? 'latest', 'filter.toBlock');
      const { maxSpan, concurrency, maxParts } = checkParameters(parameters);
      const timeoutMs = options.timeoutMs ?? DEFAULT_GET_LOGS_TIMEOUT_MS;
      if (typeof timeoutMs !== 'number' || !(timeoutMs > 0)) invalidInput('timeoutMs', 'a positive number of ms');
      const numeric = (value: string): bigint | undefined => (value.startsWith('0x') ? BigInt(value) : undefined);
      const from = numeric(fromParam);
      const to = numeric(toParam);
      if (from !== undefined && to !== undefined && from > to) invalidInput('filter.fromBlock', 'at most filter.toBlock');

      const deadlineMs = clock.now() + timeoutMs;
      const stop = new AbortController();
      const onCallerAbort = () => stop.abort(options.signal?.reason);
      options.signal?.addEventListener('abort', onCallerAbort, { once: true });
      if (options.signal?.aborted === true) onCallerAbort();
      const callOptions = (): RequestOptions => {
        const remaining = deadlineMs - clock.now();
        if (remaining <= 0) {
          throw new TransportError('DEADLINE_EXCEEDED', `eth_getLogs did not complete within ${Math.round(timeoutMs)} ms`, {
            context: { timeoutMs },
            method: 'eth_getLogs',
          });
        }
        return { ...options, timeoutMs: remaining, signal: stop.signal };
      };
      const query = async (fromBlock: string, toBlock: string): Promise<EvmLog[]> =>
        parseResult('eth_getLogs', logsSchema, await requester.request('eth_getLogs', [{ ...base, fromBlock, toBlock }], callOptions()));
      const blockOf = async (param: string): Promise<bigint> => {
        const known = numeric(param);
        if (known !== undefined) return known;
        if (param === 'earliest') return 0n;
        if (TAGS_RESOLVED_BY_NUMBER.has(param)) return parseResult('eth_blockNumber', quantitySchema, await requester.request('eth_blockNumber', [], callOptions()));
        const block = await requester.request('eth_getBlockByNumber', [param, false], callOptions());
        return parseResult('eth_getBlockByNumber', blockNumberOnly, block).number;
      };

      try {
        if (base['blockHash'] !== undefined) {
          return parseResult('eth_getLogs', logsSchema, await requester.request('eth_getLogs', [base], callOptions()));
        }
        // Tags: try the one query first (most ranges pass); resolve them to numbers only to split.
        let refused: { limit: LogRangeLimit; error: unknown } | undefined;
        if (maxSpan === undefined && (from === undefined || to === undefined)) {
          try {
            return await query(fromParam, toParam);
          } catch (error) {
            const limit = logRangeLimitOf(error);
            if (limit === undefined) throw error;
            refused = { limit, error };
          }
        }
        const range = { fromBlock: await blockOf(fromParam), toBlock: await blockOf(toParam) };
        if (range.fromBlock > range.toBlock) return [];
        const queue = new LogPartQueue(range, maxSpan, maxParts, refused === undefined ? 0 : 1);
        if (refused !== undefined) queue.refused(range, refused.limit, refused.error);
        const ask = async (part: { fromBlock: bigint; toBlock: bigint }) => query(quantity(part.fromBlock, 'fromBlock'), quantity(part.toBlock, 'toBlock'));
        return mergeLogs(await fetchLogParts(queue, concurrency, ask));
      } catch (error) {
        stop.abort(error);
        // A part that ran into the whole call's deadline: the call missed its deadline, whatever the part's error says.
        if (clock.now() >= deadlineMs && options.signal?.aborted !== true) {
          throw new TransportError('DEADLINE_EXCEEDED', `eth_getLogs did not complete within ${Math.round(timeoutMs)} ms`, {
            context: { timeoutMs },
            method: 'eth_getLogs',
            cause: error,
          });
        }
        throw error;
      } finally {
        options.signal?.removeEventListener('abort', onCallerAbort);
      }
    },
  };
}
