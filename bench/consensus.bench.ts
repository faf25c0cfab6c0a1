/**
 * Consensus reads (issue 28 §2) against ethers v6 `FallbackProvider` with quorum 2, on the
 * same loopback servers (a separate process, three ports of three operators): requests per
 * call, p50, p99 and wrong answers, with every node honest and with one node stale (its
 * balances differ: what consensus exists to catch). `eth_getBalance` of one address.
 */
import { FallbackProvider, JsonRpcProvider, Network } from 'ethers';
import { HttpTransportPool } from '../src/pool/http-transport-pool.js';
import { startFaultServer, type FaultServer } from './fault-control.js';
import { evmBalanceOf, percentile, type FaultServerStats, type PortFault } from './fault-model.js';
import { table, timedLoad } from './util.js';

const ADDRESS = '0x00000000000000000000000000000000000004d2';
const TRUTH = evmBalanceOf(ADDRESS);

export interface ConsensusResult {
  readonly scenario: string;
  readonly client: string;
  readonly inFlight: number;
  readonly calls: number;
  readonly requestsPerCall: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly wrongPerThousand: number;
}

interface Client {
  readonly name: string;
  /** The balance the client answered with, as a bigint. */
  call(): Promise<bigint>;
  close(): Promise<void>;
}

function clientsOf(urls: readonly string[]): Client[] {
  const pool = (consensus: boolean) => {
    const sturdy = new HttpTransportPool({
      endpoints: urls.map((url, i) => ({ id: `node-${i}`, url, operator: `op${i}.example` })),
      chain: 'evm',
      // Probes would add requests of their own to the counts; the bench counts the calls' alone.
      health: false,
      coalesce: false,
    });
    const options = consensus ? { consensus: { operators: 2 as const } } : {};
    return {
      name: consensus ? 'sturdy-rpc, consensus { operators: 2 }' : 'sturdy-rpc, no consensus',
      call: async () => BigInt((await sturdy.request('eth_getBalance', [ADDRESS, 'latest'], options)) as string),
      close: () => sturdy.close(),
    };
  };
  const network = Network.from(1);
  const subs = urls.map((url) => new JsonRpcProvider(url, network, { staticNetwork: network, batchMaxCount: 1, cacheTimeout: -1 }));
  const ethers = new FallbackProvider(
    subs.map((provider) => ({ provider, weight: 1 })),
    network,
    { quorum: 2, cacheTimeout: -1 },
  );
  return [
    pool(false),
    pool(true),
    {
      name: 'ethers FallbackProvider, quorum 2',
      call: () => ethers.getBalance(ADDRESS, 'latest'),
      close: async () => {
        ethers.destroy();
        for (const sub of subs) sub.destroy();
      },
    },
  ];
}

const received = (stats: FaultServerStats) => stats.ports.reduce((sum, port) => sum + port.received, 0);

async function measure(server: FaultServer, scenario: string, client: Client, inFlight: number, durationMs: number): Promise<ConsensusResult> {
  const before = await server.stats();
  let wrong = 0;
  const { latencies } = await timedLoad(client.name, async () => {
    if ((await client.call()) !== TRUTH) wrong++;
  }, inFlight, durationMs);
  const after = await server.stats();
  const calls = Math.max(1, latencies.length);
  return {
    scenario,
    client: client.name,
    inFlight,
    calls: latencies.length,
    requestsPerCall: (received(after) - received(before)) / calls,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    wrongPerThousand: (wrong / calls) * 1000,
  };
}

export async function benchConsensus(options: { readonly durationMs: number }): Promise<{ results: ConsensusResult[]; markdown: string }> {
  const server = await startFaultServer(3);
  const clients = clientsOf(server.urls);
  const results: ConsensusResult[] = [];
  const scenarios: readonly [string, readonly PortFault[]][] = [
    ['3 honest nodes', []],
    ['1 of 3 stale (another balance)', [{ type: 'normal' }, { type: 'normal' }, { type: 'lag', blocks: 1 }]],
  ];
  try {
    for (const [scenario, ports] of scenarios) {
      await server.configure({ baseDelayMs: 1, ports });
      for (const inFlight of [1, 16]) {
        for (const client of clients) await measure(server, scenario, client, inFlight, 150);
        for (const client of clients) results.push(await measure(server, scenario, client, inFlight, options.durationMs));
      }
    }
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    await server.stop();
  }
  const rows = results.map((r) => [r.scenario, r.client, r.inFlight, r.requestsPerCall.toFixed(2), r.p50Ms.toFixed(2), r.p99Ms.toFixed(2), r.wrongPerThousand.toFixed(1)]);
  return { results, markdown: table(['nodes', 'client', 'in flight', 'requests / call', 'p50 ms', 'p99 ms', 'wrong answers / 1 000'], rows) };
}
