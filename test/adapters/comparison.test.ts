import { FallbackProvider, JsonRpcProvider, Network } from 'ethers';
import { createPublicClient, custom, fallback, http, keccak256, type Transport } from 'viem';
import { anvil as anvilChain } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SturdyProvider } from '../../src/adapters/ethers.js';
import { sturdyTransport } from '../../src/adapters/viem.js';
import type { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { startAnvil, type AnvilInstance } from '../helpers/anvil.js';
import { closeAllServers, startRpcServer, type RpcServer } from '../helpers/loopback.js';
import { ANVIL_ACCOUNT_0, closePools, createPool, duplicateArrivals, forwardTo, pollReceipt, signTransferWithViem } from './helpers.js';

/**
 * One faulty-endpoint script, run through each library's own failover and through the
 * adapters: endpoint A forwards `eth_sendRawTransaction` to anvil (which accepts it) and
 * then resets the connection instead of answering; endpoint B relays faithfully. What is
 * counted is what the endpoints received: arrivals of the same signed transaction beyond
 * the first. A node deduplicates identical signed bytes, so the extra copies are wasted
 * sends here — and real double-spends for anything re-signed or node-signed after a
 * "failure". The adapters must send each transaction once; the peers' counts are recorded.
 */

const ANVIL_NETWORK = Network.from(31_337);

/** An error's class name, plus its string `code` when it has one (ethers' error codes, the pool's). */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return typeof error;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${error.name} ${code}` : error.name;
}

describe('duplicate sends under a reset-after-read endpoint: library failover vs the adapters', () => {
  let anvil: AnvilInstance;
  let direct: HttpTransportPool;
  const counts: Record<string, string> = {};

  beforeAll(async () => {
    anvil = await startAnvil();
    direct = createPool({ endpoints: [{ url: anvil.url }], chain: 'evm' });
  });
  afterAll(async () => {
    console.log(`duplicate eth_sendRawTransaction arrivals (A resets after reading the send): ${JSON.stringify(counts)}`);
    await closeAllServers();
    await closePools();
    await anvil?.stop();
  });

  /** A fresh transfer from account 0, signed locally with the next nonce. */
  async function signNext(): Promise<`0x${string}`> {
    const nonce = Number(BigInt((await direct.request('eth_getTransactionCount', [ANVIL_ACCOUNT_0, 'pending'])) as string));
    return signTransferWithViem(nonce);
  }

  /** Runs `send` against fresh endpoints A (faulty) and B, and reports duplicates and how the call ended; the transaction must land once. */
  async function runScript(name: string, send: (a: RpcServer, b: RpcServer, rawTx: `0x${string}`) => Promise<unknown>) {
    const a = await startRpcServer(forwardTo(anvil.url, 'eth_sendRawTransaction'));
    const b = await startRpcServer(forwardTo(anvil.url));
    const nonceBefore = BigInt((await direct.request('eth_getTransactionCount', [ANVIL_ACCOUNT_0, 'latest'])) as string);
    const rawTx = await signNext();
    const outcome = await send(a, b, rawTx).then(
      () => 'resolved',
      (error: unknown) => `rejected (${describeError(error)})`,
    );
    // The transaction hash is the keccak of the signed bytes: reconcile by receipt.
    await pollReceipt(() => direct.request('eth_getTransactionReceipt', [keccak256(rawTx)]));
    const nonceAfter = BigInt((await direct.request('eth_getTransactionCount', [ANVIL_ACCOUNT_0, 'latest'])) as string);
    const duplicates = duplicateArrivals('eth_sendRawTransaction', a, b);
    counts[name] = `${duplicates} (${outcome})`;
    await Promise.all([a.close(), b.close()]);
    return { duplicates, landedOnce: nonceAfter === nonceBefore + 1n, outcome };
  }

  const clientOf = (transport: Transport) => createPublicClient({ chain: anvilChain, transport, pollingInterval: 50 });
  const poolOf = (a: RpcServer, b: RpcServer) =>
    createPool({ endpoints: [{ id: 'a', url: a.url, tier: 0 }, { id: 'b', url: b.url, tier: 1 }], chain: 'evm' });
  async function sendWithViem(transport: Transport, rawTx: `0x${string}`) {
    return clientOf(transport).sendRawTransaction({ serializedTransaction: rawTx });
  }
  async function sendWithEthers(provider: JsonRpcProvider | FallbackProvider | SturdyProvider, rawTx: `0x${string}`) {
    try {
      return await provider.broadcastTransaction(rawTx);
    } finally {
      provider.destroy();
    }
  }

  it('viem fallback([http(A), http(B)]): recorded', async () => {
    const run = await runScript('viem fallback', (a, b, rawTx) => sendWithViem(fallback([http(a.url), http(b.url)]), rawTx));
    expect(run.landedOnce).toBe(true);
  });

  it('viem + sturdyTransport: sent once (A only), the call fails AMBIGUOUS_DISPATCH', async () => {
    const run = await runScript('viem sturdyTransport', (a, b, rawTx) => sendWithViem(sturdyTransport(poolOf(a, b), { custom }), rawTx));
    expect(run.duplicates).toBe(0);
    expect(run.outcome).toBe('rejected (ProviderDisconnectedError)');
    expect(run.landedOnce).toBe(true);
  });

  it('ethers FallbackProvider([JsonRpcProvider(A), JsonRpcProvider(B)]): recorded', async () => {
    const run = await runScript('ethers FallbackProvider', (a, b, rawTx) => {
      const backends = [a, b].map((server) => new JsonRpcProvider(server.url, ANVIL_NETWORK, { staticNetwork: ANVIL_NETWORK, pollingInterval: 50 }));
      return sendWithEthers(new FallbackProvider(backends, ANVIL_NETWORK, { pollingInterval: 50 }), rawTx).finally(() => backends.forEach((p) => p.destroy()));
    });
    expect(run.landedOnce).toBe(true);
  });

  it('ethers + SturdyProvider: sent once (A only), the call fails AMBIGUOUS_DISPATCH', async () => {
    const run = await runScript('ethers SturdyProvider', (a, b, rawTx) =>
      sendWithEthers(new SturdyProvider(poolOf(a, b), ANVIL_NETWORK, { staticNetwork: ANVIL_NETWORK }), rawTx),
    );
    expect(run.duplicates).toBe(0);
    expect(run.outcome).toBe('rejected (TransportError AMBIGUOUS_DISPATCH)');
    expect(run.landedOnce).toBe(true);
  });
});
