import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TransportError } from '../../src/errors/transport-error.js';
import { createEvmClient, type EvmClient } from '../../src/evm/index.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { startAnvil, type AnvilInstance } from '../helpers/anvil.js';
import { closeAllServers, loadFixture, startRpcServer, type RpcHandler } from '../helpers/loopback.js';

/**
 * The typed EVM calls and the send-safety promise against a real node (anvil 1.7.1), through
 * the real pool and the undici executor. Loopback proxies in front of anvil count what
 * arrives and can lose the answer after anvil processed the request.
 */

const ACCOUNT_0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const ACCOUNT_1 = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const ONE_ETH = 10n ** 18n;

/** Recorded from anvil 1.7.1 --timestamp 1700000000: 1 ETH from account 0 to account 1, nonce 0. */
const RECORDED = loadFixture('evm-eth_sendRawTransaction');
const RECORDED_RAW_TX = RECORDED.request.params[0] as string;
const RECORDED_HASH = RECORDED.expect?.['result'] as string;

/** Forwards the request body to anvil and relays anvil's answer; `afterForward` may then misbehave instead. */
function forwardTo(url: string, afterForward?: RpcHandler): RpcHandler {
  return async (request, exchange) => {
    const upstream = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: exchange.body });
    const text = await upstream.text();
    if (afterForward) return afterForward(request, exchange);
    exchange.res.writeHead(upstream.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    exchange.res.end(text);
  };
}

describe('typed EVM calls and sends against anvil through the pool', () => {
  let anvil: AnvilInstance;
  let pool: HttpTransportPool;
  let evm: EvmClient;
  const extraPools: HttpTransportPool[] = [];

  beforeAll(async () => {
    anvil = await startAnvil();
    pool = new HttpTransportPool({ endpoints: [{ url: anvil.url }], chain: 'evm' });
    evm = createEvmClient(pool);
  });

  afterEach(async () => {
    await Promise.all(extraPools.splice(0).map((p) => p.close()));
    await closeAllServers();
  });

  afterAll(async () => {
    await pool?.close();
    await anvil?.stop();
  });

  /** anvil mines right after answering, not before: poll (bounded, ≤ 2 s) until the receipt exists. */
  async function receiptOf(hash: string): Promise<{ status: string; blockNumber: string }> {
    for (let i = 0; i < 80; i++) {
      const receipt = (await pool.request('eth_getTransactionReceipt', [hash])) as { status: string; blockNumber: string } | null;
      if (receipt !== null) return receipt;
      await sleep(25);
    }
    throw new Error(`no receipt for ${hash} after 2 s`);
  }

  function poolOver(...urls: string[]): HttpTransportPool {
    const p = new HttpTransportPool({ endpoints: urls.map((url, tier) => ({ id: `e${tier}`, url, tier })), chain: 'evm' });
    extraPools.push(p);
    return p;
  }

  it('reads the default account balance exactly: 10 000 ETH in wei', async () => {
    await expect(evm.getBalance(ACCOUNT_0)).resolves.toBe(10_000n * ONE_ETH);
    await expect(evm.getBalance(ACCOUNT_0.toLowerCase(), 0n)).resolves.toBe(10_000n * ONE_ETH);
  });

  it('reads chain id 31337', async () => {
    await expect(evm.getChainId()).resolves.toBe(31_337);
  });

  it('reads the genesis hash fixed by --timestamp 1700000000, which is not mainnet', async () => {
    await expect(evm.getGenesisHash()).resolves.toBe('0xc56b8342e33b57477139f45874ae699b6fe1ca1a65d089b78c34dabc3206e07b');
  });

  it('reads an anvil client version', async () => {
    const version = await evm.getVersion();
    expect(version.clientVersion.startsWith('anvil/')).toBe(true);
    expect(version.name).toBe('anvil');
  });

  it('reports a node that is not syncing as healthy', async () => {
    await expect(evm.getHealth()).resolves.toEqual({ healthy: true });
  });

  it('reads the block number as a bigint (0 before any transaction)', async () => {
    await expect(evm.getBlockNumber()).resolves.toBe(0n);
  });

  it('a send whose answer is lost after anvil processed it fails AMBIGUOUS_DISPATCH, is not resent, and landed exactly once', async () => {
    // e0 forwards to anvil, then resets the client socket instead of answering; e1 relays faithfully.
    const losing = await startRpcServer(forwardTo(anvil.url, (_, { socket }) => socket.resetAndDestroy()));
    const relay = await startRpcServer(forwardTo(anvil.url));
    const before = await evm.getBlockNumber();

    const error: unknown = await createEvmClient(poolOver(losing.url, relay.url))
      .sendRawTransaction(RECORDED_RAW_TX)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ code: 'AMBIGUOUS_DISPATCH', attempts: [{ endpointId: 'e0', dispatch: 'dispatched-ambiguous' }] });
    expect(losing.count('eth_sendRawTransaction')).toBe(1);
    expect(relay.count()).toBe(0);

    // Reconcile: the receipt shows it mined once, in the one new block.
    const receipt = await receiptOf(RECORDED_HASH);
    expect(receipt.status).toBe('0x1');
    await expect(evm.getBlockNumber()).resolves.toBe(before + 1n);
    expect(BigInt(receipt.blockNumber)).toBe(before + 1n);
    await expect(pool.request('eth_getTransactionCount', [ACCOUNT_0, 'latest'])).resolves.toBe('0x1');
    await expect(evm.getBalance(ACCOUNT_1)).resolves.toBe(10_001n * ONE_ETH);

    // Sending the same bytes again directly is answered "nonce too low"/"already known": check the receipt, not a failure.
    const again: unknown = await evm.sendRawTransaction(RECORDED_RAW_TX).catch((e: unknown) => e);
    expect(again).toMatchObject({ code: 'RPC_ERROR' });
    expect((again as TransportError).rpcMessage).toMatch(/nonce too low|already known/i);
  });

  it('an ordinary send arrives exactly once and lands', async () => {
    const relay = await startRpcServer(forwardTo(anvil.url));
    const relayed = createEvmClient(poolOver(relay.url));
    const before = await evm.getBlockNumber();
    const nonce = (await pool.request('eth_getTransactionCount', [ACCOUNT_0, 'latest'])) as string;
    // anvil signs for its unlocked accounts, so the test needs no signing library.
    const raw = (await pool.request('eth_signTransaction', [
      {
        from: ACCOUNT_0,
        to: ACCOUNT_1,
        value: `0x${ONE_ETH.toString(16)}`,
        gas: '0x5208',
        nonce,
        maxFeePerGas: '0x77359400',
        maxPriorityFeePerGas: '0x3b9aca00',
        chainId: '0x7a69',
      },
    ])) as string;

    const hash = await relayed.sendRawTransaction(raw);
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(relay.count('eth_sendRawTransaction')).toBe(1);
    const receipt = await receiptOf(hash);
    expect(receipt.status).toBe('0x1');
    await expect(evm.getBlockNumber()).resolves.toBe(before + 1n);
    await expect(evm.getBalance(ACCOUNT_1)).resolves.toBe(10_002n * ONE_ETH);
  });

  it('rejects a bad address without sending anything to the node', async () => {
    const relay = await startRpcServer(forwardTo(anvil.url));
    const relayed = createEvmClient(poolOver(relay.url));
    await expect(relayed.getBalance('0x1234')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(relayed.sendRawTransaction('0x123')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(relay.count()).toBe(0);
  });
});
