import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import type { EndpointConfig, HttpTransportPoolOptions } from '../../src/config/types.js';
import { isTransportError, type TransportError } from '../../src/errors/transport-error.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { createScriptedExecutor } from '../helpers/scripted-executor.js';
import { createTestPool, endpoint, roleOf, track } from '../pool/pool-fixtures.js';

const KEYED_URL = 'https://sk9f8e7d6c5b4a.mainnet.example-rpc.com/v2/KEYPATH123456?api-key=QUERYKEY98765';
const FRAGMENTS = [KEYED_URL, 'sk9f8e7d6c5b4a', 'KEYPATH123456', 'QUERYKEY98765', 'mainnet.example-rpc.com'];

/** Builds a pool and returns the INVALID_CONFIG error it throws (failing the test if it does not). */
function configError(options: Omit<HttpTransportPoolOptions, 'executor' | 'clock'> | Record<string, unknown>): TransportError<'INVALID_CONFIG'> {
  const executor = createScriptedExecutor();
  try {
    new HttpTransportPool({ ...(options as HttpTransportPoolOptions), executor, clock: createFakeClock() });
  } catch (error) {
    expect(executor.received).toHaveLength(0);
    if (isTransportError(error, 'INVALID_CONFIG')) return error;
    throw error;
  }
  throw new Error('expected INVALID_CONFIG');
}

const at = (index: number, settings: Partial<EndpointConfig>): EndpointConfig[] =>
  Array.from({ length: index + 1 }, (_, i) => ({ url: KEYED_URL, id: `e${i}`, ...(i === index ? settings : {}) }));

describe('INVALID_CONFIG', () => {
  it('names the field path of a bad value', () => {
    const error = configError({ endpoints: at(2, { requestsPerSecond: 0 }) });
    expect(error.message).toContain('endpoints[2].requestsPerSecond: must be > 0');
    expect(error.context.issues).toEqual([{ path: 'endpoints[2].requestsPerSecond', message: 'must be > 0' }]);
  });

  it('rejects an integrity switch that is no boolean', () => {
    const error = configError({ endpoints: at(0, {}), integrity: 'yes' });
    expect(error.context.issues).toEqual([{ path: 'integrity', message: 'must be a boolean or { reorgWindowBlocks? }' }]);
    expect(configError({ endpoints: at(0, {}), integrity: { reorgWindowBlocks: 0 } }).context.issues.map((issue) => issue.path)).toEqual(['integrity.reorgWindowBlocks']);
  });

  it('rejects a subscriptions backfill that is neither a boolean nor positive bounds', () => {
    expect(configError({ endpoints: at(0, {}), subscriptions: { backfill: 'on' } }).context.issues).toEqual([{ path: 'subscriptions.backfill', message: 'must be a boolean or { maxBlocks?, maxMs? }' }]);
    expect(configError({ endpoints: at(0, {}), subscriptions: { backfill: { maxBlocks: 0, maxMs: 0 } } }).context.issues.map((issue) => issue.path)).toEqual([
      'subscriptions.backfill.maxBlocks',
      'subscriptions.backfill.maxMs',
    ]);
  });

  it('rejects duplicate endpoint ids, naming both positions', () => {
    const error = configError({ endpoints: [{ id: 'main', url: KEYED_URL }, { id: 'main', url: 'https://rpc.example.org/KEYPATH123456' }] });
    expect(error.message).toContain('endpoints[1].id');
    expect(error.message).toContain("duplicate endpoint id 'main'");
    expect(error.message).toContain('endpoints[0]');
  });

  it('rejects an empty endpoint list and a missing one', () => {
    expect(configError({ endpoints: [] }).message).toContain('endpoints: must contain at least one endpoint');
    expect(configError({}).message).toContain('endpoints:');
  });

  it.each([
    ['maxConcurrentRequests', -1, 'must be > 0'],
    ['requestTimeoutMs', -5, 'must be > 0'],
    ['pauseAfterRateLimitMs', -1, 'must be >= 0'],
    ['tier', -1, 'must be >= 0'],
    ['requestsPerSecond', -3, 'must be > 0'],
  ] as const)('rejects a negative %s', (field, value, message) => {
    expect(configError({ endpoints: at(1, { [field]: value }) }).message).toContain(`endpoints[1].${field}: ${message}`);
  });

  it('rejects a burst below one token', () => {
    expect(configError({ endpoints: at(0, { requestsPerSecond: 0.5, burstCapacity: 0.5 }) }).message).toContain(
      'endpoints[0].burstCapacity: must be >= 1',
    );
  });

  it.each(['ftp://user:PASSWORD4242@sk9f8e7d6c5b4a.example.com/KEYPATH123456', 'not a url KEYPATH123456', ''])(
    'rejects a non-http(s) URL without echoing it: %s',
    (url) => {
      const error = configError({ endpoints: [{ url }] });
      expect(error.message).toContain('endpoints[0].url: must be an http(s) URL');
      for (const secret of ['PASSWORD4242', 'sk9f8e7d6c5b4a', 'KEYPATH123456']) expect(error.message).not.toContain(secret);
    },
  );

  it('rejects unknown option keys at every level, by name', () => {
    const error = configError({ endpoints: [{ url: KEYED_URL, rps: 5, roles: { submit: { burst: 1 } } }], retries: 3 });
    expect(error.message).toContain('endpoints[0]: unknown option (rps)');
    expect(error.message).toContain('endpoints[0].roles.submit: unknown option (burst)');
    expect(error.message).toContain('(root): unknown option (retries)');
  });

  it('rejects per-role overrides for a kind the endpoint does not serve', () => {
    const error = configError({ endpoints: [{ url: KEYED_URL, kinds: ['read'], roles: { submit: { requestsPerSecond: 1 } } }] });
    expect(error.message).toContain("endpoints[0].roles.submit: kind 'submit' is not in endpoints[0].kinds");
  });

  it("words checks that carry no message of ours in zod's English, whatever locale the application gave zod", () => {
    // The application's own zod setting (global to every copy of zod/v4 core); restored after.
    const before = z.config().localeError;
    z.config(z.locales.de());
    try {
      const reputation = configError({ endpoints: at(0, {}), reputation: { initialScore: 200, granularity: 'per-host' } });
      expect(reputation.context.issues).toEqual([
        { path: 'reputation.granularity', message: 'Invalid option: expected one of "per-url"|"per-endpoint"|"per-domain"' },
        { path: 'reputation.initialScore', message: 'Too big: expected number to be <=100' },
      ]);
      const methods = configError({ endpoints: at(0, {}), methods: { '': { kind: 'read', retryClass: 'idempotent' } } });
      expect(methods.context.issues).toEqual([{ path: 'methods.', message: 'Invalid key in record' }]);
    } finally {
      z.config({ localeError: before });
    }
  });

  it('never puts the URL or its secret parts into the message, context or stack', () => {
    const bad = [
      { endpoints: at(2, { requestsPerSecond: 0 }) },
      { endpoints: [{ url: KEYED_URL, id: 'x' }, { url: KEYED_URL, id: 'x' }] },
      { endpoints: [{ url: KEYED_URL, kinds: ['read'], roles: { submit: {} } }] },
      { endpoints: [{ url: KEYED_URL, headers: { 'x-api-key': 42 } }] },
    ];
    for (const options of bad) {
      const error = configError(options);
      const rendered = [error.message, JSON.stringify(error), String(error.stack)].join('\n');
      for (const fragment of FRAGMENTS) expect(rendered).not.toContain(fragment);
    }
  });
});

describe('config defaults', () => {
  it('defaults the burst to one second of RPS, and to one token below 1 rps', () => {
    const { pool } = createTestPool([endpoint('a', { requestsPerSecond: 7 }), endpoint('b', { requestsPerSecond: 0.25 })]);
    expect(roleOf(pool, 'a')).toMatchObject({ requestsPerSecond: 7, burstCapacity: 7, tokens: 7 });
    expect(roleOf(pool, 'b')).toMatchObject({ requestsPerSecond: 0.25, burstCapacity: 1, tokens: 1 });
  });

  it('defaults the request timeout to 10 000 ms, and so the call deadline to 20 000 ms (room for one more attempt)', async () => {
    const t = createTestPool([endpoint('a', { maxConcurrentRequests: 1 })]);
    await t.pool.acquireForRequestKind('read');
    const waiter = track(t.pool.acquireForRequestKind('read'), t.clock);
    await t.clock.advance(19_999);
    expect(waiter.settled).toBe(false);
    await t.clock.advance(1);
    expect(waiter.error).toMatchObject({ code: 'DEADLINE_EXCEEDED' });
  });

  it('defaults the pause after a rate limit to 1 000 ms', async () => {
    const { pool } = createTestPool([endpoint('a')]);
    const permit = await pool.acquireForRequestKind('read');
    permit.recordRateLimited();
    permit.release();
    expect(roleOf(pool, 'a').cooldownRemainingMs).toBe(1_000);
  });

  it('defaults the tier to 0 and the kinds to read and submit', () => {
    const { pool } = createTestPool([endpoint('a')]);
    expect(pool.snapshot().roles.map((r) => [r.kind, r.tier])).toEqual([
      ['read', 0],
      ['submit', 0],
    ]);
  });

  it('names endpoints <eTLD+1>-<index>, never from the subdomain, path, query or userinfo', () => {
    const { pool } = createTestPool([
      { url: KEYED_URL },
      { url: 'https://rpc.example.org/v2/KEYPATH123456' },
      { url: 'https://user:PASSWORD4242@rpc.example.io/' },
      { url: 'https://solana-mainnet.g.alchemy.com/v2/abc' },
      { url: 'https://x.example.co.uk/', id: 'mine' },
    ]);
    const ids = pool.snapshot().endpoints.map((e) => e.endpointId);
    expect(ids).toEqual(['example-rpc.com-0', 'example.org-1', 'example.io-2', 'alchemy.com-3', 'mine']);
    for (const id of ids) for (const secret of [...FRAGMENTS, 'PASSWORD4242', 'solana-mainnet', 'rpc.example']) expect(id).not.toContain(secret);
  });
});
