import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpTransportPoolOptions } from '../../src/config/types.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { loadFixture, sendBody, serveFixture, type Fixture, type ReceivedRequest, type RpcHandler, type RpcServer } from '../helpers/loopback.js';

/**
 * Shared pieces of the adapter tests: pools closed after each test, fixture routing by
 * method, a forwarding proxy in front of anvil that can lose the answer to a send, and
 * counting what servers received — including inside batch bodies, which the loopback
 * server's own `received.method` does not look into.
 */

const pools: HttpTransportPool[] = [];

/** A pool closed by {@link closePools}. */
export function createPool(options: HttpTransportPoolOptions): HttpTransportPool {
  const pool = new HttpTransportPool(options);
  pools.push(pool);
  return pool;
}

export async function closePools(): Promise<void> {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
}

/** `primary` on tier 0 and `peer` on tier 1: a call's first attempt always goes to `primary`. */
export function twoTierPool(primaryUrl: string, peerUrl: string, extra: Partial<HttpTransportPoolOptions> = {}): HttpTransportPool {
  return createPool({ endpoints: [{ id: 'primary', url: primaryUrl, tier: 0 }, { id: 'peer', url: peerUrl, tier: 1 }], ...extra });
}

/** Reads the request in full, then resets the connection: the request may have been processed, no answer comes. */
export const resetAfterReading: RpcHandler = (_request, { socket }) => {
  socket.resetAndDestroy();
};

/** Replays the fixture named for each method (`{ getBalance: 'solana-getBalance' }`); other methods get -32601. */
export function routeFixtures(byMethod: Readonly<Record<string, string>>): RpcHandler {
  const fixtures = new Map<string, Fixture>(Object.entries(byMethod).map(([method, name]) => [method, loadFixture(name)]));
  return (request, exchange) => {
    const fixture = fixtures.get(request.method);
    if (fixture) return serveFixture(fixture)(request, exchange);
    sendBody(exchange.res, JSON.stringify({ jsonrpc: '2.0', id: request.id ?? null, error: { code: -32601, message: 'Method not found' } }));
  };
}

interface BodyItem {
  readonly method?: unknown;
  readonly params?: unknown;
}

/** Every JSON-RPC item of one received body (a batch body holds several). */
function itemsOf(request: ReceivedRequest): BodyItem[] {
  try {
    const parsed = JSON.parse(request.body) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]).filter((item): item is BodyItem => typeof item === 'object' && item !== null);
  } catch {
    return [];
  }
}

/** The first param of every item of `method` the servers received (e.g. each raw transaction sent). */
export function firstParamsOf(method: string, ...servers: RpcServer[]): unknown[] {
  return servers.flatMap((server) => server.received.flatMap(itemsOf)).flatMap((item) => (item.method === method && Array.isArray(item.params) ? [item.params[0]] : []));
}

/** Arrivals beyond the first of each distinct `method` payload across the servers: the duplicates a node would see. */
export function duplicateArrivals(method: string, ...servers: RpcServer[]): number {
  const seen = new Map<string, number>();
  for (const param of firstParamsOf(method, ...servers)) seen.set(JSON.stringify(param), (seen.get(JSON.stringify(param)) ?? 0) + 1);
  return [...seen.values()].reduce((sum, n) => sum + n - 1, 0);
}

/**
 * A proxy handler forwarding each body to `upstreamUrl` and relaying the answer; with
 * `loseAnswerTo`, a body holding that method is forwarded (the node processes it) and then
 * the client's connection is reset instead of answered.
 */
export function forwardTo(upstreamUrl: string, loseAnswerTo?: string): RpcHandler {
  return async (request, { res, socket, body }) => {
    const upstream = await fetch(upstreamUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await upstream.text();
    if (loseAnswerTo !== undefined && itemsOf(request).some((item) => item.method === loseAnswerTo)) {
      socket.resetAndDestroy();
      return;
    }
    if (text.length === 0) {
      res.writeHead(upstream.status);
      res.end();
      return;
    }
    sendBody(res, text, upstream.status);
  };
}

/** Anvil's default account 0 and its well-known private key (anvil/hardhat test mnemonic). */
export const ANVIL_ACCOUNT_0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
export const ANVIL_KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const ANVIL_ACCOUNT_1 = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
export const ONE_ETH = 10n ** 18n;

/** The recorded signed transfer (1 ETH, account 0 → 1, nonce 0, chain 31337) and the hash anvil answered. */
export const RECORDED_SEND = (() => {
  const fixture = loadFixture('evm-eth_sendRawTransaction');
  return { rawTx: fixture.request.params[0] as `0x${string}`, hash: fixture.expect?.['result'] as `0x${string}` };
})();

/** The recorded Solana `sendTransaction` wire bytes (base64) and its signature. */
export const SOLANA_SEND = (() => {
  const fixture = loadFixture('solana-sendTransaction');
  return { wire: fixture.request.params[0] as string, signature: fixture.expect?.['signature'] as string };
})();

/** A settled promise's error (fails the test if it resolved). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );
}

/**
 * Polls `read` (bounded: 80 × 25 ms) until it yields a receipt. anvil mines right after
 * answering a send, so a receipt asked for at once may not exist yet — and a library's
 * "wait for the next block" may then never fire (the block was already mined).
 */
export async function pollReceipt<R>(read: () => Promise<R | null>): Promise<R> {
  for (let i = 0; i < 80; i++) {
    const receipt = await read();
    if (receipt !== null) return receipt;
    await sleep(25);
  }
  throw new Error('no receipt after 2 s');
}
