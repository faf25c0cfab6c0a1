import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import type { EndpointConfig, HttpTransportPoolOptions } from '../../src/config/types.js';
import { createEvmClient } from '../../src/evm/client.js';
import type { ChainEvent } from '../../src/api/events.js';
import type { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createSolanaClient } from '../../src/solana/client.js';
import { SOLANA_GENESIS_HASHES } from '../../src/solana/clusters.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { ANVIL_GENESIS_HASH } from '../../src/testing/fault-answers.js';
import { createFixtureServer, type CreateFixtureServerOptions, type FixtureServer } from '../../src/testing/fixture-server.js';
import { loadFixtures, type Fixture } from '../../src/testing/fixtures.js';
import { startAnvil, type AnvilInstance } from '../helpers/anvil.js';
import { closeAllServers, startRpcServer, type RpcServer } from '../helpers/loopback.js';
import { closePools, createPool, rejection } from '../helpers/pools.js';

/**
 * The chain guard on real sockets, with the real undici executor: fixture servers that lie
 * about their chain (`wrong-genesis`, with `evmChainId`), and a real anvil (chain id 31337,
 * genesis `0xc56b…e07b` with `--timestamp 1700000000`) behind a counting proxy. Every count
 * is what the server received.
 */

const MAINNET = SOLANA_GENESIS_HASHES['mainnet-beta'];
const DEVNET = SOLANA_GENESIS_HASHES.devnet;
const ETH_GENESIS = '0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3';
const ANVIL_CHAIN_ID = 31337;
const ACCOUNT_0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

const FIXTURES = loadFixtures(fileURLToPath(new URL('../../fixtures/', import.meta.url)));
/** A healthy Ethereum/Solana mainnet node: no fault cases, no other-cluster or unhealthy answers. */
const HEALTHY: Fixture[] = FIXTURES.filter(
  (f) =>
    !f.name.startsWith('fault-') &&
    !['solana-getGenesisHash-devnet', 'solana-getGenesisHash-testnet', 'solana-getHealth-behind', 'solana-getHealth-unhealthy', 'evm-eth_syncing-object'].includes(f.name),
);
const fixture = (name: string): Fixture => {
  const found = FIXTURES.find((f) => f.name === name);
  if (found === undefined) throw new Error(`no fixture ${name}`);
  return found;
};
const SOLANA_TX = fixture('solana-sendTransaction').request.params[0] as string;
const EVM_RAW_TX = fixture('evm-eth_sendRawTransaction').request.params[0] as string;

const servers: FixtureServer[] = [];
async function startServer(options: Partial<CreateFixtureServerOptions> = {}): Promise<FixtureServer> {
  const server = await createFixtureServer({ fixtures: HEALTHY, ...options });
  servers.push(server);
  return server;
}

afterEach(async () => {
  await closePools();
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await closeAllServers();
});

/** A pool with the real undici executor, a fake clock (no timer ever fires on its own) and a seeded random; its chain events. */
function guardedPool(endpoints: EndpointConfig[], options: Partial<HttpTransportPoolOptions>) {
  const clock = createFakeClock();
  // Concurrent identical reads are distinct requests here: the server counts each one.
  const pool = createPool({ retry: { maxRetries: 0 }, coalesce: false, ...options, endpoints, clock, random: createSeededRandom(3) });
  const events: ChainEvent[] = [];
  pool.on('chain', (event) => events.push(event));
  const chainOf = () => Object.fromEntries(pool.snapshot().endpoints.map((e) => [e.endpointId, e.chain]));
  // Each endpoint's first verdict (verified or wrong-chain), listened for from the start: over real
  // sockets a peer's verdict may come after the call that did not need it has returned.
  const verdicts = new Map(
    pool.snapshot().endpoints.map((e) => [e.endpointId, chainEvent(pool, (event) => event.endpointId === e.endpointId && event.status !== 'check-failed')]),
  );
  const verdictOf = (endpointId: string): Promise<ChainEvent> => verdicts.get(endpointId) ?? Promise.reject(new Error(`no endpoint ${endpointId}`));
  return { pool, events, chainOf, clock, verdictOf };
}

/** The first chain event (from now on) that `match` accepts: a check's verdict arrives over real sockets. */
function chainEvent(pool: HttpTransportPool, match: (event: ChainEvent) => boolean): Promise<ChainEvent> {
  return new Promise((resolve) => {
    const off = pool.on('chain', (event) => {
      if (!match(event)) return;
      off();
      resolve(event);
    });
  });
}

describe('Solana on loopback fixture servers (getGenesisHash)', () => {
  it('excludes a devnet node and serves typed calls from the mainnet node; the devnet node only ever sees the check', async () => {
    const devnet = await startServer({ behaviours: [{ type: 'wrong-genesis' }] });
    const mainnet = await startServer();
    const { pool, events, chainOf, verdictOf } = guardedPool(
      [{ id: 'devnet', url: devnet.url }, { id: 'mainnet', url: mainnet.url, tier: 1 }],
      { chain: 'solana', expectedChain: { genesisHash: MAINNET } },
    );
    const sol = createSolanaClient(pool);

    await expect(sol.getHealth()).resolves.toEqual({ healthy: true });
    await expect(sol.getVersion()).resolves.toMatchObject({ solanaCore: expect.any(String) });
    await expect(sol.sendTransaction(SOLANA_TX)).resolves.toEqual(expect.any(String));
    await verdictOf('devnet');

    expect(devnet.countByMethod()).toEqual({ getGenesisHash: 1 });
    expect(mainnet.countByMethod()).toEqual({ getGenesisHash: 1, getHealth: 1, getVersion: 1, sendTransaction: 1 });
    expect(events).toHaveLength(2);
    expect(events).toContainEqual({ atMs: 0, endpointId: 'devnet', status: 'wrong-chain', method: 'getGenesisHash', reported: DEVNET });
    expect(events).toContainEqual({ atMs: 0, endpointId: 'mainnet', status: 'verified' });
    expect(chainOf()).toEqual({ devnet: 'wrong-chain', mainnet: 'verified' });
  });

  it('fails with CHAIN_MISMATCH when every node is on another cluster, after exactly one check each', async () => {
    const a = await startServer();
    const b = await startServer();
    const { pool } = guardedPool([{ id: 'a', url: a.url }, { id: 'b', url: b.url }], { expectedChain: { genesisHash: DEVNET } });

    const error = await rejection(createSolanaClient(pool).getHealth());
    expect(error.code).toBe('CHAIN_MISMATCH');
    expect(error.context).toEqual({ kind: 'read', expected: `genesis hash ${DEVNET}` });
    const send = await rejection(createSolanaClient(pool).sendTransaction(SOLANA_TX));
    expect(send.code).toBe('CHAIN_MISMATCH');
    expect([a.countByMethod(), b.countByMethod()]).toEqual([{ getGenesisHash: 1 }, { getGenesisHash: 1 }]);
  });

  it('sends exactly one check per node for 20 concurrent calls', async () => {
    const a = await startServer();
    const b = await startServer();
    const { pool, chainOf, verdictOf } = guardedPool([{ id: 'a', url: a.url }, { id: 'b', url: b.url }], { expectedChain: { genesisHash: MAINNET } });
    const sol = createSolanaClient(pool);
    const results = await Promise.all(Array.from({ length: 20 }, () => sol.getHealth()));
    await Promise.all([verdictOf('a'), verdictOf('b')]);
    expect(results).toEqual(Array.from({ length: 20 }, () => ({ healthy: true })));
    expect(a.count('getHealth') + b.count('getHealth')).toBe(20);
    // The first call met both unverified nodes and started both checks; nobody asked twice.
    expect([a.count('getGenesisHash'), b.count('getGenesisHash')]).toEqual([1, 1]);
    expect(chainOf()).toEqual({ a: 'verified', b: 'verified' });
  });

  it('a check answered 503 keeps the node out (the send goes to the peer); after the pause it is asked again and serves', async () => {
    const flaky = await startServer({ behaviours: { getGenesisHash: [{ type: 'http-error', status: 503 }] } });
    const peer = await startServer();
    const { pool, events, chainOf, clock } = guardedPool([{ id: 'flaky', url: flaky.url }, { id: 'peer', url: peer.url, tier: 1 }], {
      expectedChain: { genesisHash: MAINNET },
    });
    const sol = createSolanaClient(pool);

    const failed = chainEvent(pool, (e) => e.endpointId === 'flaky');
    await expect(sol.sendTransaction(SOLANA_TX)).resolves.toEqual(expect.any(String));
    await failed;
    expect(events.find((e) => e.endpointId === 'flaky')).toEqual({ atMs: 0, endpointId: 'flaky', status: 'check-failed', detail: 'http-5xx', retryInMs: 1_000 });
    expect(flaky.countByMethod()).toEqual({ getGenesisHash: 1 });
    expect(peer.countByMethod()).toEqual({ getGenesisHash: 1, sendTransaction: 1 });
    expect(chainOf()).toEqual({ flaky: 'unverified', peer: 'verified' });

    flaky.setBehaviours([]);
    await clock.advance(1_000);
    const verified = chainEvent(pool, (e) => e.endpointId === 'flaky' && e.status === 'verified');
    // This call meets flaky (tier 0) after its pause: it starts the check and is served by the peer meanwhile.
    await expect(sol.getHealth()).resolves.toEqual({ healthy: true });
    await verified;
    await expect(sol.getHealth()).resolves.toEqual({ healthy: true });
    expect(flaky.countByMethod()).toEqual({ getGenesisHash: 2, getHealth: 1 });
    expect(chainOf()).toEqual({ flaky: 'verified', peer: 'verified' });
  });

  it('never puts a key from the URL (path, query, userinfo) in chain events, CHAIN_MISMATCH or the snapshot', async () => {
    const server = await startServer({ behaviours: [{ type: 'wrong-genesis' }] });
    const port = new URL(server.url).port;
    const secrets = ['PATHSECRET0123456789', 'QUERYSECRET0123456789', 'USERSECRET0123456789'];
    const { pool, events } = guardedPool(
      [
        { url: `${server.url}/v2/PATHSECRET0123456789` },
        { url: `${server.url}/?api-key=QUERYSECRET0123456789`, tier: 1 },
        { url: `http://user:USERSECRET0123456789@127.0.0.1:${port}/`, tier: 2 },
      ],
      { expectedChain: { genesisHash: MAINNET } },
    );
    const error = await rejection(createSolanaClient(pool).getHealth());
    expect(error.code).toBe('CHAIN_MISMATCH');
    expect(server.countByMethod()).toEqual({ getGenesisHash: 3 });
    const text = [JSON.stringify(events), error.message, JSON.stringify(error.context), JSON.stringify(error.attempts), String(error.stack), JSON.stringify(pool.snapshot())].join('\n');
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).not.toContain(`:${port}/`);
  });
});

describe('EVM on loopback fixture servers (eth_chainId, block 0)', () => {
  it('excludes a node claiming another chain id (wrong-genesis evmChainId) without asking for its genesis block', async () => {
    const other = await startServer({ behaviours: [{ type: 'wrong-genesis', evmChainId: 137 }] });
    const mainnet = await startServer();
    const { pool, events, verdictOf } = guardedPool(
      [{ id: 'other', url: other.url }, { id: 'mainnet', url: mainnet.url, tier: 1 }],
      { chain: 'evm', expectedChain: { chainId: 1, genesisHash: ETH_GENESIS } },
    );
    await expect(createEvmClient(pool).getBlockNumber()).resolves.toBe(20057356n);
    await verdictOf('other');
    expect(other.countByMethod()).toEqual({ eth_chainId: 1 });
    expect(mainnet.countByMethod()).toEqual({ eth_chainId: 1, eth_getBlockByNumber: 1, eth_blockNumber: 1 });
    expect(mainnet.requests.find((r) => r.method === 'eth_getBlockByNumber')?.params).toEqual(['0x0', false]);
    expect(events.filter((e) => e.endpointId === 'other')).toEqual([{ atMs: 0, endpointId: 'other', status: 'wrong-chain', method: 'eth_chainId', reported: '137' }]);
  });

  it('excludes a node with the right chain id but another genesis block, and never sends it a raw transaction', async () => {
    const fork = await startServer({ behaviours: [{ type: 'wrong-genesis' }] });
    const mainnet = await startServer();
    const { pool, events, verdictOf } = guardedPool(
      [{ id: 'fork', url: fork.url }, { id: 'mainnet', url: mainnet.url, tier: 1 }],
      { expectedChain: { chainId: 1, genesisHash: ETH_GENESIS.toUpperCase().replace('0X', '0x') } },
    );
    await expect(createEvmClient(pool).sendRawTransaction(EVM_RAW_TX)).resolves.toMatch(/^0x[0-9a-f]{64}$/);
    await verdictOf('fork');
    expect(fork.countByMethod()).toEqual({ eth_chainId: 1, eth_getBlockByNumber: 1 });
    expect(mainnet.countByMethod()).toEqual({ eth_chainId: 1, eth_getBlockByNumber: 1, eth_sendRawTransaction: 1 });
    expect(events.filter((e) => e.endpointId === 'fork')).toEqual([{ atMs: 0, endpointId: 'fork', status: 'wrong-chain', method: 'eth_getBlockByNumber', reported: ANVIL_GENESIS_HASH }]);
  });
});

describe('EVM against a real anvil (chain id 31337)', () => {
  let anvil: AnvilInstance;
  /** A counting proxy in front of anvil: what "the node" received. */
  let proxy: RpcServer;

  beforeAll(async () => {
    anvil = await startAnvil();
  });

  afterAll(async () => {
    await anvil?.stop();
  });

  async function startProxy(): Promise<RpcServer> {
    proxy = await startRpcServer(async (_request, { res, body }) => {
      const upstream = await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const text = await upstream.text();
      res.writeHead(upstream.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
    return proxy;
  }
  const counts = () => {
    const out: Record<string, number> = {};
    for (const r of proxy.received) out[r.method] = (out[r.method] ?? 0) + 1;
    return out;
  };

  it('expected chain id 1: anvil is excluded after one eth_chainId and every call fails CHAIN_MISMATCH (chain id 1)', async () => {
    await startProxy();
    const { pool, events, chainOf } = guardedPool([{ id: 'anvil', url: proxy.url }], { chain: 'evm', expectedChain: { chainId: 1 } });
    const evm = createEvmClient(pool);
    const error = await rejection(evm.getBlockNumber());
    expect(error.code).toBe('CHAIN_MISMATCH');
    expect(error.context).toEqual({ kind: 'read', expected: 'chain id 1' });
    expect(error.message).toContain('(chain id 1)');
    expect((await rejection(evm.getBalance(ACCOUNT_0))).code).toBe('CHAIN_MISMATCH');
    expect(counts()).toEqual({ eth_chainId: 1 });
    expect(events).toEqual([{ atMs: 0, endpointId: 'anvil', status: 'wrong-chain', method: 'eth_chainId', reported: String(ANVIL_CHAIN_ID) }]);
    expect(chainOf()).toEqual({ anvil: 'wrong-chain' });
  });

  it('expected 31337 and anvil’s genesis: verified with exactly one eth_chainId and one block-0 request, even for 20 concurrent calls', async () => {
    await startProxy();
    const { pool, events, chainOf } = guardedPool([{ id: 'anvil', url: proxy.url }], {
      chain: 'evm',
      expectedChain: { chainId: BigInt(ANVIL_CHAIN_ID), genesisHash: ANVIL_GENESIS_HASH.toUpperCase().replace('0X', '0x') },
    });
    const evm = createEvmClient(pool);
    const numbers = await Promise.all(Array.from({ length: 20 }, () => evm.getBlockNumber()));
    expect(numbers.every((n) => typeof n === 'bigint')).toBe(true);
    await expect(evm.getChainId()).resolves.toBe(ANVIL_CHAIN_ID);
    // One check (eth_chainId + block 0), then the calls: the user's own eth_chainId is the second one.
    expect(counts()).toEqual({ eth_chainId: 2, eth_getBlockByNumber: 1, eth_blockNumber: 20 });
    expect(proxy.received.slice(0, 2).map((r) => r.method)).toEqual(['eth_chainId', 'eth_getBlockByNumber']);
    expect(events).toEqual([{ atMs: 0, endpointId: 'anvil', status: 'verified' }]);
    expect(chainOf()).toEqual({ anvil: 'verified' });
  });

  it('expected 31337 but Ethereum’s genesis: anvil is excluded by its block 0', async () => {
    await startProxy();
    const { pool, events } = guardedPool([{ id: 'anvil', url: proxy.url }], { expectedChain: { chainId: ANVIL_CHAIN_ID, genesisHash: ETH_GENESIS } });
    const error = await rejection(createEvmClient(pool).getBlockNumber());
    expect(error.code).toBe('CHAIN_MISMATCH');
    expect(counts()).toEqual({ eth_chainId: 1, eth_getBlockByNumber: 1 });
    expect(events).toEqual([{ atMs: 0, endpointId: 'anvil', status: 'wrong-chain', method: 'eth_getBlockByNumber', reported: ANVIL_GENESIS_HASH }]);
  });

  it('a transaction valid on anvil is never sent to anvil when the pool expects mainnet: it goes once to the mainnet node', async () => {
    await startProxy();
    const mainnet = await startServer();
    const { pool, verdictOf } = guardedPool([{ id: 'anvil', url: proxy.url }, { id: 'mainnet', url: mainnet.url, tier: 1 }], { expectedChain: { chainId: 1 } });
    await expect(createEvmClient(pool).sendRawTransaction(EVM_RAW_TX)).resolves.toMatch(/^0x[0-9a-f]{64}$/);
    await expect(verdictOf('anvil')).resolves.toMatchObject({ status: 'wrong-chain', reported: String(ANVIL_CHAIN_ID) });
    expect(counts()).toEqual({ eth_chainId: 1 });
    expect(mainnet.countByMethod()).toEqual({ eth_chainId: 1, eth_sendRawTransaction: 1 });
    // And anvil itself: account 0 never sent anything.
    const reply = await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionCount', params: [ACCOUNT_0, 'latest'] }),
    });
    expect(((await reply.json()) as { result: string }).result).toBe('0x0');
  });
});
