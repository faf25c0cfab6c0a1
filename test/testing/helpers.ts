import { fileURLToPath } from 'node:url';
import type { HttpTransportPoolOptions } from '../../src/config/types.js';
import { TransportError } from '../../src/errors/transport-error.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createFixtureServer, type CreateFixtureServerOptions, type FixtureServer } from '../../src/testing/fixture-server.js';
import { loadFixtures, type Fixture } from '../../src/testing/fixtures.js';

/** The repository's `fixtures/` directory. */
export const FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/', import.meta.url));

/** Every fixture in `fixtures/`. */
export const allFixtures = (): Fixture[] => loadFixtures(FIXTURES_DIR);

/** Fixtures describing an unhealthy node or another cluster. */
const UNHEALTHY_OR_OTHER_CHAIN = new Set([
  'solana-getGenesisHash-devnet',
  'solana-getGenesisHash-testnet',
  'solana-getHealth-behind',
  'solana-getHealth-unhealthy',
  'evm-eth_syncing-object',
]);

/**
 * A healthy mainnet node: no `fault-*` cases, no unhealthy or other-cluster answers (the
 * server answers the first fixture of a method whose params do not single one out).
 */
export function healthyFixtures(): Fixture[] {
  return allFixtures().filter((f) => !f.name.startsWith('fault-') && !UNHEALTHY_OR_OTHER_CHAIN.has(f.name));
}

export function fixtureNamed(name: string): Fixture {
  const fixture = allFixtures().find((f) => f.name === name);
  if (fixture === undefined) throw new Error(`no fixture ${name}`);
  return fixture;
}

/** An ad-hoc fixture answering `method` with `resultJson` (raw JSON text). */
export function resultFixture(method: string, resultJson: string, chain: 'solana' | 'evm' = 'solana'): Fixture {
  return {
    name: `inline-${method}`,
    source: 'test',
    chain,
    request: { method, params: [] },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: `{"jsonrpc":"2.0","id":1,"result":${resultJson}}` },
  };
}

const servers: FixtureServer[] = [];
const pools: HttpTransportPool[] = [];

/** Starts a fixture server closed by {@link closeAll}. */
export async function startServer(options: CreateFixtureServerOptions): Promise<FixtureServer> {
  const server = await createFixtureServer(options);
  servers.push(server);
  return server;
}

/** A pool closed by {@link closeAll}; one endpoint `fixture` on `url` unless endpoints are given, no retries unless told. */
export function poolFor(url: string, options: Partial<HttpTransportPoolOptions> = {}): HttpTransportPool {
  const pool = new HttpTransportPool({ endpoints: [{ id: 'fixture', url }], retry: { maxRetries: 0 }, ...options });
  pools.push(pool);
  return pool;
}

/** For `afterEach`: closes every pool and server started through these helpers. */
export async function closeAll(): Promise<void> {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
}

/** The TransportError a call rejects with (fails the test if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<TransportError> {
  const outcome: unknown = await promise.then(
    (value) => new Error(`expected a rejection, got ${String(value)}`),
    (error: unknown) => error,
  );
  if (!(outcome instanceof TransportError)) throw outcome;
  return outcome;
}

export interface RawReply {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

/** POSTs a raw body with the platform fetch (no pool in between). */
export async function post(url: string, body: string): Promise<RawReply> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

/** POSTs one JSON-RPC call. */
export function call(url: string, method: string, params: unknown[] = [], id: unknown = 1): Promise<RawReply> {
  return post(url, JSON.stringify({ jsonrpc: '2.0', id, method, params }));
}
