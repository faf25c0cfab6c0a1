import { isError, Transaction, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SturdyProvider } from '../../src/adapters/ethers.js';
import { isTransportError } from '../../src/errors/transport-error.js';
import type { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { ANVIL_ACCOUNT_0, ANVIL_ACCOUNT_1, ANVIL_KEY_0, firstParamsOf, losingThenRelay, ONE_ETH, pollReceipt, RECORDED_SEND, rejectionOf, relayTo, useAnvil } from './helpers.js';

/** ethers v6 `SturdyProvider` against a real anvil, directly and behind counting / answer-losing proxies. */

describe('ethers v6 SturdyProvider, against anvil', () => {
  const anvil = useAnvil();
  let provider: SturdyProvider;
  const providers: SturdyProvider[] = [];

  beforeAll(() => {
    provider = providerOver(anvil.pool);
  });
  // Runs before useAnvil's afterAll (hooks after tests run in reverse order): providers go before their pools.
  afterAll(() => {
    for (const p of providers) p.destroy();
  });

  function providerOver(pool: HttpTransportPool): SturdyProvider {
    const p = new SturdyProvider(pool, undefined, { pollingInterval: 50, cacheTimeout: -1 });
    providers.push(p);
    return p;
  }

  it('detects the network (chain id 31337) and reads the default account balance exactly', async () => {
    const network = await provider.getNetwork();
    expect(network.chainId).toBe(31_337n);
    await expect(provider.getBalance(ANVIL_ACCOUNT_0)).resolves.toBe(10_000n * ONE_ETH);
  });

  it("sends ethers' batches as one JSON-RPC batch (one HTTP request), with each result in its place", async () => {
    const { relay, pool } = await relayTo(anvil.url);
    const relayed = providerOver(pool);
    await relayed.getNetwork();
    const before = relay.count();
    const sendSpy = vi.spyOn(relayed, '_send');

    const [balance0, balance1, nonce, blockNumber] = await Promise.all([
      relayed.getBalance(ANVIL_ACCOUNT_0),
      relayed.getBalance(ANVIL_ACCOUNT_1),
      relayed.getTransactionCount(ANVIL_ACCOUNT_0),
      relayed.getBlockNumber(),
    ]);
    expect([balance0, balance1, nonce, blockNumber]).toEqual([10_000n * ONE_ETH, 10_000n * ONE_ETH, 0, 0]);
    // ethers handed _send one batch (the four calls, plus its own eth_chainId check) ...
    const batches = sendSpy.mock.calls.map(([payload]) => (Array.isArray(payload) ? payload.length : 1));
    expect(batches).toHaveLength(1);
    expect(batches[0]).toBeGreaterThanOrEqual(4);
    // ... and it reached the node as one HTTP request holding every item.
    const arrived = relay.received.slice(before);
    expect(arrived).toHaveLength(1);
    const items = (JSON.parse(arrived[0]!.body) as { method: string }[]).map((item) => item.method);
    expect(items).toHaveLength(batches[0] ?? 0);
    expect(items).toEqual(expect.arrayContaining(['eth_getBalance', 'eth_getBalance', 'eth_getTransactionCount', 'eth_blockNumber']));
  });

  it('broadcasts a signed transaction that lands once', async () => {
    const response = await provider.broadcastTransaction(RECORDED_SEND.rawTx);
    expect(response.hash).toBe(RECORDED_SEND.hash);
    const receipt = await response.wait(1, 5_000);
    expect(receipt?.status).toBe(1);
    await expect(provider.getBalance(ANVIL_ACCOUNT_1)).resolves.toBe(10_001n * ONE_ETH);
  });

  it("a node's own error goes through ethers' getRpcError (NONCE_EXPIRED for a landed transaction)", async () => {
    const error = await rejectionOf(provider.broadcastTransaction(RECORDED_SEND.rawTx));
    expect(isError(error, 'NONCE_EXPIRED')).toBe(true);
  });

  it('a broadcast whose answer is lost after anvil processed it rejects with AMBIGUOUS_DISPATCH, is not resent, and landed once', async () => {
    const { losing, relay, pool } = await losingThenRelay(anvil.url, 'eth_sendRawTransaction');
    const wallet = new Wallet(ANVIL_KEY_0);
    const signed = await wallet.signTransaction({
      chainId: 31_337n,
      to: ANVIL_ACCOUNT_1,
      value: ONE_ETH,
      nonce: await provider.getTransactionCount(ANVIL_ACCOUNT_0),
      gasLimit: 21_000n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });

    const error = await rejectionOf(providerOver(pool).broadcastTransaction(signed));
    expect(isTransportError(error, 'AMBIGUOUS_DISPATCH')).toBe(true);
    expect(firstParamsOf('eth_sendRawTransaction', losing, relay)).toEqual([signed]);

    const receipt = await pollReceipt(() => provider.getTransactionReceipt(Transaction.from(signed).hash ?? ''));
    expect(receipt.status).toBe(1);
    await expect(provider.getTransactionCount(ANVIL_ACCOUNT_0)).resolves.toBe(2);
  });
});
