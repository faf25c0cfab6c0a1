import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import { ArchivalBook } from '../../src/health/archival-book.js';
import { HeadBook } from '../../src/health/head-book.js';
import { headOfAnswer } from '../../src/health/head-of.js';
import { historicalReadOf, isPrunedAnswer } from '../../src/health/historical.js';
import { freshestOf, isLaggingNow } from '../../src/health/lag.js';
import { hasSpareCapacity, nextProbeDelayMs, probeDelayMs } from '../../src/health/probe-rules.js';
import { referenceTipIndex, TIP_BOUNDS } from '../../src/health/reference-tip.js';

const at = (value: number, atMs = 0) => ({ value, atMs });

describe('reference tip', () => {
  it('is the second-highest head with three or more endpoints: one rogue far-future head never sets it', () => {
    const heads = [at(1_000), at(2 ** 52), at(998), at(990)];
    expect(heads[referenceTipIndex(heads, undefined, 0, TIP_BOUNDS.slot)]!.value).toBe(1_000);
  });

  it('is the higher head with only two endpoints, so a lagging one is still seen', () => {
    const heads = [at(1_000), at(800)];
    expect(referenceTipIndex(heads, undefined, 0, TIP_BOUNDS.slot)).toBe(0);
  });

  it('ignores a head beyond what the chain can plausibly advance since the last tip (two endpoints)', () => {
    const previous = at(1_000, 0);
    // 10 s later the chain may be ~100 slots further (plus the jump slack), not 1e12.
    expect(referenceTipIndex([at(1e12, 10_000), at(1_020, 10_000)], previous, 10_000, TIP_BOUNDS.slot)).toBe(1);
    expect(referenceTipIndex([at(1_090, 10_000), at(1_020, 10_000)], previous, 10_000, TIP_BOUNDS.slot)).toBe(0);
  });

  it('does not trust an unvouched outlier at the very start with two endpoints', () => {
    expect(referenceTipIndex([at(1e12), at(1_000)], undefined, 0, TIP_BOUNDS.slot)).toBe(1);
  });

  it('sets no tip from a first head nobody vouches for, unless the pool has one endpoint; a vouched tip vouches for one head after it', () => {
    expect(referenceTipIndex([at(2 ** 60)], undefined, 0, TIP_BOUNDS.slot)).toBe(-1);
    expect(referenceTipIndex([at(2 ** 60)], undefined, 0, TIP_BOUNDS.slot, true)).toBe(0);
    expect(referenceTipIndex([at(1_010, 1_000)], at(1_000), 1_000, TIP_BOUNDS.slot)).toBe(0);
  });
});

describe('the head book with a rogue first head', () => {
  const settings = { allowance: { slot: 100, block: 16 }, staleAfterMs: 60_000, maxTipAgeMs: 2_000 };

  it('lets a rogue head observed first in a pool of two set no tip, and the honest head that follows sets it', () => {
    const book = new HeadBook(2, settings);
    expect(book.observe(0, 'slot', 2n ** 60n, 0)).toEqual([]);
    expect(book.tip('slot')).toBeUndefined();
    expect(book.observe(1, 'slot', 1_000, 10)).toEqual([]);
    expect(book.tip('slot')).toMatchObject({ value: 1_000n, index: 1 });
    // The rogue again, and the honest node moving on: the rogue is beyond what the chain can reach.
    expect(book.observe(0, 'slot', 2n ** 60n, 20)).toEqual([]);
    expect(book.observe(1, 'slot', 1_003, 1_000)).toEqual([]);
    expect(book.tip('slot')?.value).toBe(1_003n);
    expect(book.isLagging(1)).toBe(false);
  });

  it('judges the heads seen before the first tip when two heads set it', () => {
    const book = new HeadBook(3, settings);
    expect(book.observe(0, 'slot', 800, 0)).toEqual([]);
    expect(book.observe(1, 'slot', 1_000, 10)).toEqual([expect.objectContaining({ index: 0, lagging: true, tip: 1_000n })]);
    expect([book.record(0)?.lag, book.record(1)?.lag]).toEqual([200n, 0n]);
  });

  it('takes the only head of a pool of one as the tip', () => {
    const book = new HeadBook(1, settings);
    book.observe(0, 'block', 77, 0);
    expect(book.tip('block')?.value).toBe(77n);
  });
});

describe('aged heads', () => {
  const settings = { allowance: { slot: 100, block: 16 }, staleAfterMs: 60_000, maxTipAgeMs: 2_000 };
  const bookAt1000 = () => {
    const book = new HeadBook(3, settings);
    for (const i of [0, 1, 2]) book.observe(i, 'slot', 1_000, 0);
    return book;
  };

  it('ages a fresh endpoint once the tip moved on by more than the allowance since its head, once', () => {
    const book = bookAt1000();
    book.observe(0, 'slot', 1_090, 1_000);
    book.observe(1, 'slot', 1_090, 1_000);
    expect(book.isAged(2)).toBe(false);
    expect(book.takeNewlyAged()).toBe(false);
    book.observe(0, 'slot', 5_000, 2_000);
    book.observe(1, 'slot', 5_000, 2_000);
    expect([book.isAged(0), book.isAged(1), book.isAged(2)]).toEqual([false, false, true]);
    expect(book.isLagging(2)).toBe(false);
    expect(book.takeNewlyAged()).toBe(true);
    expect(book.takeNewlyAged()).toBe(false);
  });

  it('judges an aged endpoint at its next head: lagging when it stalled, fresh when it kept up', () => {
    const stalled = bookAt1000();
    stalled.observe(0, 'slot', 5_000, 2_000);
    stalled.observe(1, 'slot', 5_000, 2_000);
    expect(stalled.observe(2, 'slot', 1_000, 2_100)).toEqual([expect.objectContaining({ index: 2, lagging: true, tip: 5_000n })]);
    expect(stalled.isAged(2)).toBe(false);
    const caughtUp = bookAt1000();
    caughtUp.observe(0, 'slot', 5_000, 2_000);
    caughtUp.observe(1, 'slot', 5_000, 2_000);
    expect(caughtUp.observe(2, 'slot', 5_001, 2_100)).toEqual([]);
    expect([caughtUp.isAged(2), caughtUp.isLagging(2)]).toEqual([false, false]);
  });
});

describe('lag verdicts', () => {
  it('lags past the allowance and stays lagging until back within half of it (hysteresis)', () => {
    expect(isLaggingNow(false, 100, 100)).toBe(false);
    expect(isLaggingNow(false, 101, 100)).toBe(true);
    expect(isLaggingNow(true, 51, 100)).toBe(true);
    expect(isLaggingNow(true, 50, 100)).toBe(false);
  });

  it('keeps every freshest candidate when all lag (ties kept, so traffic still spreads)', () => {
    expect(freshestOf(['a', 'b', 'c'], (x) => ({ a: 300, b: 200, c: 200 })[x]!)).toEqual(['b', 'c']);
  });

  it('judges a stalled endpoint that repeats the same head as the tip moves on', () => {
    const book = new HeadBook(2, { allowance: { slot: 100, block: 16 }, staleAfterMs: 60_000, maxTipAgeMs: 2_000 });
    expect(book.observe(0, 'slot', 1_000, 0)).toEqual([]);
    expect(book.observe(1, 'slot', 1_000, 0)).toEqual([]);
    book.observe(0, 'slot', 1_150, 60);
    expect(book.observe(1, 'slot', 1_000, 61)).toEqual([expect.objectContaining({ index: 1, lagging: true, tip: 1_150n })]);
    expect(book.record(1)).toMatchObject({ value: 1_000n, lag: 150n });
  });

  it('judges a lagging endpoint back only against a tip seen about when its own head was, then re-judges it when the tip is seen', () => {
    const book = new HeadBook(2, { allowance: { slot: 100, block: 16 }, staleAfterMs: 60_000, maxTipAgeMs: 2_000 });
    book.observe(0, 'slot', 1_000, 0);
    expect(book.observe(1, 'slot', 800, 0)).toEqual([expect.objectContaining({ lagging: true })]);
    // 10 s later the lagging one is 20 behind the stale tip — but the tip is 10 s old: no verdict yet.
    expect(book.observe(1, 'slot', 980, 10_000)).toEqual([]);
    expect(book.isLagging(1)).toBe(true);
    // The tip's endpoint answers (1 025): 45 behind, within half the allowance — back.
    expect(book.observe(0, 'slot', 1_025, 10_500)).toEqual([expect.objectContaining({ index: 1, lagging: false, tip: 1_025n })]);
  });

  it('turns a getHealth "behind by N slots" into a head N below the tip', () => {
    const book = new HeadBook(3, { allowance: { slot: 100, block: 16 }, staleAfterMs: 60_000, maxTipAgeMs: 2_000 });
    // Two heads vouch for the tip (one alone sets none).
    book.observe(0, 'slot', 5_000, 0);
    book.observe(2, 'slot', 5_000, 0);
    expect(book.observeBehind(1, 150, 1)).toEqual([expect.objectContaining({ lagging: true })]);
    expect(book.record(1)?.value).toBe(4_850n);
  });
});

describe('heads read from answers', () => {
  it('reads Solana context.slot, getSlot and EVM eth_blockNumber / latest block; never getBlockHeight', () => {
    expect(headOfAnswer('getBalance', [], { context: { slot: 42 }, value: 1 })).toEqual({ quantity: 'slot', raw: 42 });
    expect(headOfAnswer('getSlot', [], 43)).toEqual({ quantity: 'slot', raw: 43 });
    expect(headOfAnswer('getBlockHeight', [], 40)).toBeUndefined();
    expect(headOfAnswer('eth_blockNumber', [], '0x10')).toEqual({ quantity: 'block', raw: '0x10' });
    expect(headOfAnswer('eth_getBlockByNumber', ['latest', false], { number: '0x11' })).toEqual({ quantity: 'block', raw: '0x11' });
    expect(headOfAnswer('eth_getBlockByNumber', ['0x1', false], { number: '0x1' })).toBeUndefined();
    expect(headOfAnswer('eth_getBalance', [], '0x5')).toBeUndefined();
  });
});

describe('historical reads', () => {
  const tips = { block: 1_000n, slot: 1_000_000n };
  it('calls a state read historical 128 blocks or more below the tip, at earliest or at a block hash', () => {
    expect(historicalReadOf('eth_getBalance', ['0xabc', '0x1'], tips, 128)).toEqual({ class: 'state', target: 1n, provesArchival: true });
    expect(historicalReadOf('eth_getBalance', ['0xabc', `0x${(1_000 - 128).toString(16)}`], tips, 128)?.provesArchival).toBe(true);
    expect(historicalReadOf('eth_getBalance', ['0xabc', `0x${(1_000 - 127).toString(16)}`], tips, 128)).toBeUndefined();
    expect(historicalReadOf('eth_getBalance', ['0xabc', 'latest'], tips, 128)).toBeUndefined();
    expect(historicalReadOf('eth_getStorageAt', ['0xabc', '0x0', 'earliest'], tips, 128)?.class).toBe('state');
    const hash = `0x${'ab'.repeat(32)}`;
    expect(historicalReadOf('eth_call', [{}, { blockHash: hash }], tips, 128)).toEqual({ class: 'state', target: undefined, provesArchival: false });
    expect(historicalReadOf('eth_getCode', ['0xabc', '0x1'], { block: undefined, slot: undefined }, 128)).toBeUndefined();
  });

  it('calls Solana getBlock/getTransaction ledger reads; only an old slot proves an archive', () => {
    expect(historicalReadOf('getBlock', [10], tips, 128)).toEqual({ class: 'ledger', target: 10n, provesArchival: true });
    expect(historicalReadOf('getBlock', [999_990], tips, 128)?.provesArchival).toBe(false);
    expect(historicalReadOf('getTransaction', ['sig'], tips, 128)?.provesArchival).toBe(false);
  });

  it('reads pruned-state answers: geth and PBSS wording, Solana -32009/-32011, -32004 only for an old slot', () => {
    const state = historicalReadOf('eth_getBalance', ['0xabc', '0x1'], tips, 128)!;
    expect(isPrunedAnswer(state, -32000, 'missing trie node 1a2b (path )')).toBe(true);
    expect(isPrunedAnswer(state, -32000, 'historical state 0xabc is not available: metadata is not found')).toBe(true);
    expect(isPrunedAnswer(state, -32000, 'execution reverted')).toBe(false);
    const old = historicalReadOf('getBlock', [10], tips, 128)!;
    const recent = historicalReadOf('getBlock', [999_990], tips, 128)!;
    expect(isPrunedAnswer(old, -32009, 'Slot 10 was skipped, or missing in long-term storage')).toBe(true);
    expect(isPrunedAnswer(old, -32004, 'Block not available for slot 10')).toBe(true);
    expect(isPrunedAnswer(recent, -32004, 'Block not available for slot 999990')).toBe(false);
    expect(isPrunedAnswer(historicalReadOf('getTransaction', ['s'], tips, 128)!, -32011, 'Transaction history is not available from this node')).toBe(true);
  });
});

describe('archival knowledge', () => {
  it('learns "not archival" for a while, "archival" until told otherwise; evidence beats the declaration', () => {
    const book = new ArchivalBook([undefined, true], 60_000);
    expect(book.knowledge(0, 'state', 0)).toBe('unknown');
    expect(book.knowledge(1, 'state', 0)).toBe(true);
    book.learn(1, 'state', false, 0);
    expect(book.knowledge(1, 'state', 59_999)).toBe(false);
    expect(book.knowledge(1, 'state', 60_000)).toBe(true);
    book.learn(0, 'state', true, 0);
    expect(book.summary(0, 1e9)).toBe(true);
    expect(book.knowledge(0, 'ledger', 0)).toBe('unknown');
  });
});

describe('probe rules', () => {
  it('jitters the interval by ±10 % and sends the confirmation a quarter interval after a good probe', () => {
    const random = createSeededRandom(3);
    for (let i = 0; i < 100; i++) {
      const delay = probeDelayMs(10_000, random);
      expect(delay).toBeGreaterThanOrEqual(9_000);
      expect(delay).toBeLessThanOrEqual(11_000);
    }
    expect(nextProbeDelayMs(10_000, random, 1, true)).toBe(2_500);
    expect(nextProbeDelayMs(10_000, random, 0, true)).toBeGreaterThanOrEqual(9_000);
  });

  it('takes a token only with one to spare, no call waiting and a free permit', () => {
    expect(hasSpareCapacity(undefined, 0, 0, undefined)).toBe(true);
    expect(hasSpareCapacity(2, 0, 0, undefined)).toBe(true);
    expect(hasSpareCapacity(1.9, 0, 0, undefined)).toBe(false);
    expect(hasSpareCapacity(5, 1, 0, undefined)).toBe(false);
    expect(hasSpareCapacity(5, 0, 4, 4)).toBe(false);
  });
});
