import { describe, expect, it } from 'vitest';
import { isTransportError, type TransportError } from '../../src/errors/transport-error.js';
import type { RawOutcome } from '../../src/http/executor.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createTestPool, endpoint, track } from './pool-fixtures.js';

/**
 * When no endpoint can take a call (or its retry) before the deadline — every one is
 * cooling down or backing off until after it — the call fails now, with the real cause,
 * instead of sleeping until the deadline and reporting DEADLINE_EXCEEDED.
 */

const tooMany = (retryAfterS: number): RawOutcome => ({ type: 'response', status: 429, headers: { 'retry-after': String(retryAfterS) }, body: 'Too Many Requests' });
const http503: RawOutcome = { type: 'response', status: 503, headers: {}, body: '<html>503</html>' };
const ok = (id: number): RawOutcome => ({ type: 'response', status: 200, headers: {}, body: JSON.stringify({ jsonrpc: '2.0', id, result: 7 }) });

describe('a 429 storm whose Retry-After outlasts the deadline', () => {
  it('fails at once with RATE_LIMITED and the provider’s remaining delay, after one request per endpoint', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b')], { retry: { maxRetries: 3, initialBackoffMs: 10, maxBackoffMs: 20 } });
    t.executor.script('a', tooMany(30));
    t.executor.script('b', tooMany(30));
    const call = track(t.pool.request('getSlot', [], { timeoutMs: 10_000 }), t.clock);
    await t.clock.advance(0);
    expect(call.atMs).toBe(0);
    expect(call.error).toMatchObject({ code: 'RATE_LIMITED', context: { retryAfterMs: 30_000 } });
    expect((call.error as TransportError).attempts.map((a) => a.cause)).toEqual(['rate-limited', 'rate-limited']);
    expect(t.executor.received).toHaveLength(2);
  });

  it('under the default deadline (20 s here) and settings, three endpoints with long and different Retry-Afters: RATE_LIMITED at once with the earliest retry time', async () => {
    const t = createTestPool([endpoint('a'), endpoint('b'), endpoint('c')]);
    t.executor.script('a', tooMany(45));
    t.executor.script('b', tooMany(25));
    t.executor.script('c', tooMany(120));
    const call = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.advance(0);
    expect(call.atMs).toBe(0);
    expect(call.error).toMatchObject({ code: 'RATE_LIMITED', context: { retryAfterMs: 25_000 } });
    expect(t.executor.received).toHaveLength(3);
    // And the next read, still inside every cooldown, sends nothing and names the earliest end.
    await t.clock.advance(2_000);
    const next = track(t.pool.request('getSlot', []), t.clock);
    await t.clock.advance(0);
    expect(next.error).toMatchObject({ code: 'RATE_LIMITED', context: { retryAfterMs: 23_000 }, attempts: [] });
    expect(t.executor.received).toHaveLength(3);
  });

  it('a later call while every endpoint still cools down fails at once with what is left of the delay, sending nothing', async () => {
    const t = createTestPool([endpoint('a')], { retry: { maxRetries: 0 } });
    t.executor.script('a', tooMany(30));
    const first = track(t.pool.request('getSlot', [], { timeoutMs: 10_000 }), t.clock);
    await t.clock.advance(12_000);
    expect(first.error).toMatchObject({ code: 'RATE_LIMITED' });

    const second = track(t.pool.request('getSlot', [], { timeoutMs: 10_000 }), t.clock);
    await t.clock.advance(0);
    expect(second.atMs).toBe(12_000);
    expect(second.error).toMatchObject({ code: 'RATE_LIMITED', context: { retryAfterMs: 18_000 }, attempts: [] });
    expect(t.executor.received).toHaveLength(1);
  });

  it('still waits when the cooldown ends inside the deadline, and is served then', async () => {
    const t = createTestPool([endpoint('a')], { retry: { maxRetries: 3, initialBackoffMs: 10, maxBackoffMs: 20 } });
    t.executor.script('a', tooMany(2), (_request, id) => ok(id));
    const call = track(t.pool.request('getSlot', [], { timeoutMs: 10_000 }), t.clock);
    await t.clock.advance(1_999);
    expect(call.settled).toBe(false);
    await t.clock.advance(1);
    expect(call.value).toBe(7);
    expect(call.atMs).toBe(2_000);
  });

  it('waits (no early failure) while another endpoint is only busy: a permit may come back at any moment', async () => {
    const t = createTestPool([endpoint('a', { maxConcurrentRequests: 1 }), endpoint('b')], { retry: { maxRetries: 0 } });
    t.executor.script('b', tooMany(30));
    const permit = await t.pool.acquireForRequestKind('read', { endpoint: 'a', timeoutMs: 100 });
    const first = track(t.pool.request('getSlot', [], { timeoutMs: 5_000 }), t.clock);
    await t.clock.advance(0);
    expect(first.error).toMatchObject({ code: 'RATE_LIMITED' }); // b answered 429; a was busy

    t.executor.script('a', (_request, id) => ok(id));
    const second = track(t.pool.request('getSlot', [], { timeoutMs: 5_000 }), t.clock);
    await t.clock.advance(1_000);
    expect(second.settled).toBe(false);
    permit.release();
    await t.clock.advance(0);
    expect(second.value).toBe(7);
  });
});

describe('a retry whose backoff would end after the deadline', () => {
  it('a lone endpoint answering 503 ends HTTP_ERROR with the attempt, not DEADLINE_EXCEEDED', async () => {
    const t = createTestPool([endpoint('a')], { retry: { maxRetries: 3, initialBackoffMs: 500, maxBackoffMs: 500 } });
    t.executor.script('a', http503);
    const call = track(t.pool.request('getSlot', [], { timeoutMs: 300 }), t.clock);
    await t.clock.advance(0);
    expect(call.atMs).toBe(0);
    expect(call.error).toMatchObject({ code: 'HTTP_ERROR', context: { status: 503 }, endpointId: 'a' });
    expect((call.error as TransportError).attempts).toHaveLength(1);
  });

  it('fails over to a healthy peer at once: the backoff only guards the endpoint that failed', async () => {
    const t = createTestPool([endpoint('a', { tier: 0 }), endpoint('b', { tier: 1 })], { retry: { maxRetries: 3, initialBackoffMs: 5_000, maxBackoffMs: 5_000 } });
    t.executor.script('a', http503);
    t.executor.script('b', (_request, id) => ok(id));
    const call = track(t.pool.request('getSlot', [], { timeoutMs: 1_000 }), t.clock);
    await t.clock.advance(0);
    expect(call.value).toBe(7);
    expect(t.executor.received.map((r) => r.endpointId)).toEqual(['a', 'b']);
  });
});

describe('header values that would break the request line', () => {
  it.each([
    ['CR LF', 'Bearer hv_k3y\r\nX-Injected: 1'],
    ['LF', 'hv_k3y-token\nmore'],
    ['NUL', 'hv_k3y\0token'],
  ])('a value with %s is INVALID_CONFIG naming endpoints[i].headers.<name>, never showing the value', (_, value) => {
    let error: unknown;
    try {
      new HttpTransportPool({ endpoints: [{ url: 'https://a.example.com' }, { url: 'https://b.example.com', headers: { 'x-api-key': value } }] });
    } catch (e) {
      error = e;
    }
    expect(isTransportError(error, 'INVALID_CONFIG')).toBe(true);
    const config = error as TransportError<'INVALID_CONFIG'>;
    expect(config.context.issues.map((i) => i.path)).toEqual(['endpoints[1].headers.x-api-key']);
    expect(config.message).not.toContain('hv_k3y');
    expect(JSON.stringify(config.context)).not.toContain('hv_k3y');
  });

  it('a header name that is no HTTP token is INVALID_CONFIG too', () => {
    expect(() => new HttpTransportPool({ endpoints: [{ url: 'https://a.example.com', headers: { 'bad name': 'x' } }] })).toThrow(/endpoints\[0\]\.headers/);
  });
});
