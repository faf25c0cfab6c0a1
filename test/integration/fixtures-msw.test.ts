import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { TransportError } from '../../src/errors/transport-error.js';
import { evmChainOf } from '../../src/evm/chains.js';
import { createEvmClient } from '../../src/evm/client.js';
import { createFetchExecutor } from '../../src/http/fetch-executor.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createSolanaClient } from '../../src/solana/client.js';
import { solanaClusterOf } from '../../src/solana/clusters.js';
import { loadFixtures, withRequestId, type Fixture } from '../helpers/loopback.js';
import { callTypedFixture, reviveExpected } from '../helpers/typed-fixture.js';

/**
 * Every recorded fixture replayed through the pool with the fetch executor and msw: the
 * handler serves the fixture named in the URL path, checks that the request's method is
 * the fixture's, and answers the request's own id.
 */

const BASE = 'https://rpc.fixtures.test';
const fixtures = loadFixtures();
const byName = new Map(fixtures.map((f) => [f.name, f]));

interface Seen {
  readonly fixture: string;
  readonly method: unknown;
  readonly params: unknown;
}
const seen: Seen[] = [];

const server = setupServer(
  http.post(`${BASE}/:name`, async ({ request, params }) => {
    const fixture = byName.get(String(params['name']));
    const body = JSON.parse(await request.text()) as { method?: unknown; params?: unknown; id?: unknown };
    seen.push({ fixture: String(params['name']), method: body.method, params: body.params });
    if (fixture === undefined || body.method !== fixture.request.method) {
      return HttpResponse.json({ jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'fixture/method mismatch' } }, { status: 404 });
    }
    return new HttpResponse(withRequestId(fixture.response.body, body.id), {
      status: fixture.response.status,
      headers: fixture.response.headers,
    });
  }),
);

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  seen.length = 0;
});
afterAll(() => server.close());

const pools: HttpTransportPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

/** One endpoint serving `fixture`, no retries; the wall clock pinned when the fixture says so (HTTP-date Retry-After). */
function poolFor(fixture: Fixture): HttpTransportPool {
  const wallNowMs = fixture.expect?.['wallNowMs'];
  const pool = new HttpTransportPool({
    endpoints: [{ id: 'fixture', url: `${BASE}/${fixture.name}` }],
    executor: createFetchExecutor(),
    retry: { maxRetries: 0 },
    chain: fixture.chain,
    ...(typeof wallNowMs === 'number' ? { clock: { ...systemClock, wallNow: () => wallNowMs } } : {}),
  });
  pools.push(pool);
  return pool;
}

/** Calls the typed client function the fixture's `expect.client` names, with its `expect.args` (else its params). */
function callTyped(fixture: Fixture, pool: HttpTransportPool): Promise<unknown> {
  return callTypedFixture(fixture, { sol: createSolanaClient(pool), evm: createEvmClient(pool) });
}

/** The TransportError code a fault fixture must end with, through a one-endpoint pool without retries. */
function expectedCode(expected: Readonly<Record<string, unknown>>): string {
  if (typeof expected['error'] === 'string') return expected['error'];
  switch (expected['cause']) {
    case 'rate-limited':
      return 'RATE_LIMITED';
    case 'invalid-response':
      return 'INVALID_RESPONSE';
    default:
      throw new Error(`no expected code for cause ${String(expected['cause'])}`);
  }
}

const successes = fixtures.filter((f) => f.expect?.['client'] !== undefined);
const faults = fixtures.filter((f) => f.expect?.['cause'] !== undefined);

it('every fixture in fixtures/ is replayed by one of the cases below', () => {
  expect(fixtures.length).toBeGreaterThan(20);
  expect([...successes, ...faults].map((f) => f.name).sort()).toEqual(fixtures.map((f) => f.name).sort());
});

describe('success fixtures produce the typed result in `expect`', () => {
  it.each(successes.map((f) => [f.name, f] as const))('%s', async (_, fixture) => {
    const expected = fixture.expect ?? {};
    const result = await callTyped(fixture, poolFor(fixture));
    expect(result).toEqual(reviveExpected(expected['result']));
    // The typed client sent the recorded request, once.
    expect(seen).toEqual([{ fixture: fixture.name, method: fixture.request.method, params: fixture.request.params }]);
    if (typeof expected['cluster'] === 'string') expect(solanaClusterOf(result as string)).toBe(expected['cluster']);
    if (typeof expected['chainName'] === 'string') expect(evmChainOf(result as string)).toBe(expected['chainName']);
  });
});

describe('fault fixtures fail as `expect` says', () => {
  it.each(faults.map((f) => [f.name, f] as const))('%s', async (_, fixture) => {
    const expected = fixture.expect ?? {};
    const outcome: unknown = await poolFor(fixture)
      .request(fixture.request.method, fixture.request.params)
      .then(
        (value) => ({ resolved: value }),
        (error: unknown) => error,
      );
    expect(outcome).toBeInstanceOf(TransportError);
    const error = outcome as TransportError;
    expect(seen).toHaveLength(1);
    expect(error.attempts).toHaveLength(1);
    expect(error.attempts[0]).toMatchObject({
      endpointId: 'fixture',
      cause: expected['cause'],
      dispatch: expected['dispatch'],
      status: fixture.response.status,
      ...(typeof expected['rpcCode'] === 'number' ? { rpcCode: expected['rpcCode'] } : {}),
    });
    if (typeof expected['signature'] === 'string') expect(error.signature).toBe(expected['signature']);
    if (typeof expected['providerDelayMs'] === 'number') expect(error.context).toMatchObject({ retryAfterMs: expected['providerDelayMs'] });
    expect(error.code).toBe(expectedCode(expected));
  });
});
