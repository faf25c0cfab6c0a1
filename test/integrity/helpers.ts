import { expect } from 'vitest';
import type { FailureEvent } from '../../src/api/events.js';
import type { HttpTransportPoolOptions } from '../../src/config/types.js';
import type { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createFakeClock, createSeededRandom } from '../../src/testing/index.js';
import { createFixtureServer, type FixtureServer } from '../../src/testing/fixture-server.js';
import type { FixtureServerBehaviours } from '../../src/testing/behaviours.js';
import { resultFixture, type Fixture } from '../../src/testing/fixtures.js';
import { createPool } from '../helpers/pools.js';

/**
 * A lying fixture node (tier 0: every call's first attempt) and an honest one (tier 1), on
 * real loopback sockets, under a fake clock and a seeded random.
 */

const servers: FixtureServer[] = [];

export async function closeServers(): Promise<void> {
  await Promise.all(servers.splice(0).map((server) => server.close()));
}

export interface LiarAndHonest {
  readonly pool: HttpTransportPool;
  readonly liar: FixtureServer;
  readonly honest: FixtureServer;
  readonly failures: FailureEvent[];
}

export interface NodeSpec {
  readonly fixtures: readonly Fixture[];
  readonly behaviours?: FixtureServerBehaviours;
}

export async function liarAndHonest(liar: NodeSpec, honest: NodeSpec, options: Partial<HttpTransportPoolOptions> = {}, withPeer = true): Promise<LiarAndHonest> {
  const clock = createFakeClock();
  const liarServer = await createFixtureServer({ ...liar, clock });
  const honestServer = await createFixtureServer({ ...honest, clock });
  servers.push(liarServer, honestServer);
  const pool = createPool({
    endpoints: [{ id: 'liar', url: `${liarServer.url}/key-in-path-SECRET`, tier: 0 }, ...(withPeer ? [{ id: 'honest', url: honestServer.url, tier: 1 }] : [])],
    clock,
    random: createSeededRandom(28),
    ...options,
  });
  const failures: FailureEvent[] = [];
  pool.on('failure', (event) => failures.push(event));
  return { pool, liar: liarServer, honest: honestServer, failures };
}

/** The same method and params answered with `lie` by the liar and `truth` by the honest node. */
export function lyingAnswer(chain: Fixture['chain'], method: string, params: readonly unknown[], lie: unknown, truth: unknown): [NodeSpec, NodeSpec] {
  return [{ fixtures: [resultFixture(chain, method, params, lie)] }, { fixtures: [resultFixture(chain, method, params, truth)] }];
}

/**
 * The caller gets the honest answer; each node was asked once; the one failure is the liar's,
 * `invalid-response` / `integrity` naming `check`, with no URL or key in it.
 */
export async function expectLieCaught(
  nodes: LiarAndHonest,
  method: string,
  params: readonly unknown[],
  truth: unknown,
  check: string,
  /** Calls of `method` each node got before the call: the chain guard's check. */
  asked = 0,
): Promise<void> {
  const result = await nodes.pool.request(method, params);
  expect(result).toEqual(truth);
  expect(nodes.liar.count(method)).toBe(asked + 1);
  expect(nodes.honest.count(method)).toBe(asked + 1);
  expect(nodes.failures).toEqual([expect.objectContaining({ endpointId: 'liar', method, cause: 'invalid-response', detail: 'integrity', check })]);
  const text = JSON.stringify(nodes.failures);
  expect(text).not.toContain(String(nodes.liar.port));
  expect(text).not.toContain('SECRET');
  // A protocol violation: the invalid-rate detector saw it.
  const liarView = nodes.pool.snapshot().endpoints.find((endpoint) => endpoint.endpointId === 'liar');
  expect(liarView?.reputation?.invalidRate).toBeGreaterThan(0);
}
