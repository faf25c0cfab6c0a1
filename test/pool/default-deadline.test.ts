import { describe, expect, it } from 'vitest';
import type { RawOutcome } from '../../src/http/executor.js';
import { hangUntilAborted } from '../helpers/scripted-executor.js';
import { createTestPool, endpoint, track } from './pool-fixtures.js';

/**
 * `requestTimeoutMs` bounds one attempt; the call's default deadline (largest + smallest
 * `requestTimeoutMs`) leaves room for one failover, whichever endpoint hangs first.
 */

const ok = (id: number): RawOutcome => ({ type: 'response', status: 200, headers: {}, body: JSON.stringify({ jsonrpc: '2.0', id, result: 'answered' }) });

function setup(seed: number) {
  const t = createTestPool([endpoint('a', { requestTimeoutMs: 300 }), endpoint('b', { requestTimeoutMs: 10_000 })], { seed });
  t.executor.script('a', hangUntilAborted);
  t.executor.script('b', (_request, id) => ok(id));
  return t;
}

describe('a default deadline that leaves room to fail over', () => {
  it.each([1, 2, 3, 4, 5, 6])('A (300 ms, hangs) and B (10 s, healthy): a read without timeoutMs succeeds on B (seed %i)', async (seed) => {
    const t = setup(seed);
    const call = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.advance(10_300);
    expect(call.value).toBe('answered');
    expect(call.atMs! <= 300).toBe(true);
  });

  it('the first attempt on A ends at A’s 300 ms; the retry on B follows at once', async () => {
    const t = createTestPool([endpoint('a', { requestTimeoutMs: 300, tier: 0 }), endpoint('b', { requestTimeoutMs: 10_000, tier: 1 })]);
    t.executor.script('a', hangUntilAborted);
    t.executor.script('b', (_request, id) => ok(id));
    const call = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.advance(299);
    expect(call.settled).toBe(false);
    await t.clock.advance(1);
    expect(call.value).toBe('answered');
    expect(call.atMs).toBe(300);
    expect(t.executor.received.map((r) => r.endpointId)).toEqual(['a', 'b']);
  });

  it('B (10 s) hanging first still leaves A its 300 ms: the deadline is 10 300 ms (hedging off)', async () => {
    const t = createTestPool([endpoint('a', { requestTimeoutMs: 300, tier: 1 }), endpoint('b', { requestTimeoutMs: 10_000, tier: 0 })], { hedge: false });
    t.executor.script('b', hangUntilAborted);
    t.executor.script('a', (_request, id) => ok(id));
    const call = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.advance(10_300);
    expect(call.value).toBe('answered');
    expect(call.atMs).toBe(10_000);
  });

  it('with hedging (the default), B hanging first is hedged to A after the hedge delay (2 s before any answer was seen)', async () => {
    const t = createTestPool([endpoint('a', { requestTimeoutMs: 300, tier: 1 }), endpoint('b', { requestTimeoutMs: 10_000, tier: 0 })]);
    t.executor.script('b', hangUntilAborted);
    t.executor.script('a', (_request, id) => ok(id));
    const call = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.advance(10_300);
    expect(call.value).toBe('answered');
    expect(call.atMs).toBe(2_000);
    expect(t.executor.received.map((r) => r.endpointId)).toEqual(['b', 'a']);
  });

  it('a read with timeoutMs: 200 fails at 200 ms exactly, whatever the endpoints’ requestTimeoutMs', async () => {
    const t = createTestPool([endpoint('a', { requestTimeoutMs: 300, tier: 0 }), endpoint('b', { requestTimeoutMs: 10_000, tier: 1 })]);
    t.executor.script('a', hangUntilAborted);
    t.executor.script('b', hangUntilAborted);
    const call = track(t.pool.request('getSlot', [], { timeoutMs: 200 }), t.clock);
    await t.clock.advance(199);
    expect(call.settled).toBe(false);
    await t.clock.advance(1);
    expect(call.atMs).toBe(200);
    expect(call.error).toMatchObject({ code: 'DEADLINE_EXCEEDED', context: { timeoutMs: 200 } });
  });
});
