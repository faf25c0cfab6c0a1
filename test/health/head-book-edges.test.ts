import { describe, expect, it } from 'vitest';
import { HeadBook } from '../../src/health/head-book.js';

/** Issue 27 §1: the two edge cases of the head book known from the health work. */
const settings = { allowance: { slot: 100, block: 16 }, staleAfterMs: 60_000, maxTipAgeMs: 2_000 };

describe('a head seen before any tip existed', () => {
  it('is not vouched fresh by a tip set long after it: the endpoint is aged (probed) and judged again at its next head', () => {
    const book = new HeadBook(3, settings);
    book.observe(0, 'slot', 800, 0);
    // Ten seconds later two heads set the first tip, 50 slots past the old head: within the
    // allowance, but the old head says nothing of where that node is now.
    book.observe(1, 'slot', 850, 10_000);
    book.observe(2, 'slot', 850, 10_000);
    expect(book.tip('slot')?.value).toBe(850n);
    expect(book.isAged(0)).toBe(true);
    expect(book.takeNewlyAged()).toBe(true);
    // Its next head is judged: it stalled at 800 while the chain went on to 1 000.
    book.observe(1, 'slot', 1_000, 10_500);
    book.observe(2, 'slot', 1_000, 10_500);
    expect(book.observe(0, 'slot', 800, 10_600)).toEqual([expect.objectContaining({ index: 0, lagging: true, tip: 1_000n })]);
    expect(book.isAged(0)).toBe(false);
  });

  it('is fresh when the first tip is seen about when it was (within the tip age bound)', () => {
    const book = new HeadBook(3, settings);
    book.observe(0, 'slot', 800, 0);
    book.observe(1, 'slot', 850, 1_000);
    expect([book.isAged(0), book.isLagging(0), book.record(0)?.lag]).toEqual([false, false, 50n]);
  });
});

describe('a tie of equal heads', () => {
  /** B and C at 1 000, A lagging at 700; then B 1 300, C 1 200 (the tip: second-highest); A catches up to 1 200 three seconds later. */
  const caughtUpToATie = () => {
    const book = new HeadBook(3, settings);
    book.observe(1, 'slot', 1_000, 0);
    book.observe(2, 'slot', 1_000, 0);
    expect(book.observe(0, 'slot', 700, 0)).toEqual([expect.objectContaining({ index: 0, lagging: true })]);
    book.observe(1, 'slot', 1_300, 10_000);
    book.observe(2, 'slot', 1_200, 10_000);
    expect(book.tip('slot')).toMatchObject({ value: 1_200n, index: 2 });
    return book;
  };

  it('never makes the lagging endpoint the tip’s holder (it would vouch for itself): the fresh holder of that head keeps it', () => {
    const book = caughtUpToATie();
    expect(book.observe(0, 'slot', 1_200, 13_000)).toEqual([]);
    expect(book.tip('slot')).toMatchObject({ value: 1_200n, index: 2 });
    // Judged against a tip seen 3 s before its head: not back yet (the probe takes the holder along).
    expect(book.isLagging(0)).toBe(true);
  });

  it('readmits it at the holder’s next answer, and its own repeated head never holds the tip nor blocks that', () => {
    const book = caughtUpToATie();
    book.observe(0, 'slot', 1_200, 13_000);
    book.observe(0, 'slot', 1_200, 13_050);
    expect(book.observe(2, 'slot', 1_200, 13_100)).toEqual([expect.objectContaining({ index: 0, lagging: false, tip: 1_200n })]);
    expect(book.tip('slot')?.index).toBe(2);
  });
});
