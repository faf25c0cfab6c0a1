import { describe, expect, it } from 'vitest';
import type { EndpointConfig } from '../../src/config/types.js';
import type { RawOutcome } from '../../src/http/executor.js';
import type { BreakerEvent, ReputationEvent } from '../../src/api/events.js';
import type { RequestOptions } from '../../src/api/request-options.js';
import type { FailureCause } from '../../src/retry/causes.js';
import { createTestPool, endpoint, track, type TestPool } from './pool-fixtures.js';

const HTML: RawOutcome = { type: 'response', status: 200, headers: { 'content-type': 'text/html' }, body: '<html><body>502 Bad Gateway</body></html>' };
const REFUSED: RawOutcome = { type: 'error', kind: 'connect', dispatched: false, code: 'ECONNREFUSED' };
/** Every score counts as `good`: isolates the detectors and the breaker from band ordering. */
const FLAT_BANDS = { bands: { good: 0, fair: 0 }, eligibleScore: 0 };

function watch(t: TestPool) {
  const reputation: ReputationEvent[] = [];
  const breaker: BreakerEvent[] = [];
  t.pool.on('reputation', (e) => reputation.push(e));
  t.pool.on('breaker', (e) => breaker.push(e));
  return { reputation, breaker };
}

/** One read that must succeed without waiting: time stands still, so a read nothing admits fails here at once. */
async function readNow(t: TestPool, options: RequestOptions = {}): Promise<void> {
  const read = track(t.pool.request('getSlot', [], options), t.clock);
  await t.clock.flush();
  if (!read.settled) throw new Error('the read did not complete without waiting');
  expect(read.error).toBeUndefined();
  expect(read.value).toBe('default');
}

/** `count` sequential reads; returns how many requests each endpoint received meanwhile (what the servers saw). */
async function reads(t: TestPool, count: number, stepMs = 0): Promise<Record<string, number>> {
  const from = t.executor.received.length;
  for (let i = 0; i < count; i++) {
    await readNow(t);
    if (stepMs > 0) await t.clock.advance(stepMs);
  }
  const seen: Record<string, number> = {};
  for (const r of t.executor.received.slice(from)) seen[r.endpointId] = (seen[r.endpointId] ?? 0) + 1;
  return seen;
}

/** Reports outcomes by hand on permits pinned to `endpointId`. */
async function report(t: TestPool, endpointId: string, outcome: FailureCause | 'success', times = 1): Promise<void> {
  for (let i = 0; i < times; i++) {
    const permit = await t.pool.acquireForRequestKind('read', { endpoint: endpointId });
    if (outcome === 'success') permit.recordSuccess(1);
    else permit.recordFailure(outcome);
    permit.release();
  }
}

const reputationOf = (t: TestPool, endpointId: string) => t.pool.snapshot().endpoints.find((e) => e.endpointId === endpointId)?.reputation;

describe('reputation in admission', () => {
  it('benches an endpoint answering HTML with status 200 after five critical strikes, and readmits it when the cooldown ends', async () => {
    // Time-based recovery alone (`health: false`): probes would readmit sooner (test/health).
    const t = createTestPool([endpoint('a'), endpoint('b'), endpoint('c')], { reputation: FLAT_BANDS, health: false });
    t.executor.script('a', HTML);
    const events = watch(t);
    const warmUp = await reads(t, 20, 1_000);
    expect(warmUp['a']).toBe(5);
    const start = events.reputation.find((e) => e.change === 'cooldown-start');
    expect(start).toMatchObject({ endpointId: 'a', detector: 'strikes', cooldownMs: 300_000 });
    expect(reputationOf(t, 'a')).toMatchObject({ strikes: 5 });
    const untilMs = start!.atMs + 300_000;
    // Past the host breaker's one-minute open: only the strike cooldown keeps `a` out now.
    await t.clock.advance(120_000);
    expect((await reads(t, 30))['a']).toBeUndefined();
    await t.clock.advance(untilMs - 1 - t.clock.now());
    expect((await reads(t, 30))['a']).toBeUndefined();
    await t.clock.advance(1);
    expect((await reads(t, 6))['a']).toBeGreaterThan(0);
    expect(events.reputation.some((e) => e.endpointId === 'a' && e.change === 'cooldown-end')).toBe(true);
  });

  it('with default bands one HTML answer puts it behind its good peers, and time-based recovery gives it a fresh chance', async () => {
    // Time-based recovery alone: the bench loop's probes would move the score (test/health).
    const t = createTestPool([endpoint('a'), endpoint('b'), endpoint('c')], { health: false });
    t.executor.script('a', HTML);
    const events = watch(t);
    await reads(t, 3);
    expect(reputationOf(t, 'a')).toMatchObject({ score: 55, band: 'fair' });
    expect(events.reputation).toContainEqual(expect.objectContaining({ endpointId: 'a', change: 'band', band: 'fair' }));
    expect((await reads(t, 30))['a']).toBeUndefined();
    // recoveryTimeoutMs (5 min) without a signal: the score reads 80 (good) again…
    await t.clock.advance(300_000);
    expect(reputationOf(t, 'a')).toMatchObject({ score: 80, band: 'good' });
    // …so the rotation must offer it calls again (it will fail and drop back, but it gets its chance).
    expect((await reads(t, 30))['a']).toBeGreaterThan(0);
  });

  it('readmits an endpoint that fell below the eligibility threshold once its score recovers with time', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b'), endpoint('c')], { health: false });
    await report(t, 'a', 'timeout', 3);
    expect(reputationOf(t, 'a')).toMatchObject({ score: 5, band: 'ineligible' });
    expect((await reads(t, 12))['a']).toBeUndefined();
    await t.clock.advance(300_000);
    expect(reputationOf(t, 'a')).toMatchObject({ score: 80, band: 'good', cooldownRemainingMs: 0 });
    expect((await reads(t, 12))['a']).toBe(4);
  });

  it('offers a fair endpoint a call only when no good endpoint of its tier can admit', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b', { maxConcurrentRequests: 1 }), endpoint('c', { maxConcurrentRequests: 1 })]);
    await report(t, 'a', 'temporary-http', 2);
    expect(reputationOf(t, 'a')).toMatchObject({ score: 60, band: 'fair' });
    expect((await reads(t, 30))['a']).toBeUndefined();
    const heldB = await t.pool.acquireForRequestKind('read', { endpoint: 'b' });
    expect((await reads(t, 4))).toEqual({ c: 4 });
    const heldC = await t.pool.acquireForRequestKind('read', { endpoint: 'c' });
    expect(await reads(t, 2)).toEqual({ a: 2 });
    heldB.release();
    heldC.release();
    expect((await reads(t, 10))['a']).toBeUndefined();
  });

  it('never lets a band outrank a tier: a fair tier-0 endpoint is still preferred over a good tier-1 one', async () => {
    const t = createTestPool([endpoint('a'), endpoint('z', { tier: 1 })]);
    await report(t, 'a', 'temporary-http', 2);
    expect(reputationOf(t, 'a')?.band).toBe('fair');
    expect(await reads(t, 5)).toEqual({ a: 5 });
  });

  it('keeps giving a bad endpoint its rotation share with reputation: false', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b'), endpoint('c')], { reputation: false });
    t.executor.script('a', HTML);
    const events = watch(t);
    const seen = await reads(t, 30, 1_000);
    // Each HTML failure is retried on the next member, so `a` is first in line every other call.
    expect(seen['a']).toBeGreaterThanOrEqual(10);
    expect(reputationOf(t, 'a')).toBeUndefined();
    expect(t.pool.snapshot().endpoints.every((e) => e.breakerOpenRemainingMs === 0)).toBe(true);
    expect(events).toEqual({ reputation: [], breaker: [] });
  });

  it('still sends calls when every endpoint is excluded, to the best-scored one (pool-collapse guard)', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b')]);
    await report(t, 'a', 'timeout', 2);
    await report(t, 'a', 'connection');
    await report(t, 'b', 'timeout', 3);
    expect(reputationOf(t, 'a')).toMatchObject({ score: 20, band: 'ineligible' });
    expect(reputationOf(t, 'b')).toMatchObject({ score: 5, band: 'ineligible' });
    expect(await reads(t, 6)).toEqual({ a: 6 });
  });

  it('sends a call pinned to an excluded endpoint to that endpoint', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b')]);
    await report(t, 'a', 'timeout', 3);
    expect(reputationOf(t, 'a')?.band).toBe('ineligible');
    await readNow(t, { endpoint: 'a' });
    expect(t.executor.countFor('a')).toBe(1);
    expect((await t.pool.acquireForRequestKind('read', { endpoint: 'a' })).endpointId).toBe('a');
  });

  describe('key granularity', () => {
    const shared: EndpointConfig[] = [
      { id: 'a1', url: 'https://shared.example.com/rpc' },
      { id: 'a2', url: 'https://shared.example.com/rpc' },
      endpoint('c'),
    ];

    it('shares one score between endpoints with the same URL (per-url, the default): one failing benches both', async () => {
      const t = createTestPool(shared);
      const events = watch(t);
      await report(t, 'a1', 'timeout', 3);
      expect(reputationOf(t, 'a2')).toMatchObject({ score: 5, band: 'ineligible' });
      expect(new Set(events.reputation.map((e) => e.endpointId))).toEqual(new Set(['a1', 'a2']));
      expect(await reads(t, 10)).toEqual({ c: 10 });
    });

    it('keeps separate scores per endpoint with per-endpoint granularity', async () => {
      const t = createTestPool(shared, { reputation: { granularity: 'per-endpoint' } });
      await report(t, 'a1', 'timeout', 3);
      expect(reputationOf(t, 'a2')).toMatchObject({ score: 80, band: 'good' });
      const seen = await reads(t, 10);
      expect(seen['a1']).toBeUndefined();
      expect(seen['a2']).toBe(5);
    });
  });

  it('opens the host breaker at five connection failures and a 20% failure rate in a window, skipping the host until it closes', async () => {
    const t = createTestPool([endpoint('a'), { id: 'a-alt', url: 'https://a.example.com/alt' }, endpoint('b'), endpoint('x')], { health: false });
    const events = watch(t);
    // Four failures at 100% are not enough (minFailures 5).
    await report(t, 'x', 'connection', 4);
    // 21 successes + 5 failures = 19.2%: below the rate.
    await report(t, 'a', 'success', 21);
    await report(t, 'a', 'connection', 5);
    expect(events.breaker).toEqual([]);
    // The sixth failure makes it 6/27 = 22%.
    await report(t, 'a', 'connection');
    expect(events.breaker).toEqual([{ atMs: 0, endpointIds: ['a', 'a-alt'], operator: 'example.com', state: 'open', openForMs: 60_000 }]);
    expect(t.pool.snapshot().endpoints.find((e) => e.endpointId === 'a-alt')?.breakerOpenRemainingMs).toBe(60_000);
    // `a-alt` has its own (good) score: only the breaker keeps it out.
    expect(reputationOf(t, 'a-alt')).toMatchObject({ score: 80, band: 'good' });
    await t.clock.advance(59_999);
    expect(Object.keys(await reads(t, 12))).not.toContain('a-alt');
    await t.clock.advance(1);
    expect((await reads(t, 12))['a-alt']).toBeGreaterThan(0);
    expect(events.breaker.at(-1)).toMatchObject({ endpointIds: ['a', 'a-alt'], state: 'closed' });
  });

  it('opens the breaker from real attempts that fail to connect, and keeps calls succeeding on the other host', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b')], { reputation: FLAT_BANDS });
    t.executor.script('a', REFUSED);
    const events = watch(t);
    await reads(t, 10);
    expect(events.breaker).toHaveLength(1);
    expect(events.breaker[0]).toMatchObject({ endpointIds: ['a'], state: 'open' });
    expect(t.executor.countFor('a')).toBe(5);
    expect(await reads(t, 10)).toEqual({ b: 10 });
  });

  it('never puts the URL or host of an endpoint in a reputation or breaker event', async () => {
    const secret = { id: 'keyed', url: 'https://sk-live-SECRET123.mainnet.alpha-rpc.com/v2/PATHKEY456?api-key=QUERYKEY789' };
    const t = createTestPool([secret, endpoint('b')], { reputation: FLAT_BANDS, health: false });
    t.executor.script('keyed', HTML);
    const events = watch(t);
    await reads(t, 20, 1_000);
    await t.clock.advance(600_000);
    await reads(t, 4);
    expect(events.reputation.map((e) => e.change)).toEqual(expect.arrayContaining(['cooldown-start', 'cooldown-end']));
    expect(events.breaker.map((e) => e.state)).toEqual(expect.arrayContaining(['open', 'closed']));
    const text = JSON.stringify([events, t.pool.snapshot()]);
    for (const fragment of ['SECRET123', 'PATHKEY456', 'QUERYKEY789', 'sk-live', 'mainnet.', '://']) expect(text).not.toContain(fragment);
    expect(events.breaker[0]?.operator).toBe('alpha-rpc.com');
  });
});
