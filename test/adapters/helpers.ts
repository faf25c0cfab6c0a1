import { setTimeout as sleep } from 'node:timers/promises';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { startAnvil, type AnvilInstance } from '../helpers/anvil.js';
import { closeAllServers, loadFixture, sendBody, serveFixture, startRpcServer, type Fixture, type ReceivedRequest, type RpcHandler, type RpcServer } from '../helpers/loopback.js';
import { closePools, createPool } from '../helpers/pools.js';

/**
 * Shared pieces of the adapter tests: pools closed after each test, fixture routing by
 * method, a forwarding proxy in front of anvil that can lose the answer to a send, and
 * counting what servers received — including inside batch bodies, which the loopback
 * server's own `received.method` does not look into.
 */

export { closePools, createPool, twoTierPool } from '../helpers/pools.js';

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

/** A running anvil shared by a `describe`'s tests, with a pool straight to it. */
export interface AnvilFixture {
  readonly url: string;
  /** A pool (chain `evm`) with anvil as its one endpoint. */
  readonly pool: HttpTransportPool;
}

/**
 * Starts anvil (and a pool to it) before the enclosing `describe`'s tests; closes loopback
 * servers after each test, and pools then anvil after all of them. The fields are readable
 * once `beforeAll` has run.
 */
export function useAnvil(): AnvilFixture {
  let anvil: AnvilInstance | undefined;
  let pool: HttpTransportPool | undefined;
  beforeAll(async () => {
    anvil = await startAnvil();
    pool = createPool({ endpoints: [{ url: anvil.url }], chain: 'evm' });
  });
  afterEach(() => closeAllServers());
  afterAll(async () => {
    await closePools();
    await anvil?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('anvil is not started (use it inside tests or beforeAll)');
    return value;
  };
  return {
    get url() {
      return started(anvil).url;
    },
    get pool() {
      return started(pool);
    },
  };
}

/** A loopback relay forwarding to `upstreamUrl`, and a pool (chain `evm`) whose one endpoint is the relay. */
export async function relayTo(upstreamUrl: string): Promise<{ relay: RpcServer; pool: HttpTransportPool }> {
  const relay = await startRpcServer(forwardTo(upstreamUrl));
  return { relay, pool: createPool({ endpoints: [{ url: relay.url }], chain: 'evm' }) };
}

/** e0 (tier 0) forwards to `upstreamUrl` and loses the answer to `method`; e1 (tier 1) relays faithfully. */
export async function losingThenRelay(upstreamUrl: string, method: string): Promise<{ losing: RpcServer; relay: RpcServer; pool: HttpTransportPool }> {
  const losing = await startRpcServer(forwardTo(upstreamUrl, method));
  const relay = await startRpcServer(forwardTo(upstreamUrl));
  const pool = createPool({ endpoints: [{ id: 'e0', url: losing.url, tier: 0 }, { id: 'e1', url: relay.url, tier: 1 }], chain: 'evm' });
  return { losing, relay, pool };
}

/** A 1 ETH transfer from anvil account 0 to account 1 with `nonce`, signed locally with viem (EIP-1559, chain 31337). */
export function signTransferWithViem(nonce: number): Promise<`0x${string}`> {
  return privateKeyToAccount(ANVIL_KEY_0).signTransaction({
    chainId: 31_337,
    to: ANVIL_ACCOUNT_1,
    value: ONE_ETH,
    nonce,
    gas: 21_000n,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  });
}
