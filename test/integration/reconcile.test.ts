import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { keccak256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EndpointConfig, HttpTransportPoolOptions } from '../../src/config/types.js';
import type { TransportError } from '../../src/errors/transport-error.js';
import { evmTransactionHashFromSendParams } from '../../src/jsonrpc/transaction-id.js';
import type { ReconcileEvent } from '../../src/api/events.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createFixtureServer, loadFixtures, parseFixture, type FixtureServer } from '../../src/testing/index.js';
import { startAnvil, type AnvilInstance } from '../helpers/anvil.js';
import { closeAllServers, sendResult, startRpcServer, type RpcHandler } from '../helpers/loopback.js';
import { closePools, createPool, rejection } from '../helpers/pools.js';
import { signatureOf, wireTransaction } from '../helpers/solana-wire.js';

/**
 * `reconcileSends` over real loopback sockets with the real undici executor: a send whose
 * answer is lost after the node processed it is found by a lookup and resolves with its
 * id, without ever being sent again; without `reconcileSends` it fails AMBIGUOUS_DISPATCH
 * carrying the same id.
 */

const fixtureServers: FixtureServer[] = [];

afterEach(async () => {
  await closePools();
  await closeAllServers();
  await Promise.all(fixtureServers.splice(0).map((server) => server.close()));
});

const RECONCILE = { windowMs: 2_000, intervalMs: 100 } as const;

/** A pool whose `reconcile` events are collected and whose send attempts are counted, client side. */
function observedPool(endpoints: readonly EndpointConfig[], extra: Partial<HttpTransportPoolOptions> = {}) {
  const pool = createPool({ endpoints, ...extra });
  const events: ReconcileEvent[] = [];
  const sendAttempts: string[] = [];
  pool.on('reconcile', (event) => events.push(event));
  pool.on('attempt', (event) => {
    if (event.method === 'sendTransaction' || event.method === 'eth_sendRawTransaction') sendAttempts.push(event.endpointId);
  });
  return { pool, events, sendAttempts };
}

// ---------------------------------------------------------------------------------------
// EVM against anvil

describe('EVM: a send whose answer is lost after anvil processed it', () => {
  const ANVIL_KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
  const ACCOUNT_0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
  const ACCOUNT_1 = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

  let anvil: AnvilInstance;
  /** Straight to anvil: the test's own view of the chain. */
  let direct: HttpTransportPool;

  beforeAll(async () => {
    anvil = await startAnvil();
    direct = new HttpTransportPool({ endpoints: [{ url: anvil.url }], chain: 'evm' });
  });

  afterAll(async () => {
    await direct?.close();
    await anvil?.stop();
  });

  const nonceOf = async (): Promise<number> => Number(BigInt((await direct.request('eth_getTransactionCount', [ACCOUNT_0, 'pending'])) as string));

  const blockNumber = async (): Promise<bigint> => BigInt((await direct.request('eth_blockNumber', [])) as string);

  /** anvil mines right after answering: poll (bounded, ≤ 2 s) until the receipt exists. */
  async function receiptOf(hash: unknown): Promise<{ status: string; blockNumber: string }> {
    for (let i = 0; i < 80; i++) {
      const receipt = (await direct.request('eth_getTransactionReceipt', [hash])) as { status: string; blockNumber: string } | null;
      if (receipt !== null) return receipt;
      await sleep(25);
    }
    throw new Error(`no receipt for ${String(hash)} after 2 s`);
  }

  /** A 1 wei transfer from account 0, signed locally with viem (EIP-1559, chain 31337). */
  const signTransfer = (nonce: number): Promise<`0x${string}`> =>
    privateKeyToAccount(ANVIL_KEY_0).signTransaction({
      chainId: 31_337,
      to: ACCOUNT_1,
      value: 1n,
      nonce,
      gas: 21_000n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });

  /** Forwards the request to anvil; for `eth_sendRawTransaction` it then resets the connection instead of answering. */
  const forwardThenLoseSends =
    (forwardSends: boolean): RpcHandler =>
    async (request, { res, socket, body }) => {
      if (request.method === 'eth_sendRawTransaction') {
        if (forwardSends) await (await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).text();
        socket.resetAndDestroy();
        return;
      }
      const upstream = await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const text = await upstream.text();
      res.writeHead(upstream.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    };

  /** tier 0: the losing proxy (sends only); tier 1: anvil itself. */
  async function losingThenAnvil(forwardSends: boolean, extra: Partial<HttpTransportPoolOptions> = {}) {
    const losing = await startRpcServer(forwardThenLoseSends(forwardSends));
    const observed = observedPool(
      [
        { id: 'losing', url: losing.url, tier: 0, kinds: ['submit'] },
        { id: 'anvil', url: anvil.url, tier: 1 },
      ],
      { chain: 'evm', ...extra },
    );
    return { losing, ...observed };
  }

  it('anvil answers eth_sendRawTransaction with exactly the hash the pool computes (keccak-256 of the raw bytes)', async () => {
    const raw = await signTransfer(await nonceOf());
    const answered = await direct.request('eth_sendRawTransaction', [raw]);
    expect(answered).toBe(evmTransactionHashFromSendParams([raw]));
    expect(answered).toBe(keccak256(raw));
    // anvil mines after answering: wait for the block, so the next test's "before" is not read ahead of it.
    await receiptOf(answered);
  });

  it('with reconcileSends: resolves with the hash anvil knows; sent once, mined once', async () => {
    const nonce = await nonceOf();
    const before = await blockNumber();
    const raw = await signTransfer(nonce);
    const { losing, pool, events, sendAttempts } = await losingThenAnvil(true, { reconcileSends: RECONCILE });

    const hash = await pool.request('eth_sendRawTransaction', [raw]);
    expect(hash).toBe(keccak256(raw));
    expect(losing.count('eth_sendRawTransaction')).toBe(1);
    expect(sendAttempts).toEqual(['losing']);
    expect(events).toEqual([expect.objectContaining({ endpointId: 'losing', method: 'eth_sendRawTransaction', found: true })]);
    expect(events[0]?.lookups).toBeGreaterThanOrEqual(1);

    // anvil has it exactly once: the nonce moved by one and the transaction is the one we signed.
    await expect(nonceOf()).resolves.toBe(nonce + 1);
    const tx = (await direct.request('eth_getTransactionByHash', [hash])) as { hash: string; nonce: string; from: string };
    expect(tx).toMatchObject({ hash, nonce: `0x${nonce.toString(16)}` });
    expect(tx.from.toLowerCase()).toBe(ACCOUNT_0.toLowerCase());
    const receipt = await receiptOf(hash);
    expect(receipt.status).toBe('0x1');
    expect(BigInt(receipt.blockNumber)).toBe(before + 1n);
    await expect(blockNumber()).resolves.toBe(before + 1n);
  });

  it('without reconcileSends: AMBIGUOUS_DISPATCH carrying the same transactionHash, which anvil knows; sent once', async () => {
    const nonce = await nonceOf();
    const raw = await signTransfer(nonce);
    const { losing, pool, events, sendAttempts } = await losingThenAnvil(true);

    const error = (await rejection(pool.request('eth_sendRawTransaction', [raw]))) as TransportError<'AMBIGUOUS_DISPATCH'>;
    expect(error.code).toBe('AMBIGUOUS_DISPATCH');
    expect(error.context).toEqual({ transactionHash: keccak256(raw), reason: 'socket-after-write' });
    expect(error.message).toContain(`eth_getTransactionByHash for ${keccak256(raw)}`);
    expect(losing.count('eth_sendRawTransaction')).toBe(1);
    expect(sendAttempts).toEqual(['losing']);
    expect(events).toEqual([]);

    // Reconciling by hand with the error's hash finds the transaction on the real node.
    const tx = (await direct.request('eth_getTransactionByHash', [error.context.transactionHash])) as { hash: string } | null;
    expect(tx?.hash).toBe(error.context.transactionHash);
    await expect(nonceOf()).resolves.toBe(nonce + 1);
  });

  it('with reconcileSends, a send lost before reaching anvil is never found: AMBIGUOUS_DISPATCH after the last lookup of the window, never resent', async () => {
    const nonce = await nonceOf();
    const raw = await signTransfer(nonce);
    const windowMs = 600;
    const intervalMs = 100;
    const { losing, pool, events, sendAttempts } = await losingThenAnvil(false, { reconcileSends: { windowMs, intervalMs } });

    const started = performance.now();
    const error = (await rejection(pool.request('eth_sendRawTransaction', [raw]))) as TransportError<'AMBIGUOUS_DISPATCH'>;
    const elapsedMs = performance.now() - started;
    expect(error.code).toBe('AMBIGUOUS_DISPATCH');
    expect(error.context.transactionHash).toBe(keccak256(raw));
    // A lookup starts only while it can start inside the window: about ceil(600 / 100) = 6
    // (0 … 500), fewer when reads are slow; one more when the system clock wakes each pause a
    // hair early (it tolerates 1 ms) and the lookups drift under 100 ms apart.
    expect(error.context.lookups).toBeGreaterThanOrEqual(2);
    expect(error.context.lookups).toBeLessThanOrEqual(7);
    expect(error.message).toContain(`${error.context.lookups} lookup(s) did not find it yet`);
    // The search ends right after the last lookup, which ends no earlier than windowMs − intervalMs
    // into the window (or a next one would start), and no later than the window's end (a lookup
    // gets only the time left): no trailing pause to windowMs.
    expect(elapsedMs).toBeGreaterThanOrEqual(windowMs - intervalMs);
    expect(elapsedMs).toBeLessThan(windowMs + 1_000);
    expect(events).toEqual([expect.objectContaining({ found: false, lookups: error.context.lookups })]);
    expect(losing.count('eth_sendRawTransaction')).toBe(1);
    expect(sendAttempts).toEqual(['losing']);
    await expect(nonceOf()).resolves.toBe(nonce);
  });
});

// ---------------------------------------------------------------------------------------
// Solana


const status = (slot: number) => ({ slot, confirmations: 0, err: null, status: { Ok: null }, confirmationStatus: 'processed' });

describe('Solana: the fixture server resets after reading sendTransaction', () => {
  const [SEND] = loadFixtures([fileURLToPath(new URL('../../fixtures/solana-sendTransaction.json', import.meta.url))]);
  const WIRE = SEND!.request.params[0] as string;
  const SIGNATURE = SEND!.expect?.['signature'] as string;
  const STATUS_FOUND = parseFixture({
    name: 'solana-getSignatureStatuses-found',
    source: 'Built for this test: the status of the fixture transaction, processed.',
    chain: 'solana',
    request: { method: 'getSignatureStatuses', params: [[SIGNATURE], { searchTransactionHistory: false }] },
    response: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', result: { context: { slot: 300 }, value: [status(300)] }, id: 1 }),
    },
  });

  async function resettingFixtureServer(): Promise<FixtureServer> {
    const server = await createFixtureServer({ fixtures: [SEND!, STATUS_FOUND], behaviours: { sendTransaction: [{ type: 'reset' }] } });
    fixtureServers.push(server);
    return server;
  }

  it('with reconcileSends: resolves with the signature after a getSignatureStatuses lookup; sendTransaction arrived once', async () => {
    const server = await resettingFixtureServer();
    const { pool, events } = observedPool([{ id: 'fixture', url: server.url }], { reconcileSends: RECONCILE });

    await expect(pool.request('sendTransaction', [WIRE, { encoding: 'base64' }])).resolves.toBe(SIGNATURE);
    expect(server.count('sendTransaction')).toBe(1);
    expect(server.count('getSignatureStatuses')).toBe(1);
    expect(server.requests.find((r) => r.method === 'getSignatureStatuses')?.params).toEqual([[SIGNATURE], { searchTransactionHistory: false }]);
    expect(events).toEqual([expect.objectContaining({ endpointId: 'fixture', method: 'sendTransaction', found: true, lookups: 1 })]);
  });

  it('without reconcileSends: AMBIGUOUS_DISPATCH with the signature; nothing looked up, nothing resent', async () => {
    const server = await resettingFixtureServer();
    const { pool } = observedPool([{ id: 'fixture', url: server.url }]);

    const error = await rejection(pool.request('sendTransaction', [WIRE, { encoding: 'base64' }]));
    expect(error.code).toBe('AMBIGUOUS_DISPATCH');
    expect(error.signature).toBe(SIGNATURE);
    expect(server.countByMethod()).toEqual({ sendTransaction: 1 });
  });
});

describe('Solana: a loopback node that records what it received, resets after a send and answers statuses from its record', () => {
  /**
   * sendTransaction: records the signature (it "lands" `landAfterMs` later, or never when
   * `lands` is false), then resets the connection. getSignatureStatuses: a status for each
   * landed signature, null otherwise.
   */
  async function ledgerNode(options: { readonly lands: boolean; readonly landAfterMs?: number }) {
    const landed = new Set<string>();
    const timers: NodeJS.Timeout[] = [];
    const node = await startRpcServer((request, { res, socket }) => {
      if (request.method === 'sendTransaction') {
        const [wire] = request.params as [string];
        const signature = signatureOf(wire);
        if (options.lands && (options.landAfterMs ?? 0) === 0) landed.add(signature);
        else if (options.lands) timers.push(setTimeout(() => landed.add(signature), options.landAfterMs));
        socket.resetAndDestroy();
        return;
      }
      if (request.method === 'getSignatureStatuses') {
        const [signatures] = request.params as [string[]];
        sendResult(res, request.id, JSON.stringify({ context: { slot: 42 }, value: signatures.map((s) => (landed.has(s) ? status(42) : null)) }));
        return;
      }
      sendResult(res, request.id, 'null');
    });
    return { node, stop: () => timers.forEach(clearTimeout) };
  }

  const stops: (() => void)[] = [];
  afterEach(() => stops.splice(0).forEach((stop) => stop()));

  it('a send that landed at once resolves with its signature on the first lookup', async () => {
    const { node, stop } = await ledgerNode({ lands: true });
    stops.push(stop);
    const { pool, events, sendAttempts } = observedPool([{ id: 'ledger', url: node.url }], { reconcileSends: RECONCILE });
    const tx = wireTransaction(1);

    await expect(pool.request('sendTransaction', [tx, { encoding: 'base64' }])).resolves.toBe(signatureOf(tx));
    expect(node.count('sendTransaction')).toBe(1);
    expect(sendAttempts).toEqual(['ledger']);
    expect(events).toEqual([expect.objectContaining({ found: true, lookups: 1 })]);
  });

  it('a send that lands 300 ms later is found by a later lookup', async () => {
    const { node, stop } = await ledgerNode({ lands: true, landAfterMs: 300 });
    stops.push(stop);
    const { pool, events } = observedPool([{ id: 'ledger', url: node.url }], { reconcileSends: RECONCILE });
    const tx = wireTransaction(2);

    await expect(pool.request('sendTransaction', [tx, { encoding: 'base64' }])).resolves.toBe(signatureOf(tx));
    expect(node.count('sendTransaction')).toBe(1);
    expect(node.count('getSignatureStatuses')).toBeGreaterThanOrEqual(2);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ found: true });
    expect(events[0]?.lookups).toBe(node.count('getSignatureStatuses'));
  });

  it('a send that never lands: AMBIGUOUS_DISPATCH with the signature and the lookups made, right after the last lookup of the window', async () => {
    const { node, stop } = await ledgerNode({ lands: false });
    stops.push(stop);
    const windowMs = 500;
    const intervalMs = 100;
    const { pool, events } = observedPool([{ id: 'ledger', url: node.url }], { reconcileSends: { windowMs, intervalMs } });
    const tx = wireTransaction(3);

    const started = performance.now();
    const error = (await rejection(pool.request('sendTransaction', [tx, { encoding: 'base64' }]))) as TransportError<'AMBIGUOUS_DISPATCH'>;
    const elapsedMs = performance.now() - started;
    expect(error.code).toBe('AMBIGUOUS_DISPATCH');
    expect(error.signature).toBe(signatureOf(tx));
    // Every lookup that reached the node is counted; about ceil(500 / 100) = 5 (0 … 400), one
    // more when early timer wakes (≤ 1 ms each) drift the lookups under 100 ms apart.
    expect(node.count('getSignatureStatuses')).toBeGreaterThanOrEqual(2);
    expect(node.count('getSignatureStatuses')).toBeLessThanOrEqual(error.context.lookups!);
    expect(error.context.lookups).toBeLessThanOrEqual(6);
    // Ends right after the last lookup: no earlier than windowMs − intervalMs, no trailing pause to windowMs.
    expect(elapsedMs).toBeGreaterThanOrEqual(windowMs - intervalMs);
    expect(elapsedMs).toBeLessThan(windowMs + 1_000);
    expect(events).toEqual([expect.objectContaining({ found: false, lookups: error.context.lookups })]);
    expect(node.count('sendTransaction')).toBe(1);
  });

  it('without reconcileSends: AMBIGUOUS_DISPATCH with the signature; only the send arrived', async () => {
    const { node, stop } = await ledgerNode({ lands: true });
    stops.push(stop);
    const { pool } = observedPool([{ id: 'ledger', url: node.url }]);
    const tx = wireTransaction(4);

    const error = await rejection(pool.request('sendTransaction', [tx, { encoding: 'base64' }]));
    expect(error.code).toBe('AMBIGUOUS_DISPATCH');
    expect(error.signature).toBe(signatureOf(tx));
    expect(node.received.map((r) => r.method)).toEqual(['sendTransaction']);
  });
});
