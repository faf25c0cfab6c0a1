import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { evmChainOf } from '../../src/evm/chains.js';
import { createEvmClient } from '../../src/evm/client.js';
import { createFetchExecutor } from '../../src/http/fetch-executor.js';
import { createSolanaClient } from '../../src/solana/client.js';
import { solanaClusterOf } from '../../src/solana/clusters.js';
import type { Fixture } from '../../src/testing/fixtures.js';
import { fixtureHandlers, type FixtureHandlerCall } from '../../src/testing/msw.js';
import { callTypedFixture, reviveExpected } from '../helpers/typed-fixture.js';
import { allFixtures, closeAll, healthyFixtures, poolFor, rejection } from './helpers.js';

/**
 * `fixtureHandlers` replays every fixture in `fixtures/` through the pool with the fetch
 * executor: one handler set per fixture, each on its own URL, so every case is reachable.
 */

const BASE = 'https://rpc.fixtures.test';
const fixtures = allFixtures();
const calls: FixtureHandlerCall[] = [];

const server = setupServer(
  // The TSDoc recipe's shape: a URL pattern, and the whole healthy set.
  ...fixtureHandlers(healthyFixtures(), { url: `${BASE}/healthy/*`, onRequest: (c) => calls.push(c) }),
  ...fixtures.flatMap((fixture) => fixtureHandlers([fixture], { url: `${BASE}/case/${fixture.name}`, onRequest: (c) => calls.push(c) })),
);

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(async () => {
  calls.length = 0;
  await closeAll();
});
afterAll(() => server.close());

function fetchPool(fixture: Fixture) {
  const wallNowMs = fixture.expect?.['wallNowMs'];
  return poolFor(`${BASE}/case/${fixture.name}`, {
    executor: createFetchExecutor(),
    chain: fixture.chain,
    // HTTP-date Retry-After cases say at which wall-clock instant they were classified.
    ...(typeof wallNowMs === 'number' ? { clock: { ...systemClock, wallNow: () => wallNowMs } } : {}),
  });
}

/** Calls the typed client function named by `expect.client` with its `expect.args` (else the fixture's params). */
function callTyped(fixture: Fixture): Promise<unknown> {
  const pool = fetchPool(fixture);
  return callTypedFixture(fixture, { sol: createSolanaClient(pool), evm: createEvmClient(pool) });
}

const successes = fixtures.filter((f) => f.expect?.['client'] !== undefined);
const faults = fixtures.filter((f) => f.expect?.['cause'] !== undefined);

it('covers every fixture in fixtures/', () => {
  expect(fixtures.length).toBeGreaterThan(20);
  expect([...successes, ...faults].map((f) => f.name).sort()).toEqual(fixtures.map((f) => f.name).sort());
});

describe('success fixtures give the typed result in `expect`', () => {
  it.each(successes.map((f) => [f.name, f] as const))('%s', async (_, fixture) => {
    const result = await callTyped(fixture);
    expect(result).toEqual(reviveExpected(fixture.expect?.['result']));
    expect(calls.map((c) => [c.method, c.params])).toEqual([[fixture.request.method, fixture.request.params]]);
    const cluster = fixture.expect?.['cluster'];
    if (typeof cluster === 'string') expect(solanaClusterOf(result as string)).toBe(cluster);
    const chainName = fixture.expect?.['chainName'];
    if (typeof chainName === 'string') expect(evmChainOf(result as string)).toBe(chainName);
  });
});

describe('fault fixtures fail as `expect` says', () => {
  it.each(faults.map((f) => [f.name, f] as const))('%s', async (_, fixture) => {
    const expected = fixture.expect ?? {};
    const error = await rejection(fetchPool(fixture).request(fixture.request.method, fixture.request.params));
    expect(calls).toHaveLength(1);
    expect(error.attempts).toEqual([
      expect.objectContaining({
        cause: expected['cause'],
        dispatch: expected['dispatch'],
        status: fixture.response.status,
        ...(typeof expected['rpcCode'] === 'number' ? { rpcCode: expected['rpcCode'] } : {}),
      }),
    ]);
    if (typeof expected['providerDelayMs'] === 'number') expect(error.context).toMatchObject({ retryAfterMs: expected['providerDelayMs'] });
    if (typeof expected['error'] === 'string') expect(error.code).toBe(expected['error']);
    if (typeof expected['signature'] === 'string') expect(error.signature).toBe(expected['signature']);
  });
});

describe('one handler set for a whole node', () => {
  const healthy = () => poolFor(`${BASE}/healthy/my-key`, { executor: createFetchExecutor() });

  it('answers typed calls by method, with the request id substituted', async () => {
    const sol = createSolanaClient(healthy());
    await expect(sol.getGenesisHash()).resolves.toBe('5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d');
    await expect(sol.getBalance('83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a')).resolves.toMatchObject({ value: 18446744073709551615n });
    expect(calls.map((c) => c.method)).toEqual(['getGenesisHash', 'getBalance']);
    expect(calls[0]?.url).toBe(`${BASE}/healthy/my-key`);
  });

  it('answers an unknown method with -32601', async () => {
    const error = await rejection(healthy().request('getNothing', []));
    expect(error.code).toBe('RPC_ERROR');
    expect(error.rpcCode).toBe(-32601);
  });

  it('answers a batch per item', async () => {
    const response = await fetch(`${BASE}/healthy/x`, {
      method: 'POST',
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 5, method: 'getHealth' },
        { jsonrpc: '2.0', id: 6, method: 'eth_chainId', params: [] },
      ]),
    });
    expect(await response.json()).toEqual([
      { jsonrpc: '2.0', id: 5, result: 'ok' },
      { jsonrpc: '2.0', id: 6, result: '0x1' },
    ]);
  });
});
