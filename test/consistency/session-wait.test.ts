import { describe, expect, it } from 'vitest';
import { isTransportError } from '../../src/errors/transport-error.js';
import type { ExecuteRequest, RawOutcome } from '../../src/http/executor.js';
import { ok } from '../helpers/scripted-executor.js';
import { createTestPool, track, type TestPool } from '../pool/pool-fixtures.js';

/** A Solana node whose slot is 100 + one per 400 ms of the fake clock, honouring minContextSlot. */
function node(t: TestPool) {
  return (request: ExecuteRequest, id: number): RawOutcome => {
    const slot = 100 + Math.floor(t.clock.now() / 400);
    const [, config] = (JSON.parse(request.body) as { params: [string, { minContextSlot?: number }?] }).params;
    if (config?.minContextSlot !== undefined && config.minContextSlot > slot) {
      const body = JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32016, message: 'Minimum context slot has not been reached', data: { contextSlot: slot } } });
      return { type: 'response', status: 200, headers: { 'content-type': 'application/json' }, body };
    }
    return ok({ context: { slot }, value: 1 }, id);
  };
}

function pool(): TestPool {
  const t = createTestPool([{ id: 'a', url: 'https://a.example.com/' }, { id: 'b', url: 'https://b.example.org/' }], { hedge: false, retry: { maxRetries: 3 } });
  t.executor.script('a', node(t));
  t.executor.script('b', node(t));
  return t;
}

describe('a session read no endpoint can serve at the floor yet', () => {
  it('waits a slot at a time until one has reached it, inside the deadline, and answers from at or past the floor', async () => {
    const t = pool();
    const session = t.pool.session();
    session.raiseFloor('slot', 102n);
    const read = track(session.request('getBalance', ['addr'], { timeoutMs: 5_000 }), t.clock);
    for (let step = 0; step < 100 && !read.settled; step++) await t.clock.advance(50);
    expect(read.error).toBeUndefined();
    expect((read.value as { context: { slot: number } }).context.slot).toBeGreaterThanOrEqual(102);
    // Slot 102 is reached at 800 ms: the read ends within one wait (400 ms) of it.
    expect(read.atMs).toBeGreaterThanOrEqual(800);
    expect(read.atMs).toBeLessThanOrEqual(1_200);
    // Paced: each round asks each endpoint a few times at most (the pool's own retries), never a busy loop.
    expect(t.executor.received.length).toBeLessThanOrEqual(16);
    expect(t.clock.pendingTimers).toBe(0);
  });

  it('fails with the node’s -32016 when the deadline comes first, having asked at most once a slot', async () => {
    const t = pool();
    const session = t.pool.session();
    session.raiseFloor('slot', 1_000n);
    const read = track(session.request('getBalance', ['addr'], { timeoutMs: 1_000 }), t.clock);
    for (let step = 0; step < 100 && !read.settled; step++) await t.clock.advance(50);
    expect(isTransportError(read.error) && read.error.code).toBe('RPC_ERROR');
    expect((read.error as { context: { rpcCode: number } }).context.rpcCode).toBe(-32016);
    expect(read.atMs).toBeLessThanOrEqual(1_000);
    expect(t.executor.received.length).toBeLessThanOrEqual(6);
    expect(t.clock.pendingTimers).toBe(0);
  });
});
