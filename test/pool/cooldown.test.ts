import { describe, expect, it } from 'vitest';
import type { CooldownEvent, RateLimitedEvent } from '../../src/api/events.js';
import { createTestPool, endpoint, roleOf, track, type TestPool } from './pool-fixtures.js';

async function rateLimitA(t: TestPool, providerDelayMs?: number): Promise<void> {
  const permit = await t.pool.acquireForRequestKind('read', { endpoint: 'a' });
  if (providerDelayMs === undefined) permit.recordRateLimited();
  else permit.recordRateLimited(providerDelayMs);
  permit.release();
}

describe('rate-limit cooldown length: max(pauseAfterRateLimitMs ?? 1000, min(providerDelay, 60 000))', () => {
  const cases: [pause: number | undefined, provider: number | undefined, expected: number][] = [
    [1_000, 2_500, 2_500],
    [undefined, 120_000, 60_000],
    [undefined, undefined, 1_000],
    [3_000, 500, 3_000],
    [0, 750, 750],
  ];
  for (const [pause, provider, expected] of cases) {
    it(`pauses the role ${expected} ms for pause ${pause ?? 'default'} and provider delay ${provider ?? 'none'}`, async () => {
      const t = createTestPool([endpoint('a', pause === undefined ? {} : { pauseAfterRateLimitMs: pause })]);
      const limited: RateLimitedEvent[] = [];
      t.pool.on('rate-limited', (e) => limited.push(e));
      await rateLimitA(t, provider);
      expect(roleOf(t.pool, 'a').cooldownRemainingMs).toBe(expected);
      expect(limited).toEqual([expect.objectContaining({ endpointId: 'a', kind: 'read', cooldownMs: expected })]);
      const next = track(t.pool.acquireForRequestKind('read', { timeoutMs: expected + 10 }), t.clock);
      await t.clock.advance(expected - 1);
      expect(next.settled).toBe(false);
      await t.clock.advance(1);
      expect(next.atMs).toBe(expected);
      expect(next.value?.endpointId).toBe('a');
    });
  }

  it('takes the provider delay from a 429 Retry-After header of a real call', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b', { tier: 1 })]);
    t.executor.script('a', { type: 'response', status: 429, headers: { 'retry-after': '3' }, body: 'slow down' });
    await t.pool.request('getSlot', []);
    expect(t.executor.countFor('a')).toBe(1);
    expect(t.executor.countFor('b')).toBe(1);
    const a = roleOf(t.pool, 'a');
    expect([a.availability, a.cooldownRemainingMs, a.rateLimits]).toEqual(['rate-limited', 3_000, 1]);
  });
});

describe('availability', () => {
  it('goes Available → failure → Degraded → success → Available', async () => {
    const t = createTestPool([endpoint('a')]);
    expect(roleOf(t.pool, 'a').availability).toBe('available');
    const first = await t.pool.acquireForRequestKind('read');
    first.recordFailure('temporary-http');
    first.release();
    expect(roleOf(t.pool, 'a')).toMatchObject({ availability: 'degraded', failures: 1 });
    const second = await t.pool.acquireForRequestKind('read');
    second.recordSuccess(5);
    second.release();
    expect(roleOf(t.pool, 'a')).toMatchObject({ availability: 'available', successes: 1 });
  });

  it('goes Available → rate-limit → RateLimited → cooldown over → Degraded', async () => {
    const t = createTestPool([endpoint('a')]);
    await rateLimitA(t, 2_000);
    expect(roleOf(t.pool, 'a')).toMatchObject({ availability: 'rate-limited', rateLimits: 1, cooldownRemainingMs: 2_000 });
    await t.clock.advance(1_999);
    expect(roleOf(t.pool, 'a')).toMatchObject({ availability: 'rate-limited', cooldownRemainingMs: 1 });
    await t.clock.advance(1);
    expect(roleOf(t.pool, 'a')).toMatchObject({ availability: 'degraded', cooldownRemainingMs: 0 });
  });

  it('goes Degraded → rate-limit → RateLimited, and back to Available only after a success', async () => {
    const t = createTestPool([endpoint('a')]);
    const failed = await t.pool.acquireForRequestKind('read');
    failed.recordFailure('connection');
    failed.release();
    await rateLimitA(t);
    expect(roleOf(t.pool, 'a').availability).toBe('rate-limited');
    await t.clock.advance(1_000);
    expect(roleOf(t.pool, 'a').availability).toBe('degraded');
    const ok = await t.pool.acquireForRequestKind('read');
    ok.recordSuccess(1);
    ok.release();
    expect(roleOf(t.pool, 'a').availability).toBe('available');
  });

  it('keeps the state of each kind separate', async () => {
    const t = createTestPool([endpoint('a')]);
    await rateLimitA(t);
    expect(roleOf(t.pool, 'a', 'read').availability).toBe('rate-limited');
    expect(roleOf(t.pool, 'a', 'submit').availability).toBe('available');
    expect((await t.pool.acquireForRequestKind('submit')).endpointId).toBe('a');
  });
});

describe('cooldown events', () => {
  it('emits rate-limited and cooldown start with the endpoint id, and cooldown end only once it is over', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b')]);
    const limited: RateLimitedEvent[] = [];
    const cooldowns: CooldownEvent[] = [];
    t.pool.on('rate-limited', (e) => limited.push(e));
    t.pool.on('cooldown', (e) => cooldowns.push(e));
    await t.clock.advance(5);
    await rateLimitA(t, 2_500);
    expect(limited).toEqual([{ atMs: 5, endpointId: 'a', kind: 'read', providerDelayMs: 2_500, cooldownMs: 2_500 }]);
    expect(cooldowns).toEqual([{ atMs: 5, endpointId: 'a', kind: 'read', phase: 'start', durationMs: 2_500 }]);
    await t.clock.advance(2_499);
    t.pool.snapshot();
    await t.pool.acquireForRequestKind('read');
    expect(cooldowns.filter((e) => e.phase === 'end')).toEqual([]);
    await t.clock.advance(1);
    t.pool.snapshot();
    expect(cooldowns.filter((e) => e.phase === 'end')).toEqual([expect.objectContaining({ endpointId: 'a', kind: 'read', phase: 'end' })]);
  });

  it('stops delivering events after the listener unsubscribes', async () => {
    const t = createTestPool([endpoint('a')]);
    const seen: RateLimitedEvent[] = [];
    const off = t.pool.on('rate-limited', (e) => seen.push(e));
    off();
    await rateLimitA(t);
    expect(seen).toEqual([]);
  });
});
