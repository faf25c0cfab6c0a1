import { describe, expect, it } from 'vitest';
import { isTransportError } from '../../src/errors/transport-error.js';
import type { RawOutcome } from '../../src/http/executor.js';
import { ok, type Script } from '../helpers/scripted-executor.js';
import { createTestPool, endpoint, track } from './pool-fixtures.js';

const http500: RawOutcome = { type: 'response', status: 500, headers: {}, body: 'Internal Server Error' };
const http429: RawOutcome = { type: 'response', status: 429, headers: {}, body: 'Too Many Requests' };
const socketAfterWrite: RawOutcome = { type: 'error', kind: 'socket', dispatched: true, code: 'ECONNRESET' };
const connectRefused: RawOutcome = { type: 'error', kind: 'connect', dispatched: false, code: 'ECONNREFUSED' };
const invalidParams: Script = (_request, id) => ({
  type: 'response',
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32602, message: 'Invalid params: bad pubkey' } }),
});
/** Never answers until the pool aborts the attempt's signal. */
const hangUntilAborted: Script = (request) =>
  new Promise((resolve) =>
    request.signal.addEventListener('abort', () => resolve({ type: 'error', kind: 'aborted', dispatched: true }), { once: true }),
  );
const tx = ['AQABAgMEBQYHCAkKCwwNDg8Q', { encoding: 'base64' }];

describe('pool.request retries', () => {
  it('retries a read that failed with HTTP 500 on another endpoint, at once', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b', { tier: 1 })]);
    t.executor.script('a', http500);
    t.executor.script('b', (_r, id) => ok(4242, id));
    await expect(t.pool.request('getSlot', [])).resolves.toBe(4242);
    expect([t.executor.countFor('a'), t.executor.countFor('b')]).toEqual([1, 1]);
    expect(t.clock.now()).toBe(0);
  });

  it('never resends sendTransaction after an ambiguous socket failure: AMBIGUOUS_DISPATCH after exactly one request', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b')]);
    t.executor.script('a', socketAfterWrite);
    t.executor.script('b', socketAfterWrite);
    const error: unknown = await t.pool.request('sendTransaction', tx).catch((e: unknown) => e);
    expect(isTransportError(error, 'AMBIGUOUS_DISPATCH')).toBe(true);
    expect(t.executor.received).toHaveLength(1);
    expect(error).toMatchObject({ method: 'sendTransaction', attempts: [{ dispatch: 'dispatched-ambiguous' }] });
  });

  it('sends sendTransaction to the peer after a provably unsent connect failure', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b', { tier: 1 })]);
    t.executor.script('a', connectRefused);
    t.executor.script('b', (_r, id) => ok('5ig', id));
    await expect(t.pool.request('sendTransaction', tx)).resolves.toBe('5ig');
    expect([t.executor.countFor('a'), t.executor.countFor('b')]).toEqual([1, 1]);
  });

  it('sends sendTransaction again after a 429, which the server rejected unprocessed', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b', { tier: 1 })]);
    t.executor.script('a', http429);
    t.executor.script('b', (_r, id) => ok('5ig', id));
    await expect(t.pool.request('sendTransaction', tx)).resolves.toBe('5ig');
    expect([t.executor.countFor('a'), t.executor.countFor('b')]).toEqual([1, 1]);
  });

  it('resends to a lone rate-limited endpoint only once its cooldown is over', async () => {
    const t = createTestPool([endpoint('a')]);
    const arrivals: number[] = [];
    t.executor.script('a', () => (arrivals.push(t.clock.now()), http429), (_r, id) => (arrivals.push(t.clock.now()), ok(7, id)));
    const call = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.advance(2_000);
    expect(call.value).toBe(7);
    expect(arrivals).toEqual([0, 1_000]);
  });

  it('never retries a deterministic invalid-params error: RPC_ERROR with the node code after one request', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b')]);
    t.executor.script('a', invalidParams);
    t.executor.script('b', invalidParams);
    const call = track(t.pool.request('getBalance', ['x']), t.clock);
    await t.clock.advance(5_000);
    expect(call.error).toMatchObject({ code: 'RPC_ERROR', rpcCode: -32602, rpcMessage: 'Invalid params: bad pubkey' });
    expect(call.atMs).toBe(0);
    expect(t.executor.received).toHaveLength(1);
  });

  it('makes exactly maxRetries + 1 attempts, then fails with the shared cause (HTTP_ERROR 500), backing off on the fake clock', async () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const t = createTestPool([endpoint('a')], { seed, retry: { maxRetries: 2, initialBackoffMs: 100, maxBackoffMs: 1_000 } });
      const arrivals: number[] = [];
      t.executor.script('a', () => (arrivals.push(t.clock.now()), http500));
      const call = track(t.pool.request('getSlot', []), t.clock);
      await t.clock.advance(1_000);
      expect(call.error).toMatchObject({ code: 'HTTP_ERROR', context: { status: 500 } });
      expect((call.error as { attempts: unknown[] }).attempts).toHaveLength(3);
      expect(t.executor.received).toHaveLength(3);
      const [first = NaN, second = NaN, third = NaN] = arrivals;
      expect(first).toBe(0);
      expect(second - first).toBe(100); // retry 1: [100, min(1000, 100·2^0)]
      expect(third - second).toBeGreaterThanOrEqual(100); // retry 2: [100, min(1000, 100·2^1)]
      expect(third - second).toBeLessThanOrEqual(200);
      expect(call.atMs).toBe(third);
    }
  });

  it('backs off before resending to the endpoint that just failed, even while a busy peer exists', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b', { maxConcurrentRequests: 1 })], {
      retry: { maxRetries: 2, initialBackoffMs: 100, maxBackoffMs: 1_000 },
    });
    await t.pool.acquireForRequestKind('read', { endpoint: 'b' }); // b stays busy
    const arrivals: number[] = [];
    t.executor.script('a', () => (arrivals.push(t.clock.now()), http500));
    const call = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.advance(1_000);
    expect(call.error).toMatchObject({ code: 'HTTP_ERROR' });
    expect(arrivals).toHaveLength(3);
    const gaps = arrivals.slice(1).map((at, i) => at - (arrivals[i] ?? NaN));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(100);
  });

  it('fails with RETRIES_EXHAUSTED, naming the last cause, when the attempts failed in different ways', async () => {
    const t = createTestPool([endpoint('a')], { retry: { maxRetries: 1, initialBackoffMs: 100, maxBackoffMs: 100 } });
    t.executor.script('a', http500, { type: 'error', kind: 'connect', dispatched: false });
    const call = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.advance(1_000);
    expect(call.error).toMatchObject({ code: 'RETRIES_EXHAUSTED', context: { lastCause: 'connection' } });
    expect(t.executor.received).toHaveLength(2);
  });

  it('keeps the transport error code as the cause, without the original error text', async () => {
    const t = createTestPool([endpoint('a')], { retry: { maxRetries: 0 } });
    t.executor.script('a', { ...connectRefused, error: new Error('getaddrinfo ENOTFOUND sk-SECRET.rpc.example.com') });
    const call = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.advance(0);
    const cause = (call.error as { cause?: Error & { code?: string } }).cause;
    expect(cause?.code).toBe('ECONNREFUSED');
    expect(String(cause?.message)).not.toContain('SECRET');
  });

  it('caps each backoff at maxBackoffMs', async () => {
    const t = createTestPool([endpoint('a')], { seed: 9, retry: { maxRetries: 4, initialBackoffMs: 100, maxBackoffMs: 150 } });
    const arrivals: number[] = [];
    t.executor.script('a', () => (arrivals.push(t.clock.now()), http500));
    const call = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.advance(2_000);
    expect(call.error).toMatchObject({ code: 'HTTP_ERROR' });
    const gaps = arrivals.slice(1).map((at, i) => at - (arrivals[i] ?? NaN));
    expect(gaps).toHaveLength(4);
    for (const gap of gaps) expect(gap >= 100 && gap <= 150).toBe(true);
  });
});

describe('pool.request cancellation and deadline', () => {
  it('fails a read aborted mid-flight with ABORTED at the instant of the abort', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b')]);
    t.executor.script('a', hangUntilAborted);
    t.executor.script('b', hangUntilAborted);
    const controller = new AbortController();
    const call = track(t.pool.request('getSlot', [], { signal: controller.signal }), t.clock);
    await t.clock.advance(50);
    controller.abort();
    await t.clock.flush();
    expect(call.atMs).toBe(50);
    expect(call.error).toMatchObject({ code: 'ABORTED' });
    expect(t.executor.received).toHaveLength(1);
    expect(t.clock.pendingTimers).toBe(0);
  });

  it('sends nothing and fails with ABORTED when the caller aborts right after calling request, before the attempt starts', async () => {
    const t = createTestPool([endpoint('a')]);
    const controller = new AbortController();
    const call = track(t.pool.request('sendTransaction', tx, { signal: controller.signal }), t.clock);
    controller.abort();
    await t.clock.advance(20_000);
    expect(call.error).toMatchObject({ code: 'ABORTED' });
    expect(call.atMs).toBe(0);
    expect(t.executor.received).toHaveLength(0);
  });

  it('sends nothing when the caller aborts in the same instant its waiting call is admitted', async () => {
    const t = createTestPool([endpoint('a', { maxConcurrentRequests: 1 })]);
    const held = await t.pool.acquireForRequestKind('read');
    const controller = new AbortController();
    const call = track(t.pool.request('getSlot', [], { signal: controller.signal }), t.clock);
    await t.clock.advance(10);
    held.release();
    controller.abort();
    await t.clock.advance(20_000);
    expect(call.error).toMatchObject({ code: 'ABORTED' });
    expect(call.atMs).toBe(10);
    expect(t.executor.received).toHaveLength(0);
  });

  it('reports a sendTransaction aborted after it was written as AMBIGUOUS_DISPATCH, never resending it', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b')]);
    t.executor.script('a', hangUntilAborted);
    t.executor.script('b', hangUntilAborted);
    const controller = new AbortController();
    const call = track(t.pool.request('sendTransaction', tx, { signal: controller.signal }), t.clock);
    await t.clock.advance(20);
    controller.abort();
    await t.clock.advance(1_000);
    expect(call.error).toMatchObject({ code: 'AMBIGUOUS_DISPATCH' });
    expect(t.executor.received).toHaveLength(1);
  });

  it('rejects with DEADLINE_EXCEEDED at exactly timeoutMs when the endpoint hangs, leaving no timer behind', async () => {
    const t = createTestPool([endpoint('a')]);
    t.executor.script('a', hangUntilAborted);
    const call = track(t.pool.request('getSlot', [], { timeoutMs: 300 }), t.clock);
    await t.clock.advance(299);
    expect(call.settled).toBe(false);
    await t.clock.advance(1);
    expect(call.atMs).toBe(300);
    expect(call.error).toMatchObject({ code: 'DEADLINE_EXCEEDED' });
    expect(t.clock.pendingTimers).toBe(0);
  });

  it('reports the whole call budget when a retry cannot be admitted before the deadline', async () => {
    const t = createTestPool(
      [endpoint('a', { maxConcurrentRequests: 1, requestTimeoutMs: 100 }), endpoint('b', { maxConcurrentRequests: 1 })],
      { retry: { maxRetries: 3, initialBackoffMs: 10, maxBackoffMs: 10 } },
    );
    await t.pool.acquireForRequestKind('read', { endpoint: 'b' }); // b is busy throughout
    t.executor.script('a', hangUntilAborted);
    const call = track(t.pool.request('getSlot', [], { timeoutMs: 500 }), t.clock);
    await t.clock.advance(100); // attempt 1 on a times out; the retry waits for a's backoff
    await t.pool.acquireForRequestKind('read', { endpoint: 'a' }); // and then a is busy too
    await t.clock.advance(400);
    expect(call.atMs).toBe(500);
    expect(call.error).toMatchObject({ code: 'DEADLINE_EXCEEDED', context: { timeoutMs: 500 } });
    expect((call.error as { attempts: unknown[] }).attempts).toHaveLength(1);
  });

  it('fails a call waiting in backoff with POOL_CLOSED on close() and stops the backoff timer', async () => {
    const t = createTestPool([endpoint('a')], { retry: { maxRetries: 3, initialBackoffMs: 500, maxBackoffMs: 500 } });
    t.executor.script('a', http500);
    const call = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.advance(100);
    expect(t.executor.received).toHaveLength(1);
    await t.pool.close();
    await t.clock.flush();
    expect(call.error).toMatchObject({ code: 'POOL_CLOSED' });
    expect(t.clock.pendingTimers).toBe(0);
    await t.clock.advance(10_000);
    expect(t.executor.received).toHaveLength(1);
  });

  it('fails a call in flight with POOL_CLOSED on close() and stops its timers', async () => {
    const t = createTestPool([endpoint('a')]);
    t.executor.script('a', hangUntilAborted);
    const call = track(t.pool.request('getSlot', [], { timeoutMs: 5_000 }), t.clock);
    await t.clock.advance(10);
    await t.pool.close();
    await t.clock.flush();
    expect(call.atMs).toBe(10);
    expect(call.error).toMatchObject({ code: 'POOL_CLOSED' });
    expect(t.clock.pendingTimers).toBe(0);
  });
});
