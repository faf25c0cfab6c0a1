/**
 * sturdy-rpc against the physical limit (raw undici `Pool.request`) and the peers, on the
 * same loopback server (a separate process, 4 normal ports): throughput, p50/p99 at 1 and
 * 64 calls in flight, client CPU per 1 000 calls; rounds alternate the order of clients.
 */
import { startFaultServer, type FaultServer } from './fault-control.js';
import { percentile, type FaultServerStats } from './fault-model.js';
import { createPeerClients, RAW, STURDY_FOUR, STURDY_ONE, type PeerClient } from './peer-clients.js';
import { median, table, timedLoad } from './util.js';

export interface PeerResult {
  readonly client: string;
  readonly inFlight: number;
  readonly calls: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Client process CPU (user + system) per 1 000 calls, in ms. */
  readonly cpuMsPerThousand: number;
  /** Server process CPU per 1 000 calls, in ms: near 1 000 / (calls/s) × 1 000 means the server was the limit. */
  readonly serverCpuMsPerThousand: number;
  /** Requests the server received per call (measured). */
  readonly requestsPerCall: number;
  /** Median over rounds of (this client's calls/s ÷ raw undici's in the same round): steadier than best-of on a busy machine. */
  readonly medianRatioToRaw: number;
  /** Median over rounds of (this client's p50 ÷ raw undici's p50 in the same round). */
  readonly medianP50RatioToRaw: number;
  readonly note: string;
}

export interface PeerBenchOptions {
  readonly durationMs: number;
  readonly rounds: number;
  readonly warmupMs: number;
}

const received = (stats: FaultServerStats) => stats.ports.reduce((sum, port) => sum + port.received, 0);

/** Runs `client.call` with `inFlight` loops for `durationMs`. */
export async function load(server: FaultServer, client: PeerClient, inFlight: number, durationMs: number): Promise<Omit<PeerResult, 'medianRatioToRaw' | 'medianP50RatioToRaw'>> {
  const server0 = await server.stats();
  const { latencies, elapsedMs: elapsed, cpuUs } = await timedLoad(client.name, () => client.call(), inFlight, durationMs);
  const server1 = await server.stats();
  const calls = Math.max(1, latencies.length);
  return {
    client: client.name,
    inFlight,
    calls: latencies.length,
    requestsPerSecond: (latencies.length / elapsed) * 1000,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    cpuMsPerThousand: (cpuUs / 1000 / calls) * 1000,
    serverCpuMsPerThousand: ((server1.cpuMs - server0.cpuMs) / calls) * 1000,
    requestsPerCall: (received(server1) - received(server0)) / calls,
    note: client.note,
  };
}

export async function benchPeers(options: PeerBenchOptions): Promise<{ results: PeerResult[]; markdown: string }> {
  const server = await startFaultServer(4);
  const { clients, close } = createPeerClients(server.urls);
  const rounds = new Map<string, Omit<PeerResult, 'medianRatioToRaw' | 'medianP50RatioToRaw'>[]>();
  try {
    await server.configure({ baseDelayMs: 0, ports: [] });
    for (const client of clients) await load(server, client, 64, options.warmupMs);
    for (const inFlight of [1, 64]) {
      for (let round = 0; round < options.rounds; round++) {
        const order = round % 2 === 0 ? clients : [...clients].reverse();
        for (const client of order) {
          const key = `${client.name}@${inFlight}`;
          rounds.set(key, [...(rounds.get(key) ?? []), await load(server, client, inFlight, options.durationMs)]);
        }
      }
    }
  } finally {
    await close();
    await server.stop();
  }
  // Best round by calls/s; the ratios to raw undici also as medians of same-round ratios.
  const best = new Map<string, PeerResult>();
  for (const [key, runs] of rounds) {
    const raw = rounds.get(`${RAW}@${runs[0]!.inFlight}`)!;
    const top = runs.reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond ? b : a));
    best.set(key, {
      ...top,
      medianRatioToRaw: median(runs.map((run, i) => run.requestsPerSecond / raw[i]!.requestsPerSecond)),
      medianP50RatioToRaw: median(runs.map((run, i) => run.p50Ms / raw[i]!.p50Ms)),
    });
  }
  const results = [...best.values()];
  return { results, markdown: `${mainTable(results, best)}\n\n${peerTable(results, best)}` };
}

function mainTable(results: readonly PeerResult[], best: ReadonlyMap<string, PeerResult>): string {
  const rows = results.map((r) => {
    const raw = best.get(`${RAW}@${r.inFlight}`)!;
    return [
      r.client,
      r.inFlight,
      Math.round(r.requestsPerSecond),
      (r.requestsPerSecond / raw.requestsPerSecond).toFixed(2),
      r.medianRatioToRaw.toFixed(2),
      r.p50Ms.toFixed(3),
      r.medianP50RatioToRaw.toFixed(2),
      r.p99Ms.toFixed(3),
      r.cpuMsPerThousand.toFixed(0),
      r.serverCpuMsPerThousand.toFixed(0),
      r.requestsPerCall.toFixed(2),
      r.note,
    ];
  });
  return table(['client', 'in flight', 'calls/s', '× raw undici (best rounds)', '× raw undici (median of rounds)', 'p50 ms', 'p50 × raw (median of rounds)', 'p99 ms', 'client CPU ms / 1k calls', 'server CPU ms / 1k calls', 'requests / call', 'call'], rows);
}

/** sturdy-rpc's throughput divided by each peer's, per level of concurrency. */
function peerTable(results: readonly PeerResult[], best: ReadonlyMap<string, PeerResult>): string {
  const rows: (string | number)[][] = [];
  for (const peer of results) {
    if (peer.client === RAW || peer.client.startsWith('sturdy-rpc')) continue;
    const one = best.get(`${STURDY_ONE}@${peer.inFlight}`)!;
    const four = best.get(`${STURDY_FOUR}@${peer.inFlight}`)!;
    rows.push([
      peer.client,
      peer.inFlight,
      Math.round(peer.requestsPerSecond),
      (one.requestsPerSecond / peer.requestsPerSecond).toFixed(2),
      (four.requestsPerSecond / peer.requestsPerSecond).toFixed(2),
      (peer.p50Ms / one.p50Ms).toFixed(2),
    ]);
  }
  return table(['peer', 'in flight', 'peer calls/s', 'sturdy-rpc 1 endpoint ÷ peer', 'sturdy-rpc 4 endpoints ÷ peer', 'peer p50 ÷ sturdy-rpc 1 endpoint p50'], rows);
}
