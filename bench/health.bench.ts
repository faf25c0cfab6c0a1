/**
 * Endpoint health between calls, measured on the benchmark server (4 ports, separate process):
 *
 * 1. "Lagging node": port 0 answers 200 blocks behind (its `eth_blockNumber` is lower and its
 *    balances are stale). Each read is `eth_blockNumber` then `eth_getBalance`, as an app
 *    that polls the head does. Reported: stale balances among reads after warm-up (target 0),
 *    for sturdy-rpc and the peers' failover clients on the same servers.
 * 2. "Restarted endpoint": steady reads; port 0 goes down, then comes back. Reported: how long
 *    after it is back the pool sends it reads again, with the bench loop (`health` default)
 *    and with `health: false` (time-based recovery only), and probe traffic per endpoint per minute.
 */
import type { HealthSettings } from '../src/health/config.js';
import { createEvmClient } from '../src/evm/client.js';
import { HttpTransportPool } from '../src/pool/http-transport-pool.js';
import { startFaultServer, type FaultServer } from './fault-control.js';
import { createEthersFallback, createViemFallback } from './fault-clients.js';
import { evmBalanceOf, randomBytes, seededRandom } from './fault-model.js';
import { table } from './util.js';

export interface HealthBenchOptions {
  /** Reads (each: head, then balance) in the lagging-node scenario. */
  readonly reads: number;
  readonly inFlight: number;
  readonly baseDelayMs: number;
  readonly lagBlocks: number;
  /** Restart scenario: down at `downAtMs`, up at `upAtMs`, give up `maxRecoveryMs` after it is up. */
  readonly downAtMs: number;
  readonly upAtMs: number;
  readonly maxRecoveryMs: number;
  readonly probeIntervalMs: number;
  readonly seed: number;
}

const TIMEOUT_MS = 2_000;

interface LagClient {
  readonly name: string;
  /** Resolves true for a fresh balance, false for a stale one. */
  read(address: `0x${string}`): Promise<boolean>;
  close(): Promise<void>;
  probesPerEndpoint?(): number[];
}

function sturdyPool(urls: readonly string[], health: HealthSettings | false): { pool: HttpTransportPool; probes: number[] } {
  const pool = new HttpTransportPool({
    coalesce: false, // the peers compared here do not coalesce: every call is its own request
    endpoints: urls.map((url, i) => ({ id: `e${i}`, url, operator: `op${i}`, requestTimeoutMs: TIMEOUT_MS })),
    chain: 'evm',
    health,
  });
  const probes = urls.map(() => 0);
  pool.on('probe', (e) => {
    if (e.outcome !== 'skipped') probes[Number(e.endpointId.slice(1))]!++;
  });
  return { pool, probes };
}

function sturdyLagClient(urls: readonly string[]): LagClient {
  const { pool, probes } = sturdyPool(urls, {});
  const evm = createEvmClient(pool);
  return {
    name: 'sturdy-rpc',
    read: async (address) => {
      await evm.getBlockNumber();
      return (await evm.getBalance(address)) === evmBalanceOf(address);
    },
    close: () => pool.close(),
    probesPerEndpoint: () => probes,
  };
}

function viemLagClient(urls: readonly string[]): LagClient {
  const client = createViemFallback(urls);
  return {
    name: 'viem fallback',
    read: async (address) => {
      await client.getBlockNumber({ cacheTime: 0 });
      return (await client.getBalance({ address })) === evmBalanceOf(address);
    },
    close: async () => {},
  };
}

function ethersLagClient(urls: readonly string[]): LagClient {
  const { provider, destroy } = createEthersFallback(urls);
  return {
    name: 'ethers FallbackProvider',
    read: async (address) => {
      await provider.getBlockNumber();
      return (await provider.getBalance(address)) === evmBalanceOf(address);
    },
    close: async () => destroy(),
  };
}

interface LagResult {
  readonly client: string;
  readonly reads: number;
  readonly failures: number;
  readonly staleAfterWarmUp: number;
  readonly readsAfterWarmUp: number;
  readonly receivedByEndpoint: readonly number[];
  readonly probesPerEndpointPerMinute: readonly number[] | undefined;
}

async function runLagging(server: FaultServer, make: (urls: readonly string[]) => LagClient, options: HealthBenchOptions): Promise<LagResult> {
  await server.configure({ baseDelayMs: options.baseDelayMs, ports: [{ type: 'lag', blocks: options.lagBlocks }] });
  const client = make(server.urls);
  await server.resetStats();
  const random = seededRandom(options.seed);
  const addresses = Array.from({ length: options.reads }, () => `0x${Buffer.from(randomBytes(random, 20)).toString('hex')}` as `0x${string}`);
  const warmUp = Math.floor(options.reads / 10);
  let next = 0;
  let failures = 0;
  let stale = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.inFlight }, async () => {
      while (next < addresses.length) {
        const index = next++;
        try {
          const fresh = await client.read(addresses[index]!);
          if (!fresh && index >= warmUp) stale++;
        } catch {
          failures++;
        }
      }
    }),
  );
  const minutes = (performance.now() - started) / 60_000;
  const probes = client.probesPerEndpoint?.().map((n) => n / minutes);
  await client.close();
  const stats = await server.stats();
  return {
    client: client.name,
    reads: options.reads,
    failures,
    staleAfterWarmUp: stale,
    readsAfterWarmUp: options.reads - warmUp,
    receivedByEndpoint: stats.ports.map((p) => p.received),
    probesPerEndpointPerMinute: probes,
  };
}

interface RecoveryResult {
  readonly setting: string;
  /** ms from the port being back to its first request; undefined: none within `maxRecoveryMs`. */
  readonly recoveryMs: number | undefined;
  readonly probesPerEndpointPerMinute: readonly number[];
  readonly failures: number;
}

async function runRestart(server: FaultServer, setting: string, health: HealthSettings | false, options: HealthBenchOptions): Promise<RecoveryResult> {
  await server.configure({ baseDelayMs: options.baseDelayMs, ports: [] });
  const { pool, probes } = sturdyPool(server.urls, health);
  const evm = createEvmClient(pool);
  await server.resetStats();
  const random = seededRandom(options.seed);
  let stop = false;
  let failures = 0;
  const started = performance.now();
  const workers = Array.from({ length: 4 }, async () => {
    while (!stop) {
      const address = `0x${Buffer.from(randomBytes(random, 20)).toString('hex')}` as `0x${string}`;
      try {
        await evm.getBalance(address);
      } catch {
        failures++;
      }
    }
  });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
  await sleep(options.downAtMs - (performance.now() - started));
  await server.down(0);
  await sleep(options.upAtMs - (performance.now() - started));
  await server.up(0);
  const upAt = performance.now();
  const receivedAtUp = (await server.stats()).ports[0]!.received;
  let recoveryMs: number | undefined;
  while (performance.now() - upAt < options.maxRecoveryMs) {
    await sleep(25);
    if ((await server.stats()).ports[0]!.received > receivedAtUp) {
      recoveryMs = performance.now() - upAt;
      break;
    }
  }
  stop = true;
  await Promise.all(workers);
  const minutes = (performance.now() - started) / 60_000;
  await pool.close();
  return { setting, recoveryMs, probesPerEndpointPerMinute: probes.map((n) => n / minutes), failures };
}

export async function benchHealth(options: HealthBenchOptions): Promise<{ results: unknown; markdown: string }> {
  const server = await startFaultServer(4);
  const lagging: LagResult[] = [];
  const restarts: RecoveryResult[] = [];
  try {
    for (const make of [sturdyLagClient, viemLagClient, ethersLagClient]) lagging.push(await runLagging(server, make, options));
    restarts.push(await runRestart(server, `health default (probeIntervalMs ${options.probeIntervalMs})`, { probeIntervalMs: options.probeIntervalMs }, options));
    restarts.push(await runRestart(server, 'health: false (time-based recovery only)', false, options));
  } finally {
    await server.stop();
  }
  const pct = (n: number, of: number) => `${((n / of) * 100).toFixed(1)}%`;
  const perMinute = (values: readonly number[] | undefined) => (values === undefined ? 'n/a' : values.map((v) => v.toFixed(1)).join(' / '));
  const markdown =
    `**Lagging node**: port 0 of 4 is ${options.lagBlocks} blocks behind (stale balances); ${options.reads} reads (\`eth_blockNumber\` then \`eth_getBalance\`), ` +
    `${options.inFlight} in flight, answers after ${options.baseDelayMs} ms; warm-up = first 10% of reads.\n\n` +
    table(
      ['client', 'stale balances after warm-up', 'failed', 'requests per endpoint (lagging first)', 'probes / endpoint / min'],
      lagging.map((r) => [r.client, `${r.staleAfterWarmUp} (${pct(r.staleAfterWarmUp, r.readsAfterWarmUp)})`, r.failures, r.receivedByEndpoint.join(' / '), perMinute(r.probesPerEndpointPerMinute)]),
    ) +
    `\n\n**Restarted endpoint**: 4 readers, port 0 down at ${options.downAtMs / 1000} s, back at ${options.upAtMs / 1000} s; time until the pool reads from it again ` +
    `(gave up after ${options.maxRecoveryMs / 1000} s).\n\n` +
    table(
      ['setting', 'back in rotation after', 'failed reads', 'probes / endpoint / min (restarted first)'],
      restarts.map((r) => [r.setting, r.recoveryMs === undefined ? `> ${options.maxRecoveryMs / 1000} s` : `${(r.recoveryMs / 1000).toFixed(2)} s`, r.failures, perMinute(r.probesPerEndpointPerMinute)]),
    );
  return { results: { lagging, restarts }, markdown };
}
