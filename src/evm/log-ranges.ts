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

/** How many parts of at most `span` blocks cover `range` (`span` ≥ 1; one part when no span is known). */
export function partCount(range: BlockRange, span: bigint | undefined): bigint {
  return span === undefined ? 1n : (rangeSize(range) + span - 1n) / span;
}

/**
 * The first part of `range` no wider than `span`, and what is left of it. Parts are cut one at
 * a time, when they are asked: a range of 2^40 blocks at a span of 10 is never a list.
 */
export function firstPart(range: BlockRange, span: bigint | undefined): { readonly part: BlockRange; readonly rest: BlockRange | undefined } {
  if (span === undefined || rangeSize(range) <= span) return { part: range, rest: undefined };
  const to = range.fromBlock + span - 1n;
  return { part: { fromBlock: range.fromBlock, toBlock: to }, rest: { fromBlock: to + 1n, toBlock: range.toBlock } };
}

/**
 * How a refused range is replaced: at most three consecutive segments tiling it, each
 * narrower than it (a segment wider than `maxSpan` is cut at `maxSpan` when it is asked),
 * and the widest span now known to work (`undefined`: no limit known).
 */
export interface RangeSplit {
  readonly parts: readonly BlockRange[];
  readonly maxSpan: bigint | undefined;
}

/**
 * The parts that replace `range` after a provider refused it with `limit`, or `undefined`
 * when a single block was refused (nothing narrower exists). In order of preference:
 * 1. the provider's suggested range, when it lies inside `range` and is narrower (the rest
 *    of `range` follows, cut to a learned block-range span);
 * 2. the block-range limit it stated, as the span for every part from now on;
 * 3. bisection, which also halves the learned span — for a result-count refusal too: a node
 *    refusing every range for its results would otherwise be asked every node of the
 *    bisection tree (897 requests for 1 024 blocks) before the single block it also refuses.
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
    if (s.fromBlock > range.fromBlock) parts.push({ fromBlock: range.fromBlock, toBlock: s.fromBlock - 1n });
    parts.push(s);
    if (s.toBlock < range.toBlock) parts.push({ fromBlock: s.toBlock + 1n, toBlock: range.toBlock });
    return { parts, maxSpan: span };
  }
  if (blockRange && limit.maxBlockRange !== undefined && limit.maxBlockRange < size) {
    const span = narrower(limit.maxBlockRange) ?? limit.maxBlockRange;
    const { part, rest } = firstPart(range, span);
    return { parts: rest === undefined ? [part] : [part, rest], maxSpan: span };
  }
  const half = size / 2n;
  const parts = [
    { fromBlock: range.fromBlock, toBlock: range.fromBlock + half - 1n },
    { fromBlock: range.fromBlock + half, toBlock: range.toBlock },
  ];
  return { parts, maxSpan: narrower(size - half) };
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
