import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { RawOutcome } from '../../src/http/executor.js';
import { createTestPool, endpoint, roleOf, track } from './pool-fixtures.js';

const http500: RawOutcome = { type: 'response', status: 500, headers: {}, body: 'Internal Server Error' };

describe('edge cases found in review', () => {
  it('keeps the default retry budget and backoff when options pass undefined explicitly', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b')], {
      retry: { maxRetries: undefined, initialBackoffMs: undefined, maxBackoffMs: undefined } as never,
    });
    t.executor.script('a', http500);
    t.executor.script('b', http500);
    const call = track(t.pool.request('getSlot', [], { timeoutMs: 5_000 }), t.clock);
    await t.clock.advance(5_000);
    expect(call.settled).toBe(true);
    expect(t.executor.received).toHaveLength(4); // 1 attempt + the default 3 retries
  });

  it('still waits out the backoff before re-using a failed endpoint when every candidate is benched', async () => {
    const t = createTestPool([endpoint('a')], { retry: { maxRetries: 3, initialBackoffMs: 100, maxBackoffMs: 100 } });
    const arrivals: number[] = [];
    t.executor.script('a', () => (arrivals.push(t.clock.now()), http500));
    // Bench the only endpoint: its score falls and the host breaker opens after repeated 500s.
    for (let i = 0; i < 4; i++) {
      const warm = track(t.pool.request('getSlot', [], { timeoutMs: 1_000 }), t.clock);
      await t.clock.advance(1_000);
      expect(warm.settled).toBe(true);
    }
    arrivals.length = 0;
    const call = track(t.pool.request('getSlot', [], { timeoutMs: 1_000 }), t.clock);
    await t.clock.advance(1_000);
    expect(call.settled).toBe(true);
    const gaps = arrivals.slice(1).map((at, i) => at - (arrivals[i] ?? NaN));
    expect(gaps.length).toBeGreaterThan(0);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(100);
  });

  it('cuts node error data deeper than 8 levels and redacts keys, so no secret survives in rpcData', async () => {
    const t = createTestPool([{ id: 'a', url: 'https://rpc.example.com/SECRETKEY123456' }], { retry: { maxRetries: 0 } });
    let data: unknown = { leak: 'key SECRETKEY123456' };
    for (let i = 0; i < 10; i++) data = { n: data };
    t.executor.script('a', (_request, id) => ({
      type: 'response',
      status: 200,
      headers: {},
      body: JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32602, message: 'bad', data: { SECRETKEY123456: 1, deep: data } } }),
    }));
    const call = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.advance(0);
    expect(call.error).toMatchObject({ code: 'RPC_ERROR' });
    expect(JSON.stringify((call.error as { rpcData: unknown }).rpcData)).not.toContain('SECRETKEY123456');
  });

  it('turns a malformed executor outcome into an ambiguous failure and releases the permit', async () => {
    const t = createTestPool([endpoint('a', { maxConcurrentRequests: 1 })], { retry: { maxRetries: 0 } });
    t.executor.script('a', { type: 'response', status: 503, body: '' } as unknown as RawOutcome);
    const call = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.advance(0);
    expect(call.error).toMatchObject({ name: 'TransportError' });
    expect(roleOf(t.pool, 'a').inFlight).toBe(0);
  });

  it('honours timers longer than 2^31 − 1 ms instead of firing them at once', async () => {
    let fired = false;
    const timer = systemClock.setTimer(() => (fired = true), 2 ** 31 + 10);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fired).toBe(false);
    timer.cancel();
  });
});
