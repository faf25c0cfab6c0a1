import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstPart, mergeLogs, partCount, rangeSize, splitRefusedRange, type BlockRange } from '../../src/evm/log-ranges.js';
import type { EvmLog } from '../../src/evm/index.js';

const range = (fromBlock: bigint, toBlock: bigint): BlockRange => ({ fromBlock, toBlock });
const HASH = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const;
const log = (block: number, index: number): EvmLog => ({
  address: '0x0000000000000000000000000000000000000001',
  topics: [],
  data: '0x',
  blockNumber: BigInt(block),
  blockHash: HASH(block),
  transactionHash: HASH(1_000_000 + block),
  transactionIndex: 0n,
  logIndex: BigInt(index),
  removed: false,
});

/** Parts must tile the range exactly: consecutive, no gap, no overlap. */
function expectTiles(parts: readonly BlockRange[], whole: BlockRange): void {
  expect(parts[0]?.fromBlock).toBe(whole.fromBlock);
  expect(parts.at(-1)?.toBlock).toBe(whole.toBlock);
  for (let i = 1; i < parts.length; i++) expect(parts[i]?.fromBlock).toBe((parts[i - 1]?.toBlock ?? 0n) + 1n);
  for (const part of parts) expect(part.fromBlock <= part.toBlock).toBe(true);
}

describe('firstPart and partCount', () => {
  it('cut parts of at most the span one at a time, tiling the range in partCount parts', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 9n }), fc.bigInt({ min: 0n, max: 5_000n }), fc.bigInt({ min: 1n, max: 1_200n }), (from, width, span) => {
        const whole = range(from, from + width);
        const parts: BlockRange[] = [];
        for (let left: BlockRange | undefined = whole; left !== undefined; ) {
          const { part, rest } = firstPart(left, span);
          parts.push(part);
          left = rest;
        }
        expectTiles(parts, whole);
        expect(parts.every((p) => rangeSize(p) <= span)).toBe(true);
        expect(BigInt(parts.length)).toBe(partCount(whole, span));
      }),
    );
  });

  it('count the parts of 2^40 blocks without making them', () => {
    expect(partCount(range(0n, 2n ** 40n), 10n)).toBe(109_951_162_778n);
    expect(firstPart(range(0n, 2n ** 40n), 10n).rest).toEqual(range(10n, 2n ** 40n));
    expect(partCount(range(0n, 2n ** 40n), undefined)).toBe(1n);
  });
});

describe('splitRefusedRange', () => {
  it('takes the provider’s suggestion; the rest is one segment, cut to the block-range span it implies when asked', () => {
    const split = splitRefusedRange(range(0n, 2_999n), { kind: 'block-range', suggestedRange: { fromBlock: 0n, toBlock: 499n } }, undefined);
    expect(split).toEqual({ parts: [range(0n, 499n), range(500n, 2_999n)], maxSpan: 500n });
  });

  it('keeps a result-count suggestion to itself: the rest is one part (density differs along the chain)', () => {
    const split = splitRefusedRange(range(100n, 999n), { kind: 'result-count', suggestedRange: { fromBlock: 100n, toBlock: 149n } }, undefined);
    expect(split).toEqual({ parts: [range(100n, 149n), range(150n, 999n)], maxSpan: undefined });
  });

  it('ignores a suggestion outside the refused range or as wide as it', () => {
    const outside = splitRefusedRange(range(100n, 199n), { kind: 'result-count', suggestedRange: { fromBlock: 0n, toBlock: 150n } }, undefined);
    expect(outside?.parts).toEqual([range(100n, 149n), range(150n, 199n)]);
    const same = splitRefusedRange(range(100n, 199n), { kind: 'result-count', suggestedRange: { fromBlock: 100n, toBlock: 199n } }, undefined);
    expect(same?.parts).toEqual([range(100n, 149n), range(150n, 199n)]);
  });

  it('uses a stated limit as the span for every part, and never widens a learned one', () => {
    expect(splitRefusedRange(range(0n, 2_500n), { kind: 'block-range', maxBlockRange: 1_000n }, undefined)).toEqual({
      parts: [range(0n, 999n), range(1_000n, 2_500n)],
      maxSpan: 1_000n,
    });
    expect(splitRefusedRange(range(0n, 999n), { kind: 'block-range', maxBlockRange: 800n }, 400n)?.maxSpan).toBe(400n);
  });

  it('bisects when the provider says nothing more, halving the learned span for range and result-count limits alike', () => {
    expect(splitRefusedRange(range(10n, 20n), { kind: 'block-range' }, undefined)).toEqual({ parts: [range(10n, 14n), range(15n, 20n)], maxSpan: 6n });
    expect(splitRefusedRange(range(10n, 20n), { kind: 'result-count' }, undefined)).toEqual({ parts: [range(10n, 14n), range(15n, 20n)], maxSpan: 6n });
    expect(splitRefusedRange(range(10n, 20n), { kind: 'result-count' }, 4n)?.maxSpan).toBe(4n);
  });

  it('cannot split a single block', () => {
    expect(splitRefusedRange(range(7n, 7n), { kind: 'result-count' }, undefined)).toBeUndefined();
  });

  it('always tiles the refused range with at most three narrower parts', () => {
    const limit = fc.record({
      kind: fc.constantFrom('block-range' as const, 'result-count' as const),
      maxBlockRange: fc.option(fc.bigInt({ min: 1n, max: 3_000n }), { nil: undefined }),
      suggestedRange: fc.option(
        fc.tuple(fc.bigInt({ min: 0n, max: 3_000n }), fc.bigInt({ min: 0n, max: 3_000n })).map(([a, b]) => (a <= b ? { fromBlock: a, toBlock: b } : { fromBlock: b, toBlock: a })),
        { nil: undefined },
      ),
    });
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2_000n }), fc.bigInt({ min: 1n, max: 2_000n }), limit, (from, width, l) => {
        const whole = range(from, from + width);
        const clean = Object.fromEntries(Object.entries(l).filter(([, v]) => v !== undefined)) as unknown as Parameters<typeof splitRefusedRange>[1];
        const split = splitRefusedRange(whole, clean, undefined);
        expect(split).toBeDefined();
        expectTiles(split?.parts ?? [], whole);
        expect(split?.parts.every((p) => rangeSize(p) < rangeSize(whole))).toBe(true);
        expect(split?.parts.length).toBeLessThanOrEqual(3);
      }),
    );
  });
});

describe('mergeLogs', () => {
  it('orders by block then log index and keeps each log once', () => {
    const merged = mergeLogs([[log(5, 1), log(5, 0)], [log(3, 0), log(5, 1)], [log(9, 2)]]);
    expect(merged.map((l) => [l.blockNumber, l.logIndex])).toEqual([
      [3n, 0n],
      [5n, 0n],
      [5n, 1n],
      [9n, 2n],
    ]);
  });
});
