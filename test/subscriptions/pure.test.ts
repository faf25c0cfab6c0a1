import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import { ItemBuffer } from '../../src/subscriptions/item-buffer.js';
import { endpointPauseMs, waitForCandidateMs } from '../../src/subscriptions/rebind-backoff.js';
import { selectEndpoint, type SelectionCandidate } from '../../src/subscriptions/selection.js';
import { allowedSilenceMs, IntervalLearner, silenceVerdict } from '../../src/subscriptions/silence.js';
import { IDENTITY_MEMORY, StreamTracker } from '../../src/subscriptions/stream-order.js';
import { streamProfileOf } from '../../src/subscriptions/stream-profile.js';
import { wsUrlOf } from '../../src/subscriptions/settings.js';

const candidate = (endpointId: string, operator: string, extra: Partial<SelectionCandidate> = {}): SelectionCandidate => ({
  endpointId,
  operator,
  tier: 0,
  band: 0,
  status: 'eligible',
  paused: false,
  subscriptions: 0,
  ...extra,
});

/** Places `n` subscriptions one by one, counting each choice. */
function place(candidates: SelectionCandidate[], n: number, cap: number): Map<string, number> {
  const counts = new Map(candidates.map((c) => [c.endpointId, c.subscriptions]));
  for (let i = 0; i < n; i++) {
    const current = candidates.map((c) => ({ ...c, subscriptions: counts.get(c.endpointId)! }));
    const result = selectEndpoint(current, { maxOperatorShare: cap, rotation: i });
    if (result.type !== 'chosen') throw new Error(result.type);
    counts.set(result.endpointId, counts.get(result.endpointId)! + 1);
  }
  return counts;
}

describe('selection', () => {
  it("one leg of a redundant pair: never the other leg's endpoint, another operator before a better tier, the same operator only when no other can", () => {
    const pick = (candidates: SelectionCandidate[], apart: string) => selectEndpoint(candidates, { maxOperatorShare: 0, rotation: 0, apart });
    expect(pick([candidate('a1', 'A'), candidate('a2', 'A'), candidate('b', 'B', { tier: 1 })], 'a1')).toEqual({ type: 'chosen', endpointId: 'b' });
    expect(pick([candidate('a1', 'A'), candidate('a2', 'A'), candidate('b', 'B', { paused: true })], 'a1')).toEqual({ type: 'chosen', endpointId: 'a2' });
    // Only the other leg's endpoint is up: wait for another rather than double up on it.
    expect(pick([candidate('a1', 'A'), candidate('b', 'B', { paused: true })], 'a1')).toEqual({ type: 'wait' });
  });

  it('spreads over the tied-best band by open subscriptions', () => {
    const counts = place([candidate('a', 'A'), candidate('b', 'B'), candidate('c', 'C')], 300, 0);
    expect([...counts.values()]).toEqual([100, 100, 100]);
  });

  it('keeps an operator with two endpoints at the cap: no more than half of 1 000', () => {
    const counts = place([candidate('a1', 'A'), candidate('a2', 'A'), candidate('b', 'B')], 1000, 0.5);
    expect(counts.get('a1')! + counts.get('a2')!).toBe(500);
    expect(counts.get('b')).toBe(500);
    // Without the cap the two endpoints of A take two thirds.
    const uncapped = place([candidate('a1', 'A'), candidate('a2', 'A'), candidate('b', 'B')], 999, 0);
    expect(uncapped.get('a1')! + uncapped.get('a2')!).toBe(666);
  });

  it('holds the cap on every prefix (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 4 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 200 }), (operators, perOperator, n) => {
        const cands = Array.from({ length: operators * perOperator }, (_, i) => candidate(`e${i}`, `op${i % operators}`));
        const cap = 0.5;
        if (cap * operators <= 1) return;
        const counts = new Map(cands.map((c) => [c.endpointId, 0]));
        for (let i = 1; i <= n; i++) {
          const result = selectEndpoint(cands.map((c) => ({ ...c, subscriptions: counts.get(c.endpointId)! })), { maxOperatorShare: cap, rotation: i });
          if (result.type !== 'chosen') throw new Error('not chosen');
          counts.set(result.endpointId, counts.get(result.endpointId)! + 1);
          const byOperator = new Map<string, number>();
          for (const c of cands) byOperator.set(c.operator, (byOperator.get(c.operator) ?? 0) + counts.get(c.endpointId)!);
          // Within one subscription of the share at every step (the first one goes somewhere).
          for (const count of byOperator.values()) expect(count).toBeLessThanOrEqual(Math.max(1, Math.ceil(cap * i)));
        }
      }),
    );
  });

  it('prefers the best tier, then the best band, and re-spreads the excess of a capped operator over that band', () => {
    const cands = [candidate('a', 'A', { band: 0 }), candidate('b', 'B', { band: 0 }), candidate('c', 'C', { band: 1 }), candidate('z', 'Z', { tier: 1 })];
    const counts = place(cands, 100, 0.4);
    expect(counts.get('z')).toBe(0);
    // A and B share the best band: each ≤ 40 %, the rest spills to the next band (c), not to tier 1.
    expect(counts.get('a')).toBeLessThanOrEqual(40);
    expect(counts.get('b')).toBeLessThanOrEqual(40);
    expect(counts.get('c')).toBe(100 - counts.get('a')! - counts.get('b')!);
  });

  it('prefers another endpoint than the one that failed, but takes it when it is the only one', () => {
    const two = [candidate('a', 'A'), candidate('b', 'B', { subscriptions: 50 })];
    expect(selectEndpoint(two, { avoid: 'a', maxOperatorShare: 0, rotation: 0 })).toEqual({ type: 'chosen', endpointId: 'b' });
    expect(selectEndpoint([candidate('a', 'A')], { avoid: 'a', maxOperatorShare: 0, rotation: 0 })).toEqual({ type: 'chosen', endpointId: 'a' });
  });

  it('waits for paused or pending endpoints, falls back to benched ones, and gives up only when all are gone', () => {
    expect(selectEndpoint([candidate('a', 'A', { paused: true }), candidate('b', 'B', { status: 'pending' })], { maxOperatorShare: 0, rotation: 0 })).toEqual({ type: 'wait' });
    expect(selectEndpoint([candidate('a', 'A', { status: 'benched' }), candidate('b', 'B', { status: 'gone' })], { maxOperatorShare: 0, rotation: 0 })).toEqual({
      type: 'chosen',
      endpointId: 'a',
    });
    expect(selectEndpoint([candidate('a', 'A', { status: 'gone' })], { maxOperatorShare: 0, rotation: 0 })).toEqual({ type: 'none' });
    // An eligible endpoint beats a benched one of a better tier.
    expect(selectEndpoint([candidate('a', 'A', { status: 'benched' }), candidate('b', 'B', { tier: 2 })], { maxOperatorShare: 0, rotation: 0 })).toEqual({
      type: 'chosen',
      endpointId: 'b',
    });
  });
});

describe('stream order', () => {
  const slots = (tracker: StreamTracker, values: number[]) =>
    values.map((slot) => {
      const d = tracker.decide({ slot });
      return d.deliver ? (d.gap ? `gap ${d.gap.from}-${d.gap.to}, ${slot}` : `${slot}`) : 'drop';
    });

  it('drops slots already delivered and reports skipped ones as one gap', () => {
    const tracker = new StreamTracker(streamProfileOf('slotSubscribe', []).order);
    expect(slots(tracker, [10, 11, 11, 9, 12, 16, 17])).toEqual(['10', '11', 'drop', 'drop', '12', 'gap 13-15, 16', '17']);
  });

  it('EVM heads: same block again is dropped, a new hash at the last number (reorg at the tip) is delivered, lower numbers dropped', () => {
    const tracker = new StreamTracker(streamProfileOf('eth_subscribe', ['newHeads']).order);
    const head = (n: number, hash: string) => (tracker.decide({ number: `0x${n.toString(16)}`, hash }).deliver ? 'y' : 'n');
    expect([head(5, '0xa'), head(5, '0xA'), head(5, '0xb'), head(4, '0xc'), head(6, '0xd')]).toEqual(['y', 'n', 'y', 'n', 'y']);
    expect(tracker.decide({ number: '0x9', hash: '0xe' })).toEqual({ deliver: true, gap: { from: 7n, to: 8n } });
  });

  it('logs are deduplicated by signature within a bounded memory', () => {
    const tracker = new StreamTracker(streamProfileOf('logsSubscribe', []).order);
    const log = (signature: string) => tracker.decide({ context: { slot: 1 }, value: { signature, logs: [] } }).deliver;
    expect([log('s1'), log('s2'), log('s1')]).toEqual([true, true, false]);
    for (let i = 0; i < IDENTITY_MEMORY; i++) log(`x${i}`);
    expect(log('s1')).toBe(true);
  });

  it('account changes: a change at or below the last delivered slot is dropped', () => {
    const tracker = new StreamTracker(streamProfileOf('accountSubscribe', []).order);
    const change = (slot: number) => tracker.decide({ context: { slot }, value: {} }).deliver;
    expect([change(5), change(5), change(4), change(7)]).toEqual([true, false, false, true]);
    const program = new StreamTracker(streamProfileOf('programSubscribe', []).order);
    const of = (pubkey: string, slot: number) => program.decide({ context: { slot }, value: { pubkey, account: {} } }).deliver;
    expect([of('k1', 5), of('k2', 5), of('k1', 5), of('k2', 6)]).toEqual([true, true, false, true]);
  });

  it('names the unsubscribe method and which streams tick', () => {
    expect(streamProfileOf('slotSubscribe', [])).toMatchObject({ unsubscribeMethod: 'slotUnsubscribe', ticks: true, expectedIntervalMs: 400 });
    expect(streamProfileOf('eth_subscribe', ['newHeads'])).toMatchObject({ unsubscribeMethod: 'eth_unsubscribe', ticks: true, expectedIntervalMs: undefined });
    expect(streamProfileOf('signatureSubscribe', [])).toMatchObject({ once: true, ticks: false });
    expect(streamProfileOf('voteSubscribe', []).unsubscribeMethod).toBe('voteUnsubscribe');
  });
});

describe('item buffer', () => {
  const make = (policy: 'drop-oldest' | 'error') =>
    new ItemBuffer<string>(3, Number.POSITIVE_INFINITY, policy, (dropped) => `overflow ${dropped}`, () => new Error('overflowed'));

  it('drop-oldest keeps the newest items and says how many were dropped, first', async () => {
    const buffer = make('drop-oldest');
    for (const item of ['1', '2', '3', '4', '5']) buffer.push(item);
    const out = [];
    for (let i = 0; i < 4; i++) out.push((await buffer.next()).value);
    expect(out).toEqual(['overflow 2', '3', '4', '5']);
    expect(buffer.size).toBe(0);
  });

  it('error ends the queue with the error once, then done', async () => {
    const buffer = make('error');
    expect([buffer.push('1'), buffer.push('2'), buffer.push('3'), buffer.push('4')]).toEqual([true, true, true, false]);
    await expect(buffer.next()).rejects.toThrow('overflowed');
    expect(await buffer.next()).toEqual({ value: undefined, done: true });
  });

  it('hands a pushed item straight to a waiting reader, and end(drain) hands out what is buffered first', async () => {
    const buffer = make('drop-oldest');
    const waiting = buffer.next();
    buffer.push('a');
    expect(await waiting).toEqual({ value: 'a', done: false });
    buffer.push('b');
    buffer.end(true);
    expect(await buffer.next()).toEqual({ value: 'b', done: false });
    expect((await buffer.next()).done).toBe(true);
    const closed = make('drop-oldest');
    closed.push('x');
    closed.end();
    expect((await closed.next()).done).toBe(true);
  });
});

describe('silence', () => {
  it('allows factor × interval, never less than the floor', () => {
    expect(allowedSilenceMs(400, { factor: 5, minMs: 2000 })).toBe(2000);
    expect(allowedSilenceMs(1000, { factor: 5, minMs: 2000 })).toBe(5000);
    expect(allowedSilenceMs(undefined, { factor: 5, minMs: 2000 })).toBeUndefined();
  });

  it('learns an interval after two gaps', () => {
    const learner = new IntervalLearner();
    learner.observe(0);
    learner.observe(1000);
    expect(learner.intervalMs).toBeUndefined();
    learner.observe(2000);
    expect(learner.intervalMs).toBe(1000);
  });

  it('is silent when any ticking stream is past its allowance; else says when to look again', () => {
    const streams = [
      { lastTickMs: 100, allowedSilenceMs: 2000 },
      { lastTickMs: 0, allowedSilenceMs: undefined },
      { lastTickMs: 500, allowedSilenceMs: 1000 },
    ];
    expect(silenceVerdict(streams, 1400)).toEqual({ silent: false, checkAtMs: 1500 });
    expect(silenceVerdict(streams, 1500)).toEqual({ silent: true });
  });
});

describe('rebind backoff', () => {
  it('pauses a failed endpoint with jittered exponential backoff, at least Retry-After', () => {
    const settings = { initialBackoffMs: 250, maxBackoffMs: 10_000 };
    const random = createSeededRandom(7);
    const first = endpointPauseMs(1, undefined, settings, random);
    expect(first).toBe(250);
    const fifth = endpointPauseMs(5, undefined, settings, () => 0.999);
    expect(fifth).toBeGreaterThan(3900);
    expect(fifth).toBeLessThanOrEqual(4000);
    expect(endpointPauseMs(1, 30_000, settings, random)).toBe(30_000);
    expect(waitForCandidateMs(1500, 1000, settings)).toBe(500);
    expect(waitForCandidateMs(Number.POSITIVE_INFINITY, 1000, settings)).toBe(250);
  });
});

describe('WebSocket URL rule', () => {
  it('uses wsUrl; derives ws(s) from url only when asked, keeping host, path and query', () => {
    expect(wsUrlOf({ url: 'https://a.example/k', wsUrl: 'wss://ws.a.example/k' }, true)).toBe('wss://ws.a.example/k');
    expect(wsUrlOf({ url: 'https://a.example/k?x=1' }, false)).toBeUndefined();
    expect(wsUrlOf({ url: 'https://a.example/k?x=1' }, true)).toBe('wss://a.example/k?x=1');
    expect(wsUrlOf({ url: 'http://127.0.0.1:8545' }, true)).toBe('ws://127.0.0.1:8545/');
  });
});
