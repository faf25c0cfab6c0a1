import type { LogRangeLimit } from '../jsonrpc/log-range-limit.js';
import type { EvmLog } from './object-schemas.js';

/**
 * Pure parts of `getLogs` range splitting: cutting a range into parts no wider than a
 * span, choosing the parts that replace a range a provider refused, and merging the
 * parts' logs in chain order without duplicates.
 */

/** Blocks `fromBlock` to `toBlock`, both included. */
export interface BlockRange {
  readonly fromBlock: bigint;
  readonly toBlock: bigint;
}

export const rangeSize = (range: BlockRange): bigint => range.toBlock - range.fromBlock + 1n;

/** `range` cut into consecutive parts of at most `span` blocks (`span` ≥ 1). */
export function chunkRange(range: BlockRange, span: bigint): BlockRange[] {
  const parts: BlockRange[] = [];
  for (let from = range.fromBlock; from <= range.toBlock; from += span) {
    const to = from + span - 1n;
    parts.push({ fromBlock: from, toBlock: to < range.toBlock ? to : range.toBlock });
  }
  return parts;
}

/** How a refused range is replaced, and the widest span now known to work (`undefined`: no limit known). */
export interface RangeSplit {
  readonly parts: readonly BlockRange[];
  readonly maxSpan: bigint | undefined;
}

/**
 * The parts that replace `range` after a provider refused it with `limit`, or `undefined`
 * when a single block was refused (nothing narrower exists). In order of preference:
 * 1. the provider's suggested range, when it lies inside `range` and is narrower (the rest
 *    of `range` follows as one more part, cut to a learned block-range span);
 * 2. the block-range limit it stated, as the span for every part from now on;
 * 3. bisection (a block-range refusal also halves the learned span).
 */
export function splitRefusedRange(range: BlockRange, limit: LogRangeLimit, maxSpan: bigint | undefined): RangeSplit | undefined {
  const size = rangeSize(range);
  if (size <= 1n) return undefined;
  const blockRange = limit.kind === 'block-range';
  const narrower = (span: bigint | undefined): bigint | undefined =>
    span === undefined ? maxSpan : maxSpan === undefined || span < maxSpan ? span : maxSpan;

  const s = limit.suggestedRange;
  if (s !== undefined && s.fromBlock >= range.fromBlock && s.toBlock <= range.toBlock && rangeSize(s) < size) {
    const span = blockRange ? narrower(limit.maxBlockRange ?? rangeSize(s)) : maxSpan;
    const parts: BlockRange[] = [];
    if (s.fromBlock > range.fromBlock) parts.push(...cut({ fromBlock: range.fromBlock, toBlock: s.fromBlock - 1n }, span));
    parts.push(s);
    if (s.toBlock < range.toBlock) parts.push(...cut({ fromBlock: s.toBlock + 1n, toBlock: range.toBlock }, span));
    return { parts, maxSpan: span };
  }
  if (blockRange && limit.maxBlockRange !== undefined && limit.maxBlockRange < size) {
    const span = narrower(limit.maxBlockRange) ?? limit.maxBlockRange;
    return { parts: chunkRange(range, span), maxSpan: span };
  }
  const half = size / 2n;
  const parts = [
    { fromBlock: range.fromBlock, toBlock: range.fromBlock + half - 1n },
    { fromBlock: range.fromBlock + half, toBlock: range.toBlock },
  ];
  return { parts, maxSpan: blockRange ? narrower(size - half) : maxSpan };
}

function cut(range: BlockRange, span: bigint | undefined): BlockRange[] {
  return span === undefined ? [range] : chunkRange(range, span);
}

/** Logs of consecutive parts, in chain order (block, then log index), each log once. */
export function mergeLogs(parts: readonly (readonly EvmLog[])[]): EvmLog[] {
  const seen = new Set<string>();
  const merged: EvmLog[] = [];
  for (const logs of parts) {
    for (const log of logs) {
      const key = log.blockHash === null || log.logIndex === null ? undefined : `${log.blockHash.toLowerCase()}:${log.logIndex}`;
      if (key !== undefined) {
        if (seen.has(key)) continue;
        seen.add(key);
      }
      merged.push(log);
    }
  }
  return merged.sort(compareLogs);
}

function compareLogs(a: EvmLog, b: EvmLog): number {
  // Pending logs (no block yet) come last, in the order the node gave them (the sort is stable).
  if (a.blockNumber === null || b.blockNumber === null) return a.blockNumber === null ? (b.blockNumber === null ? 0 : 1) : -1;
  if (a.blockNumber !== b.blockNumber) return a.blockNumber < b.blockNumber ? -1 : 1;
  if (a.logIndex === null || b.logIndex === null || a.logIndex === b.logIndex) return 0;
  return a.logIndex < b.logIndex ? -1 : 1;
}
