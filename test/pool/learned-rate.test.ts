import { describe, expect, it } from 'vitest';
import type { RawOutcome } from '../../src/http/executor.js';
import { TransportError } from '../../src/errors/transport-error.js';
import type { RateLearnedEvent } from '../../src/api/events.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { idOf, ok, type Script } from '../helpers/scripted-executor.js';
import { createTestPool, endpoint, url } from './pool-fixtures.js';

const infura429 = (rate: Record<string, number>): Script => (request) =>
  ({
    type: 'response',
    status: 429,
    headers: {},
    body: JSON.stringify({ jsonrpc: '2.0', id: idOf(request), error: { code: -32005, message: 'project ID request rate exceeded', data: { rate } } }),
  }) as RawOutcome;
const plain429: Script = (request) =>
  ({ type: 'response', status: 429, headers: {}, body: JSON.stringify({ jsonrpc: '2.0', id: idOf(request), error: { code: -32005, message: 'rate limit' } }) }) as RawOutcome;
const readRole = (pool: HttpTransportPool) => pool.snapshot().roles.find((role) => role.kind === 'read')!;

describe("requestsPerSecond: 'auto'", () => {
  it("starts at its `start`, admits at the learned rate, and shows it in the snapshot", async () => {
    const t = createTestPool([endpoint('a', { requestsPerSecond: { auto: { start: 5, min: 2, max: 50 } } })], { retry: { maxRetries: 0 } });
    expect(readRole(t.pool).learnedRequestsPerSecond).toBe(5);
    // A burst of one second of the learned rate: 5 calls now, the sixth waits for a token (200 ms).
    const calls = Array.from({ length: 6 }, (_, i) => t.pool.request('getBalance', [`account-${i}`], { timeoutMs: 5_000 }));
    await t.clock.advance(0);
    expect(t.executor.countFor('a')).toBe(5);
    await t.clock.advance(200);
    expect(t.executor.countFor('a')).toBe(6);
    await Promise.all(calls);
    await t.pool.close();
  });

  it("takes Infura's allowed_rps as the learned rate, and says so in an event", async () => {
    const t = createTestPool([endpoint('a', { requestsPerSecond: 'auto' })], { retry: { maxRetries: 0 } });
    const events: RateLearnedEvent[] = [];
    t.pool.on('rate-learned', (event) => events.push(event));
    t.executor.script('a', infura429({ allowed_rps: 7, backoff_seconds: 1, current_rps: 9 }), (request) => ok(1, idOf(request)));
    await t.pool.request('getSlot', []).catch(() => undefined);
    expect(readRole(t.pool).learnedRequestsPerSecond).toBe(7);
    expect(events).toEqual([{ atMs: expect.any(Number), endpointId: 'a', kind: 'read', fromRps: 20, toRps: 7, reason: 'provider-hint' }]);
    await t.pool.close();
  });

  it('a rate limit with a provider delay leaves the learned rate alone (the cooldown paces it); one without lowers it, with no pause', async () => {
    const t = createTestPool([endpoint('a', { requestsPerSecond: 'auto' })], { retry: { maxRetries: 0 } });
    t.executor.script('a', infura429({ backoff_seconds: 2 }), plain429, (request) => ok(1, idOf(request)));
    await t.pool.request('getSlot', []).catch(() => undefined);
    expect(readRole(t.pool).learnedRequestsPerSecond).toBe(20);
    expect(readRole(t.pool).cooldownRemainingMs).toBe(2_000);
    await t.clock.advance(2_000);
    await t.pool.request('getSlot', []).catch(() => undefined);
    expect(readRole(t.pool).learnedRequestsPerSecond).toBe(18);
    // The learned rate answered that 429: the role admits the next call at once.
    expect(readRole(t.pool).cooldownRemainingMs).toBe(0);
    await expect(t.pool.request('getSlot', [], { timeoutMs: 10 })).resolves.toBe(1);
    await t.pool.close();
  });

  it('a 429 with a limit and its window in the headers sets the learned rate; X-RateLimit-Remaining 0 with a reset is a delay', async () => {
    const t = createTestPool([endpoint('a', { requestsPerSecond: 'auto' })], { retry: { maxRetries: 0 } });
    t.executor.script(
      'a',
      { type: 'response', status: 429, headers: { 'ratelimit-limit': '30;w=2' }, body: 'slow down' },
      { type: 'response', status: 429, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '4' }, body: 'slow down' },
      (request) => ok(1, idOf(request)),
    );
    await t.pool.request('getSlot', []).catch(() => undefined);
    expect(readRole(t.pool).learnedRequestsPerSecond).toBe(15);
    await t.clock.advance(1_000);
    await t.pool.request('getSlot', []).catch(() => undefined);
    expect(readRole(t.pool).learnedRequestsPerSecond).toBe(15);
    expect(readRole(t.pool).cooldownRemainingMs).toBe(4_000);
    await t.pool.close();
  });

  it('a role with no rate is never throttled until its provider refuses it, then learns from the rate it was answered at', async () => {
    const t = createTestPool([endpoint('a')], { retry: { maxRetries: 0 }, coalesce: false });
    const events: RateLearnedEvent[] = [];
    t.pool.on('rate-learned', (event) => events.push(event));
    // 200 calls at once: no limit, all sent now.
    await Promise.all(Array.from({ length: 200 }, () => t.pool.request('getSlot', [])));
    expect(t.executor.countFor('a')).toBe(200);
    expect(readRole(t.pool).learnedRequestsPerSecond).toBeUndefined();
    await t.clock.advance(4_000);
    // A 429 that names no delay: learning starts at the rate answered so far (200 over 4 s).
    t.executor.script('a', plain429, (request) => ok(1, idOf(request)));
    await t.pool.request('getSlot', []).catch(() => undefined);
    expect(events).toEqual([{ atMs: 4_000, endpointId: 'a', kind: 'read', fromRps: Number.POSITIVE_INFINITY, toRps: 50, reason: 'rate-limited' }]);
    expect(readRole(t.pool).learnedRequestsPerSecond).toBe(50);
    await t.pool.close();
  });

  it('a role with no rate keeps no limit after a rate limit that names its delay (the cooldown paces it)', async () => {
    const t = createTestPool([endpoint('a')], { retry: { maxRetries: 0 } });
    t.executor.script('a', infura429({ backoff_seconds: 2 }), (request) => ok(1, idOf(request)));
    await t.pool.request('getSlot', []).catch(() => undefined);
    expect(readRole(t.pool).learnedRequestsPerSecond).toBeUndefined();
    expect(readRole(t.pool).tokens).toBeUndefined();
    await t.pool.close();
  });

  it('a fixed rate and no rate learn nothing', async () => {
    const t = createTestPool([endpoint('a', { requestsPerSecond: 5 }), endpoint('b')]);
    expect(t.pool.snapshot().roles.map((role) => role.learnedRequestsPerSecond)).toEqual([undefined, undefined, undefined, undefined]);
    await t.pool.close();
  });

  it.each([
    [{ requestsPerSecond: 'fast' }, "endpoints[0].requestsPerSecond: must be a number > 0, 'auto' or { auto: { min?, max?, start? } }"],
    [{ requestsPerSecond: -1 }, 'endpoints[0].requestsPerSecond: must be > 0'],
    [{ requestsPerSecond: Number.NaN }, 'endpoints[0].requestsPerSecond: must be a number'],
    [{ requestsPerSecond: { auto: { min: 10, max: 5 } } }, 'endpoints[0].requestsPerSecond.auto: min must be <= max'],
    [{ requestsPerSecond: { auto: { start: 0 } } }, 'endpoints[0].requestsPerSecond.auto.start: must be > 0'],
    [{ requestsPerSecond: { auto: { speed: 1 } } }, 'endpoints[0].requestsPerSecond.auto: unknown option (speed)'],
    [{ requestsPerSecond: 'auto', burstCapacity: 10 }, "endpoints[0].burstCapacity: must not be set with requestsPerSecond 'auto' (its burst is one second of the learned rate)"],
    [{ roles: { read: { requestsPerSecond: 'auto', burstCapacity: 3 } } }, "endpoints[0].roles.read.burstCapacity: must not be set with requestsPerSecond 'auto' (its burst is one second of the learned rate)"],
  ])('rejects %j with INVALID_CONFIG, before anything is sent', (settings, message) => {
    let error: unknown;
    try {
      new HttpTransportPool({ endpoints: [{ url: url('a'), ...(settings as object) }] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).code).toBe('INVALID_CONFIG');
    expect((error as TransportError).message).toContain(message);
  });
});
