/**
 * The clients of the fault scenarios, each with its library's default retry and failover
 * behaviour and a 2 s per-request timeout. `run(item)` resolves true when the call returned
 * the right chain's answer, false when it returned another answer, and throws on failure.
 */
import { Connection, PublicKey } from '@solana/web3.js';
import { FallbackProvider, FetchRequest, JsonRpcProvider, Network } from 'ethers';
import { createPublicClient, fallback, http, type PublicClient } from 'viem';
import { createEvmClient } from '../src/evm/client.js';
import { HttpTransportPool } from '../src/pool/http-transport-pool.js';
import { EVM_CHAIN_ID, evmBalanceOf, solanaBalanceOf } from './fault-model.js';
import type { WorkItem } from './fault-workload.js';

export const TIMEOUT_MS = 2_000;

export interface FaultClient {
  run(item: WorkItem): Promise<boolean>;
  close(): Promise<void>;
}

export interface FaultClientFactory {
  readonly name: string;
  readonly note: string;
  /** Fault scenarios it runs in; all when absent. */
  readonly scenarios?: readonly string[];
  /** Single-endpoint clients run a prefix of the workload (see faults.bench.ts). */
  readonly singleEndpoint?: boolean;
  create(urls: readonly string[]): Promise<FaultClient>;
}

function sturdyPool(urls: readonly string[], guarded: boolean): HttpTransportPool {
  return new HttpTransportPool({
    coalesce: false, // the peers compared here do not coalesce: every call is its own request
    // Each port stands for a different provider (on loopback they would share one operator).
    endpoints: urls.map((url, i) => ({ id: `e${i}`, url, operator: `op${i}`, requestTimeoutMs: TIMEOUT_MS })),
    chain: 'evm',
    ...(guarded ? { expectedChain: { chainId: EVM_CHAIN_ID }, reconcileSends: true } : {}),
  });
}

function sturdyClient(pool: HttpTransportPool): FaultClient {
  const evm = createEvmClient(pool);
  return {
    run: async (item) =>
      item.kind === 'read'
        ? (await evm.getBalance(item.evmAddress)) === evmBalanceOf(item.evmAddress)
        : (await evm.sendRawTransaction(item.evmRaw)) === item.evmHash,
    close: () => pool.close(),
  };
}

const sturdy: FaultClientFactory = {
  name: 'sturdy-rpc',
  note: `defaults (3 retries, reputation, cap), 4 endpoints, \`expectedChain: { chainId: ${EVM_CHAIN_ID} }\`, \`reconcileSends: true\``,
  create: async (urls) => sturdyClient(sturdyPool(urls, true)),
};

/** Without the opt-ins: what the pool alone does against a wrong-chain endpoint, and with ambiguous sends. */
const sturdyUnguarded: FaultClientFactory = {
  name: 'sturdy-rpc, defaults only',
  note: 'the same pool without `expectedChain` and `reconcileSends`',
  scenarios: ['reset', 'wrong-chain'],
  create: async (urls) => sturdyClient(sturdyPool(urls, false)),
};

/** viem `fallback` over `urls` at its defaults (`rank` optional), checked against the right chain's answers. */
/** A viem public client with `fallback` over `urls` at its defaults (`rank` optional), no cache. */
export function createViemFallback(urls: readonly string[], rank = false): PublicClient {
  return createPublicClient({ transport: fallback(urls.map((url) => http(url, { timeout: TIMEOUT_MS })), { rank }), cacheTime: 0 });
}

export function viemFallbackClient(urls: readonly string[], rank = false): FaultClient {
  const client = createViemFallback(urls, rank);
  return {
    run: async (item) =>
      item.kind === 'read'
        ? (await client.getBalance({ address: item.evmAddress })) === evmBalanceOf(item.evmAddress)
        : (await client.sendRawTransaction({ serializedTransaction: item.evmRaw })) === item.evmHash,
    close: async () => {},
  };
}

/** ethers `FallbackProvider` over `urls` at its defaults, checked against the right chain's answers. */
/** An ethers `FallbackProvider` over `urls` at its defaults (static network, 2 s timeout, no batching), and how to destroy it. */
export function createEthersFallback(urls: readonly string[]): { readonly provider: FallbackProvider; destroy(): void } {
  const network = Network.from(EVM_CHAIN_ID);
  const subs = urls.map((url) => {
    const request = new FetchRequest(url);
    request.timeout = TIMEOUT_MS;
    return new JsonRpcProvider(request, network, { staticNetwork: network, batchMaxCount: 1 });
  });
  const provider = new FallbackProvider(subs, network);
  return {
    provider,
    destroy: () => {
      provider.destroy();
      for (const sub of subs) sub.destroy();
    },
  };
}

export function ethersFallbackClient(urls: readonly string[]): FaultClient {
  const { provider, destroy } = createEthersFallback(urls);
  return {
    run: async (item) =>
      item.kind === 'read'
        ? (await provider.getBalance(item.evmAddress)) === evmBalanceOf(item.evmAddress)
        : (await provider.broadcastTransaction(item.evmRaw)).hash === item.evmHash,
    close: async () => destroy(),
  };
}

const viemFallback: FaultClientFactory = {
  name: 'viem fallback',
  note: 'defaults (retryCount 3, in order), `http(url, { timeout: 2000 })`',
  create: async (urls) => viemFallbackClient(urls),
};

const ethersFallback: FaultClientFactory = {
  name: 'ethers FallbackProvider',
  note: 'defaults (quorum 2 of 4, stall 400 ms, sends broadcast to all), static network, 2 s FetchRequest timeout',
  create: async (urls) => ethersFallbackClient(urls),
};

/** web3.js v1 has no failover: one Connection to the first (faulty) endpoint. Prints on every 429 retry; counted, not shown. */
export const web3Console = { suppressedLines: 0 };

const web3: FaultClientFactory = {
  name: '@solana/web3.js v1',
  note: 'no fallback: single endpoint (the faulty one), same workload as Solana calls; 2 s timeout via fetchMiddleware',
  singleEndpoint: true,
  create: async (urls) => {
    const connection = new Connection(urls[0]!, {
      commitment: 'confirmed',
      fetchMiddleware: (info, init, next) => next(info, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) } as typeof init),
    });
    const consoleError = console.error;
    console.error = () => void web3Console.suppressedLines++;
    return {
      run: async (item) =>
        item.kind === 'read'
          ? (await connection.getBalance(new PublicKey(item.solanaAddress))) === solanaBalanceOf(item.solanaAddress)
          : (await connection.sendRawTransaction(item.solanaWire, { skipPreflight: true })) === item.solanaSignature,
      close: async () => {
        console.error = consoleError;
      },
    };
  },
};

export const FAULT_CLIENTS: readonly FaultClientFactory[] = [sturdy, sturdyUnguarded, viemFallback, ethersFallback, web3];
