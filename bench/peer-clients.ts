/**
 * The clients the peer benchmark compares, each making one cheap call per `call()`
 * (eth_blockNumber for EVM clients, getSlot for Solana clients: the same tiny answer) with
 * every cache and batcher that would turn several calls into one request switched off.
 */
import { JsonRpcProvider, FallbackProvider, Network } from 'ethers';
import { createSolanaRpcFromTransport } from '@solana/kit';
import { createHttpTransportForSolanaRpc } from '@solana/rpc-transport-http';
import { Connection } from '@solana/web3.js';
import { Pool } from 'undici';
import { createPublicClient, fallback, http } from 'viem';
import { HttpTransportPool } from '../src/pool/http-transport-pool.js';

export interface PeerClient {
  readonly name: string;
  readonly note: string;
  call(): Promise<unknown>;
}

export const RAW = 'raw undici Pool.request';
export const STURDY_ONE = 'sturdy-rpc, 1 endpoint';
export const STURDY_FOUR = 'sturdy-rpc, 4 endpoints';
export const STURDY_DISTINCT_OFF = 'sturdy-rpc, distinct reads, coalesce: false';
export const STURDY_DISTINCT_ON = 'sturdy-rpc, distinct reads, coalescing on';
/** The default pool on 4 endpoints, every call its own params (issue 26 §2's workload). */
export const STURDY_FOUR_DEFAULTS = 'sturdy-rpc, 4 endpoints, defaults, distinct reads';

const BODY = '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}';
const network = Network.from(1);

/** Creates every client against `urls` (4 ports of one server process); `close()` releases them all. */
export function createPeerClients(urls: readonly string[]): { clients: PeerClient[]; close(): Promise<void> } {
  const url = urls[0]!;
  const raw = new Pool(url, { connections: 64 });
  // Coalescing off: 64 loops of the same eth_blockNumber would share requests (no peer here coalesces).
  const sturdyOne = new HttpTransportPool({ endpoints: [{ url, maxConcurrentRequests: 64 }], chain: 'evm', coalesce: false });
  // The cost of the coalescing path when it saves nothing: every call distinct (its own address).
  const sturdyDistinctOn = new HttpTransportPool({ endpoints: [{ url, maxConcurrentRequests: 64 }], chain: 'evm' });
  const sturdyDistinctOff = new HttpTransportPool({ endpoints: [{ url, maxConcurrentRequests: 64 }], chain: 'evm', coalesce: false });
  let distinct = 0;
  const nextAddress = () => `0x${(distinct++ % 1_000_000).toString(16).padStart(40, '0')}`;
  const sturdyFour = new HttpTransportPool({
    // Each port stands for a different provider (on loopback they would share one operator).
    endpoints: urls.map((u, i) => ({ id: `e${i}`, url: u, operator: `op${i}`, maxConcurrentRequests: 64 })),
    chain: 'evm',
    reputation: {},
    concentration: { maxOperatorShare: 0.65 },
    coalesce: false,
  });
  const sturdyFourDefaults = new HttpTransportPool({
    endpoints: urls.map((u, i) => ({ id: `e${i}`, url: u, operator: `op${i}`, maxConcurrentRequests: 64 })),
    chain: 'evm',
  });
  const viemHttp = createPublicClient({ transport: http(url, { batch: false }), cacheTime: 0 });
  const viemFallback = createPublicClient({ transport: fallback(urls.map((u) => http(u, { batch: false }))), cacheTime: 0 });
  const ethersOptions = { staticNetwork: network, batchMaxCount: 1, cacheTimeout: -1 };
  const ethersRpc = new JsonRpcProvider(url, network, ethersOptions);
  const ethersSubs = urls.map((u) => new JsonRpcProvider(u, network, ethersOptions));
  const ethersFallback = new FallbackProvider(ethersSubs, network, { cacheTimeout: -1 });
  // kit's default transport coalesces identical calls made in the same microtask (64 loops
  // resolved together would share one request), so use its HTTP transport without it.
  const kit = createSolanaRpcFromTransport(createHttpTransportForSolanaRpc({ url }));
  const web3 = new Connection(url, 'confirmed');

  const clients: PeerClient[] = [
    {
      name: RAW,
      note: 'the limit: no parsing',
      call: async () => {
        const res = await raw.request({ path: '/', method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY });
        return res.body.text();
      },
    },
    { name: STURDY_ONE, note: '`pool.request`', call: () => sturdyOne.request('eth_blockNumber', []) },
    { name: STURDY_FOUR, note: 'reputation + cap on', call: () => sturdyFour.request('eth_blockNumber', []) },
    { name: STURDY_DISTINCT_OFF, note: 'eth_getBalance, each call its own address', call: () => sturdyDistinctOff.request('eth_getBalance', [nextAddress(), 'latest']) },
    { name: STURDY_DISTINCT_ON, note: 'eth_getBalance, each call its own address', call: () => sturdyDistinctOn.request('eth_getBalance', [nextAddress(), 'latest']) },
    { name: STURDY_FOUR_DEFAULTS, note: 'eth_getBalance, each call its own address', call: () => sturdyFourDefaults.request('eth_getBalance', [nextAddress(), 'latest']) },
    { name: 'viem http', note: '`client.request`', call: () => viemHttp.request({ method: 'eth_blockNumber' }) },
    { name: 'viem fallback (4)', note: '`client.request`', call: () => viemFallback.request({ method: 'eth_blockNumber' }) },
    { name: 'ethers JsonRpcProvider', note: '`send`, batching off', call: () => ethersRpc.send('eth_blockNumber', []) },
    { name: 'ethers FallbackProvider (4)', note: '`getBlockNumber`, cache off; quorum 2 (default)', call: () => ethersFallback.getBlockNumber() },
    { name: '@solana/kit', note: 'HTTP transport, no coalescing; getSlot', call: () => kit.getSlot().send() },
    { name: '@solana/web3.js v1', note: '`Connection.getSlot`', call: () => web3.getSlot() },
  ];
  return {
    clients,
    close: async () => {
      ethersRpc.destroy();
      ethersFallback.destroy();
      for (const sub of ethersSubs) sub.destroy();
      await Promise.all([raw.close(), sturdyOne.close(), sturdyFour.close(), sturdyDistinctOn.close(), sturdyDistinctOff.close(), sturdyFourDefaults.close()]);
    },
  };
}
