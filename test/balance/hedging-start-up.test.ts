import { describe, expect, it } from 'vitest';
import { LatencyQuantile, hedgeDelayMs } from '../../src/balance/hedge-policy.js';
import type { HedgeEvent } from '../../src/api/events.js';
import { answerAfter, hangUntilAborted } from '../helpers/scripted-executor.js';
import { createTestPool, endpoint, track } from '../pool/pool-fixtures.js';

/**
 * Hedging on a fresh pool (no latency quantile yet), on a fake clock: when a call held by a
 * stalled node is hedged, as its peers' first answers arrive.
 */

/** A fresh pool with the default `'auto'` hedge delay: `stalled` never answers, `fast` answers in `fastMs`. */
function freshPool(fastMs: number, hedge: { delayMs?: 'auto'; maxDelayMs?: number } = {}) {
  const t = createTestPool([endpoint('stalled'), endpoint('fast')], { hedge, balance: false, coalesce: false });
  t.executor.script('stalled', hangUntilAborted);
  t.executor.script('fast', answerAfter(t.clock, fastMs, 'from-fast'));
  const hedges: HedgeEvent[] = [];
  t.pool.on('hedge', (e) => hedges.push(e));
  return { ...t, hedges };
}

describe('hedging at start-up', () => {
  it('before 8 answers the delay follows the slowest answer seen, clamped; with none, maxDelayMs', () => {
    const q = new LatencyQuantile(0.95);
    expect(hedgeDelayMs({}, q)).toBe(2_000);
    q.observe(150);
    expect(hedgeDelayMs({}, q)).toBe(150);
    q.observe(90);
    expect(hedgeDelayMs({}, q)).toBe(150);
    q.observe(10_000);
    expect(hedgeDelayMs({}, q)).toBe(2_000);
    const quick = new LatencyQuantile(0.95);
    quick.observe(3);
    expect(hedgeDelayMs({}, quick)).toBe(50);
    expect(hedgeDelayMs({ delayMs: 120 }, quick)).toBe(120);
  });

  it('a call held by a stalled node is hedged when its peers first answer (150 ms), not at maxDelayMs', async () => {
    const t = freshPool(150);
    const calls = Array.from({ length: 4 }, (_, i) => track(t.pool.request('getBalance', [`account-${i}`]), t.clock));
    await t.clock.flush();
    const onStalled = t.executor.countFor('stalled');
    expect(onStalled).toBeGreaterThan(0);
    expect(t.executor.countFor('fast')).toBeGreaterThan(0);
    await t.clock.advance(149);
    expect(t.hedges).toEqual([]);
    await t.clock.advance(1);
    // The first answers (150 ms) set the delay: every stalled call is hedged at once, at 150 ms.
    expect(t.hedges.map((e) => [e.phase, e.atMs, e.endpointId, e.hedgeEndpointId])).toEqual(Array.from({ length: onStalled }, () => ['started', 150, 'stalled', 'fast']));
    await t.clock.advance(150);
    expect(calls.map((c) => [c.value, c.atMs! <= 300])).toEqual(Array.from({ length: 4 }, () => ['from-fast', true]));
  });

  it("with delayMs: 'auto' given explicitly, the same: the first look is at minDelayMs and the first answers decide", async () => {
    const t = freshPool(150, { delayMs: 'auto' });
    const calls = Array.from({ length: 4 }, (_, i) => track(t.pool.request('getBalance', [`account-${i}`]), t.clock));
    await t.clock.advance(300);
    expect(t.hedges.filter((e) => e.phase === 'started').map((e) => e.atMs)).toEqual(Array.from({ length: t.executor.countFor('stalled') }, () => 150));
    expect(calls.every((c) => c.value === 'from-fast')).toBe(true);
  });

  it('with no answer at all, a stalled call is still hedged at maxDelayMs', async () => {
    const t = freshPool(5_000, { maxDelayMs: 400 });
    track(t.pool.request('getBalance', ['only']), t.clock);
    track(t.pool.request('getBalance', ['other']), t.clock);
    await t.clock.advance(399);
    expect(t.hedges).toEqual([]);
    await t.clock.advance(1);
    expect(t.hedges.map((e) => [e.phase, e.atMs])).toContainEqual(['started', 400]);
  });
});
