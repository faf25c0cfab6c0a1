/**
 * `npm run bench`: every benchmark side by side in one run. Never part of `npm test`.
 * Pass `--json <file>` to also write the raw results, `--quick` for short runs (CI smoke),
 * `--only <section,…>` (admission, selection, json, integrity, consensus, peers, everyday, session, heap, faults, slow-node, bundle, health, observability, batching, subscriptions, fleet, learned-rate) for a focused run,
 * `--rounds <n>` for more throughput rounds (the median ratio to raw undici steadies with more),
 * `--first-version <dir>` to run the first version's pool (built by `scripts/first-version.sh`) in the everyday section.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cpus } from 'node:os';
import { benchAdmission } from './admission.bench.js';
import { benchBundleSize } from './bundle-size.js';
import { benchConsensus } from './consensus.bench.js';
import { benchBatching } from './batching.bench.js';
import { benchEveryday } from './everyday.bench.js';
import { benchFaults } from './faults.bench.js';
import { benchHealth } from './health.bench.js';
import { benchFleet } from './fleet.bench.js';
import { benchHeap } from './heap.bench.js';
import { benchIntegrity } from './integrity.bench.js';
import { benchJson } from './json.bench.js';
import { benchLearnedRate } from './learned-rate.bench.js';
import { benchObservability } from './observability.bench.js';
import { benchPeers } from './peers.bench.js';
import { benchSelection } from './selection.bench.js';
import { benchSession } from './session.bench.js';
import { benchSlowNode } from './slow-node.bench.js';
import { benchSubscriptions } from './subscriptions.bench.js';

const args = process.argv.slice(2);
const valueOf = (flag: string) => {
  const index = args.indexOf(flag);
  return index >= 0 ? args[index + 1] : undefined;
};
const jsonPath = valueOf('--json');
const quick = args.includes('--quick');
const only = valueOf('--only')?.split(',');
const rounds = Number(valueOf('--rounds') ?? (quick ? 1 : 4));
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be a positive integer');
const wanted = (section: string) => !only || only.includes(section);
const firstVersionArg = valueOf('--first-version');
const firstVersionDir = firstVersionArg === undefined ? undefined : resolve(firstVersionArg);
if (firstVersionDir !== undefined && !existsSync(join(firstVersionDir, 'dist', 'index.js'))) {
  throw new Error(`--first-version: no build in ${firstVersionDir} (run scripts/first-version.sh first)`);
}

const results: Record<string, unknown> = { node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model, quick };

/** Runs one section, prints its table and how long it took, and keeps its results for `--json`. */
async function section<R extends { results: unknown; markdown: string }>(name: string, title: string, run: () => Promise<R>): Promise<void> {
  if (!wanted(name)) return;
  const started = performance.now();
  const { results: sectionResults, markdown } = await run();
  results[name] = sectionResults;
  console.log(`## ${title}\n`);
  console.log(markdown, '\n');
  console.log(`_${name}: ${((performance.now() - started) / 1000).toFixed(1)} s_\n`);
}

console.log(`# sturdy-rpc benchmarks${quick ? ' (--quick)' : ''}\n\nNode ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}\n`);
await section('admission', 'Admission (acquire + release)', benchAdmission);
await section('selection', 'Selection per admission (filter + band + cap + rotation + reputation record)', benchSelection);
await section('json', 'Exact-integer JSON parsing', benchJson);
await section('integrity', 'Integrity checks: answer classification with and without the call\'s question (in-process A/B)', benchIntegrity);
await section('consensus', 'Consensus reads against ethers FallbackProvider quorum 2 (same loopback servers, separate process)', () => benchConsensus({ durationMs: quick ? 400 : 1_000 }));
await section('heap', 'Heap per idle endpoint', benchHeap);
await section('peers', 'Throughput against the limit and the peers (same loopback server, separate process)', () =>
  benchPeers(quick ? { durationMs: 400, rounds, warmupMs: 150 } : { durationMs: 600, rounds, warmupMs: 400 }),
);
await section('everyday', 'Everyday path (issue 26 §2): targets against raw undici, and the client CPU of each optional stage', () =>
  benchEveryday(
    quick
      ? { warmupMs: 1_000, sliceMs: 150, slices: 4, sequentialMs: 60, rounds: Math.max(2, rounds), budgetMs: 40_000, overheadRounds: 2, overheadCalls: 32_000, firstVersionDir }
      : // Warm enough for the JIT to be done with the pool (everyday-run.ts); slices short enough to pair.
        { warmupMs: 2_000, sliceMs: 200, slices: 8, sequentialMs: 100, rounds: Math.max(3, rounds), budgetMs: 330_000, overheadRounds: 3, overheadCalls: 64_000, firstVersionDir },
  ),
);
await section('session', 'Sessions (issue 27): a session read against a plain pool read (client CPU, in-process A/B), and read-after-write on load-balanced anvils', () =>
  benchSession(quick ? { calls: 2_000, rounds: 5, cycles: 50 } : { calls: 10_000, rounds: 9, cycles: 200 }),
);
await section('faults', 'Fault scenarios (4 endpoints, one faulty)', () =>
  benchFaults(
    quick
      ? { calls: 300, singleEndpointCalls: 100, inFlight: 16, baseDelayMs: 10, seed: 6 }
      : { calls: 1_000, singleEndpointCalls: 300, inFlight: 16, baseDelayMs: 10, seed: 6 },
  ),
);

await section('slow-node', 'One slow node (1 600 ms) among 2 and 4 endpoints', () =>
  benchSlowNode({ durationMs: quick ? 1_500 : 4_000, inFlight: 16, baseDelayMs: 2, slowMs: 1_600, seed: 13 }),
);

await section('bundle', 'Browser bundle size: the same balance read with sturdy-rpc, @solana/kit and viem', benchBundleSize);
await section('health', 'Endpoint health: a lagging node, a restarted node', () =>
  benchHealth(
    quick
      ? { reads: 400, inFlight: 16, baseDelayMs: 5, lagBlocks: 200, downAtMs: 1_000, upAtMs: 2_000, maxRecoveryMs: 8_000, probeIntervalMs: 2_000, seed: 21 }
      : { reads: 2_000, inFlight: 16, baseDelayMs: 5, lagBlocks: 200, downAtMs: 2_000, upAtMs: 5_000, maxRecoveryMs: 30_000, probeIntervalMs: 10_000, seed: 21 },
  ),
);
await section('observability', 'Exporters on the no-fault path (Prometheus, OpenTelemetry) against the bare pool', () =>
  benchObservability(quick ? { warmupMs: 500, sliceMs: 100, slices: 4, rounds: 1 } : { warmupMs: 2_000, sliceMs: 200, slices: 8, rounds: Math.max(3, rounds) }),
);
await section('batching', 'Requests saved by coalescing and batching (bot workload, same loopback server)', () =>
  benchBatching(quick ? { tasks: 32, rounds: 5, baseDelayMs: 5 } : { tasks: 64, rounds: 20, baseDelayMs: 5 }),
);
await section('subscriptions', 'WebSocket subscriptions (throughput vs raw ws, silent-socket failover, redundancy 2 vs 1 failover, heap per subscription)', () =>
  benchSubscriptions(quick ? { notifications: 50_000, rounds: 1, idleSubscriptions: 2_000, failoverRuns: 3 } : { notifications: 200_000, rounds: 3, idleSubscriptions: 10_000, failoverRuns: 7 }),
);
await section('fleet', 'Fleet mode on Redis: per-call overhead, and the server-observed rate against the quota', () =>
  benchFleet({ durationMs: quick ? 400 : 800, rounds: quick ? 3 : Math.max(5, rounds), quota: 200, quotaRunMs: quick ? 2_500 : 4_000 }),
);
await section('learned-rate', "Learned rates: a hidden 37 req/s limit with a fixed guess too high, too low and 'auto'; the everyday cost of an 'auto' role", () =>
  benchLearnedRate(quick ? { scenarioMs: 6_000, durationMs: 300, rounds: 2 } : { scenarioMs: 15_000, durationMs: 1_000, rounds: Math.max(4, rounds) }),
);

if (jsonPath) writeFileSync(jsonPath, JSON.stringify(results, null, 2));
