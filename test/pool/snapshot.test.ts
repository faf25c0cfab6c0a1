import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import type { EndpointConfig } from '../../src/config/types.js';
import type { PoolEventName } from '../../src/api/events.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { createScriptedExecutor, type Script } from '../helpers/scripted-executor.js';
import { createTestPool, endpoint, roleOf, track } from './pool-fixtures.js';

describe('snapshot content', () => {
  it('shows per role its tier, availability, limits, tokens now, in flight, cooldown and counters, and per endpoint its operator', async () => {
    const t = createTestPool([
      endpoint('a', { tier: 0, requestsPerSecond: 10, burstCapacity: 20, maxConcurrentRequests: 4, operator: 'acme' }),
      endpoint('b', { tier: 1, kinds: ['read'] }),
    ]);
    const pinned = () => t.pool.acquireForRequestKind('read', { endpoint: 'a' });
    const [p1, p2, p3] = [await pinned(), await pinned(), await pinned(), await pinned()]; // the 4th stays in flight
    p1.recordSuccess(12);
    p1.release();
    p2.recordFailure('temporary-http');
    p2.release();
    p3.recordRateLimited(1_500);
    p3.release();
    await t.clock.advance(100);
    const snapshot = t.pool.snapshot();
    expect(snapshot.closed).toBe(false);
    expect(snapshot.endpoints.map((e) => [e.endpointId, e.operator])).toEqual([
      ['a', 'acme'],
      ['b', 'example.com'],
    ]);
    const a = roleOf(t.pool, 'a');
    expect(a).toMatchObject({
      endpointId: 'a',
      kind: 'read',
      tier: 0,
      availability: 'rate-limited',
      requestsPerSecond: 10,
      burstCapacity: 20,
      maxConcurrentRequests: 4,
      inFlight: 1,
      cooldownRemainingMs: 1_400,
      successes: 1,
      failures: 1,
      rateLimits: 1,
    });
    expect(a.tokens).toBeCloseTo(20 - 4 + 100 * 0.01, 9);
    expect(roleOf(t.pool, 'a', 'submit')).toMatchObject({ tokens: 20, inFlight: 0, successes: 0, availability: 'available' });
    expect(roleOf(t.pool, 'b')).toMatchObject({
      tier: 1,
      requestsPerSecond: undefined,
      burstCapacity: undefined,
      tokens: undefined,
      maxConcurrentRequests: undefined,
      inFlight: 0,
      cooldownRemainingMs: 0,
    });
    expect(snapshot.roles.map((r) => `${r.endpointId}/${r.kind}`)).toEqual(['a/read', 'a/submit', 'b/read']);
    await t.pool.close();
    expect(t.pool.snapshot().closed).toBe(true);
  });
});

const SECRET_URLS = [
  'https://sk9f8e7d6c5b4a.mainnet.example-rpc.com',
  'https://rpc.example.org/v2/KEYPATH123456',
  'https://rpc.example.net/?api-key=QUERYKEY98765',
  'https://user:PASSWORD4242@rpc.example.io/',
  'https://rpc.example.dev/',
];
const SECRETS = [
  ...SECRET_URLS.slice(0, 4),
  'sk9f8e7d6c5b4a',
  'sk9f8e7d6c5b4a.mainnet.example-rpc.com',
  'KEYPATH123456',
  'v2/KEYPATH123456',
  'QUERYKEY98765',
  'api-key=QUERYKEY98765',
  'PASSWORD4242',
  'user:PASSWORD4242',
  'HEADERSECRET777',
];
const secretConfig = (): EndpointConfig[] =>
  SECRET_URLS.map((url, i) => ({ url, ...(i === 4 ? { headers: { 'x-api-key': 'HEADERSECRET777' } } : {}) }));

/** Every secret fragment found in the texts or in any rendering of the errors. */
function leaksIn(texts: string[], errors: readonly unknown[]): string[] {
  const all = [...texts];
  for (const error of errors) {
    const e = error as Error & { attempts?: unknown; context?: unknown };
    all.push(e.message, JSON.stringify(e), String(e.stack), JSON.stringify(e.attempts), JSON.stringify(e.context), String(e), inspect(e, { depth: 8 }));
  }
  return all.flatMap((text) => SECRETS.filter((secret) => text.includes(secret)).map((secret) => `${secret} in ${text.slice(0, 160)}`));
}

describe('secrets never leave the pool', () => {
  it('keeps URLs, keys and header values out of snapshots, events, errors, attempts and contexts', async () => {
    const clock = createFakeClock();
    const executor = createScriptedExecutor();
    const pool = new HttpTransportPool({
      endpoints: secretConfig(),
      retry: { maxRetries: 1, initialBackoffMs: 10, maxBackoffMs: 10 },
      executor,
      clock,
      random: createSeededRandom(3),
    });
    const ids = pool.snapshot().endpoints.map((e) => e.endpointId);
    expect(ids).toEqual(['example-rpc.com-0', 'example.org-1', 'example.net-2', 'example.io-3', 'example.dev-4']);

    const seen: string[] = [];
    const names: PoolEventName[] = ['attempt', 'success', 'failure', 'rate-limited', 'cooldown', 'breaker', 'reshape', 'reputation'];
    for (const name of names) pool.on(name, (event) => seen.push(JSON.stringify(event)));
    const errors: unknown[] = [];
    /** Runs a call to completion, advancing the fake clock as needed, and keeps its error. */
    const capture = async (promise: Promise<unknown>) => {
      const call = track(promise, clock);
      for (let i = 0; i < 100 && !call.settled; i++) await clock.advance(100);
      if (call.error !== undefined) errors.push(call.error);
    };
    const echo: Script = (_r, id) => ({
      type: 'response',
      status: 200,
      headers: {},
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        error: { code: -32602, message: `bad key QUERYKEY98765 for ${SECRET_URLS[2]}`, data: { url: SECRET_URLS[1], header: 'HEADERSECRET777' } },
      }),
    });
    const hang: Script = (request) =>
      new Promise((resolve) => request.signal.addEventListener('abort', () => resolve({ type: 'error', kind: 'aborted', dispatched: true })));

    // Successes on every endpoint.
    for (let i = 0; i < 5; i++) await pool.request('getSlot', []);
    // Failures: 500s until retries run out, 429 with Retry-After, a node error that echoes secrets.
    for (const id of ids) executor.script(id, { type: 'response', status: 500, headers: {}, body: `oops ${SECRET_URLS[0]}` });
    await capture(pool.request('getSlot', []));
    for (const id of ids) executor.script(id, { type: 'response', status: 429, headers: { 'retry-after': '2' }, body: 'slow' });
    await capture(pool.request('getSlot', [], { endpoint: ids[3] as string }));
    await clock.advance(3_000);
    for (const id of ids) executor.script(id, echo);
    await capture(pool.request('getBalance', ['x'], { endpoint: ids[2] as string }));
    // Ambiguous send, deadline in flight, abort, rate limits and deadline in admission.
    for (const id of ids) executor.script(id, { type: 'error', kind: 'socket', dispatched: true, error: new Error(`reset ${SECRET_URLS[3]}`) });
    await capture(pool.request('sendTransaction', ['AQID'], { endpoint: ids[1] as string }));
    for (const id of ids) executor.script(id, hang);
    await capture(pool.request('getSlot', [], { timeoutMs: 200 }));
    const controller = new AbortController();
    const aborted = pool.request('getSlot', [], { signal: controller.signal });
    await clock.flush();
    controller.abort();
    await capture(aborted);
    for (const id of ids) {
      const permit = await pool.acquireForRequestKind('read', { endpoint: id });
      permit.recordRateLimited(5_000);
      permit.release();
      seen.push(inspect(permit, { depth: 5 }));
    }
    await capture(pool.acquireForRequestKind('read', { timeoutMs: 50 }));
    await capture(pool.acquireForRequestKind('read', { endpoint: 'no-such-endpoint' }));
    // Invalid configs that carry the secret URLs.
    const badConfigs: EndpointConfig[][] = [
      secretConfig().map((e) => ({ ...e, id: 'same' })),
      secretConfig().map((e) => ({ ...e, requestsPerSecond: -1 })),
      [{ url: 'ftp://user:PASSWORD4242@sk9f8e7d6c5b4a.example.com/KEYPATH123456' }],
      [{ url: 'not a url KEYPATH123456' }],
    ];
    for (const endpoints of badConfigs) {
      await capture(Promise.resolve().then(() => new HttpTransportPool({ endpoints, executor, clock })));
    }

    expect(errors.map((e) => (e as { code?: string } | undefined)?.code).sort()).toEqual(
      [
        'HTTP_ERROR', // every attempt answered 500
        'RATE_LIMITED', // every attempt rate limited
        'RPC_ERROR',
        'AMBIGUOUS_DISPATCH',
        'DEADLINE_EXCEEDED',
        'ABORTED',
        'DEADLINE_EXCEEDED',
        'NO_ENDPOINT',
        'INVALID_CONFIG',
        'INVALID_CONFIG',
        'INVALID_CONFIG',
        'INVALID_CONFIG',
      ].sort(),
    );
    expect(seen.some((s) => s.includes('"failure"') || s.includes('"cause"'))).toBe(true);
    expect(seen.some((s) => s.includes('rate-limited'))).toBe(true);
    expect(leaksIn([JSON.stringify(pool.snapshot()), ...seen], errors)).toEqual([]);
  });

  it('does not echo a configured URL that a caller passed by mistake as the endpoint pin', async () => {
    const pool = new HttpTransportPool({ endpoints: secretConfig(), executor: createScriptedExecutor(), clock: createFakeClock() });
    const errors: unknown[] = [];
    for (const url of SECRET_URLS) {
      await pool.acquireForRequestKind('read', { endpoint: url }).catch((e: unknown) => errors.push(e));
      await pool.request('getSlot', [], { endpoint: url }).catch((e: unknown) => errors.push(e));
    }
    expect(errors.map((e) => (e as { code?: string }).code)).toEqual(Array(10).fill('NO_ENDPOINT'));
    expect(leaksIn([], errors)).toEqual([]);
  });
});
