/**
 * The everyday path (issue 26 §2): the pool against raw undici `Pool.request` on one
 * loopback server (a separate process, 4 ports), every call a distinct `eth_getBalance`.
 * Every measured run is one client alone in a fresh process (`everyday-run.ts`), as an
 * application holds one pool: twelve pool shapes in one process made every stage's call
 * sites polymorphic and read about twice the per-stage CPU a lone pool spends. Rounds
 * alternate the clients (raw, then each pool, then again), one at a time; each ratio is taken
 * against the raw undici of the same round and reported as the median over rounds with the
 * spread of the rounds beside it. Client CPU per call is `process.cpuUsage()` of the client's
 * process over its measured run, so the per-stage table is an A/B of the same pool with one
 * optional stage off at a time.
 */
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startFaultServer } from './fault-control.js';
import {
  EVERYDAY_CLIENTS,
  FOUR_ALL_OFF,
  FOUR_DEFAULTS,
  ONE_DEFAULTS,
  RAW,
  RAW_FOUR,
  RAW_JSON,
  STAGES_OFF,
  withoutStage,
  type LoadResult,
} from './everyday-clients.js';
import { median } from './peers.bench.js';
import { table } from './util.js';
import { benchStageOverhead, type StageOverhead } from './stage-overhead.js';
import type { EverydayRunResult } from './everyday-run.js';

export interface EverydayBenchOptions {
  /** Measured time of one client in one round at 64 in flight, in ms. */
  readonly durationMs: number;
  /** Measured time of one client in one round at 1 in flight, in ms. */
  readonly sequentialMs: number;
  /** Unmeasured run before each measured one, in ms (reopens keep-alive connections the idle turn let close). */
  readonly warmupMs: number;
  /** Most rounds to run. */
  readonly rounds: number;
  /**
   * Wall-clock budget of the section, in ms: no round starts that would end past it (the
   * longest round so far is the estimate), so a busy machine gets fewer rounds, not a
   * longer run. At least one round always runs.
   */
  readonly budgetMs: number;
  /** Passes and calls per round of the no-socket per-stage table (stage-overhead.ts). */
  readonly overheadRounds: number;
  readonly overheadCalls: number;
}

export interface EverydayTarget {
  readonly row: string;
  /** `≥ x` (a throughput ratio) or `≤ x` (a latency or CPU ratio). */
  readonly target: string;
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly met: boolean;
}

export interface EverydayStageCost {
  readonly client: string;
  readonly callsPerSecond: number;
  readonly ratioToRaw: number;
  readonly cpuUsPerCall: number;
  readonly cpuMinUs: number;
  readonly cpuMaxUs: number;
  /** Median over rounds of (this client's CPU per call − the 4-endpoint defaults pool's), in µs. */
  readonly deltaToDefaultsUs: number | undefined;
}

export interface EverydayResults {
  readonly targets: EverydayTarget[];
  readonly stageCost: EverydayStageCost[];
  /** Per-stage pool CPU without a socket (stage-overhead.ts). */
  readonly overhead: StageOverhead[];
  /** The machine's 1-minute load average before and after the section: the ratios mean little on a busy machine. */
  readonly loadAverage: readonly [before: number, after: number];
  /** Every measured run: client → one result per round. */
  readonly rounds: { readonly concurrent: Record<string, LoadResult[]>; readonly sequential: Record<string, LoadResult[]> };
}

const SEQUENTIAL = [RAW, ONE_DEFAULTS, FOUR_DEFAULTS];

export async function benchEveryday(options: EverydayBenchOptions): Promise<{ results: EverydayResults; markdown: string }> {
  const started = performance.now();
  const loadBefore = loadavg()[0]!;
  const server = await startFaultServer(4);
  const concurrent = new Map<string, LoadResult[]>(EVERYDAY_CLIENTS.map((name) => [name, []]));
  const sequential = new Map<string, LoadResult[]>(SEQUENTIAL.map((name) => [name, []]));
  try {
    await server.configure({ baseDelayMs: 0, ports: [] });
    let longestRoundMs = 0;
    for (let round = 0; round < options.rounds; round++) {
      const roundStart = performance.now();
      if (round > 0 && roundStart + longestRoundMs - started > options.budgetMs) break;
      for (const name of EVERYDAY_CLIENTS) {
        const run = await runAlone(name, server.urls, options.warmupMs, options.durationMs, sequential.has(name) ? options.sequentialMs : 0);
        concurrent.get(name)!.push(run.concurrent);
        if (run.sequential !== undefined) sequential.get(name)!.push(run.sequential);
      }
      longestRoundMs = Math.max(longestRoundMs, performance.now() - roundStart);
    }
  } finally {
    await server.stop();
  }
  const targets = targetRows(concurrent, sequential);
  const stageCost = stageRows(concurrent, [RAW_FOUR, RAW_JSON, ONE_DEFAULTS, FOUR_DEFAULTS, ...STAGES_OFF.map(([stage]) => withoutStage(stage)), FOUR_ALL_OFF]);
  const overhead = await benchStageOverhead(options.overheadRounds, options.overheadCalls);
  const loadAverage = [loadBefore, loadavg()[0]!] as const;
  const results: EverydayResults = { targets, stageCost, overhead: overhead.results, loadAverage, rounds: { concurrent: Object.fromEntries(concurrent), sequential: Object.fromEntries(sequential) } };
  return { results, markdown: `${targetTable(targets, options, concurrent.get(RAW)!.length, loadAverage)}\n\n${stageTable(stageCost)}\n\n${overhead.markdown}` };
}

/** One measured run of client `name` in a fresh process with this one's flags (`--expose-gc`, the semi-space size); bounded by 60 s. */
function runAlone(name: string, urls: readonly string[], warmupMs: number, concurrentMs: number, sequentialMs: number): Promise<EverydayRunResult> {
  const script = fileURLToPath(new URL('./everyday-run.js', import.meta.url));
  const args = [...process.execArgv, script, name, JSON.stringify(urls), String(warmupMs), String(concurrentMs), String(sequentialMs)];
  return new Promise((resolve, reject) =>
    execFile(process.execPath, args, { timeout: 60_000 }, (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout) as EverydayRunResult))),
  );
}

/**
 * `combine(a[i], b[i])` for every round i, summarised. A round where either side completed
 * no call (a stall of the shared machine) has no value and is left out.
 */
function paired(a: readonly LoadResult[], b: readonly LoadResult[], combine: (x: LoadResult, y: LoadResult) => number) {
  const values = a.flatMap((run, i) => (run.calls > 0 && b[i]!.calls > 0 ? [combine(run, b[i]!)] : []));
  if (values.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN };
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

/** Same-round ratios `pick(a) ÷ pick(b)`, summarised. */
const ratios = (a: readonly LoadResult[], b: readonly LoadResult[], pick: (r: LoadResult) => number) => paired(a, b, (x, y) => pick(x) / pick(y));

function targetRows(concurrent: ReadonlyMap<string, LoadResult[]>, sequential: ReadonlyMap<string, LoadResult[]>): EverydayTarget[] {
  const raw = concurrent.get(RAW)!;
  const rawSequential = sequential.get(RAW)!;
  const rate = (r: LoadResult) => r.callsPerSecond;
  const atLeast = (row: string, bound: number, s: ReturnType<typeof ratios>) => ({ row, target: `≥ ${bound.toFixed(2)}×`, ...s, met: s.median >= bound });
  const atMost = (row: string, bound: number, s: ReturnType<typeof ratios>) => ({ row, target: `≤ ${bound.toFixed(2)}×`, ...s, met: s.median <= bound });
  return [
    atLeast('throughput ÷ raw, 64 in flight, defaults, 1 endpoint', 0.95, ratios(concurrent.get(ONE_DEFAULTS)!, raw, rate)),
    atLeast('throughput ÷ raw, 64 in flight, defaults, 4 endpoints', 0.93, ratios(concurrent.get(FOUR_DEFAULTS)!, raw, rate)),
    atLeast('throughput ÷ raw, 64 in flight, every optional stage off, 4 endpoints', 0.97, ratios(concurrent.get(FOUR_ALL_OFF)!, raw, rate)),
    // Not the rows: the same two 4-endpoint pools against the limit spread over the same 4 origins
    // (spreading 64 calls over 4 origins costs raw undici itself a few per cent on one loopback server).
    atLeast('throughput ÷ raw over 4 origins, 64 in flight, defaults, 4 endpoints', 0.93, ratios(concurrent.get(FOUR_DEFAULTS)!, concurrent.get(RAW_FOUR)!, rate)),
    atLeast('throughput ÷ raw over 4 origins, 64 in flight, every optional stage off, 4 endpoints', 0.97, ratios(concurrent.get(FOUR_ALL_OFF)!, concurrent.get(RAW_FOUR)!, rate)),
    // Nor these: against raw undici that writes and reads its JSON, as every client must (the limit does neither).
    atLeast('throughput ÷ raw + JSON, 64 in flight, defaults, 1 endpoint', 0.95, ratios(concurrent.get(ONE_DEFAULTS)!, concurrent.get(RAW_JSON)!, rate)),
    atLeast('throughput ÷ raw + JSON, 64 in flight, defaults, 4 endpoints', 0.93, ratios(concurrent.get(FOUR_DEFAULTS)!, concurrent.get(RAW_JSON)!, rate)),
    atMost('sequential p50 ÷ raw p50, defaults, 1 endpoint', 1.1, ratios(sequential.get(ONE_DEFAULTS)!, rawSequential, (r) => r.p50Ms)),
    atMost('sequential p50 ÷ raw p50, defaults, 4 endpoints', 1.1, ratios(sequential.get(FOUR_DEFAULTS)!, rawSequential, (r) => r.p50Ms)),
    atMost(
      'client CPU per call, 4 endpoints: defaults ÷ every optional stage off',
      1.15,
      ratios(concurrent.get(FOUR_DEFAULTS)!, concurrent.get(FOUR_ALL_OFF)!, (r) => r.cpuUsPerCall),
    ),
  ];
}

function stageRows(concurrent: ReadonlyMap<string, LoadResult[]>, names: readonly string[]): EverydayStageCost[] {
  const raw = concurrent.get(RAW)!;
  const defaults = concurrent.get(FOUR_DEFAULTS)!;
  return [RAW, ...names].map((client) => {
    const runs = concurrent.get(client)!;
    const cpu = runs.filter((r) => r.calls > 0).map((r) => r.cpuUsPerCall);
    return {
      client,
      callsPerSecond: median(runs.map((r) => r.callsPerSecond)),
      ratioToRaw: ratios(runs, raw, (r) => r.callsPerSecond).median,
      cpuUsPerCall: median(cpu),
      cpuMinUs: Math.min(...cpu),
      cpuMaxUs: Math.max(...cpu),
      deltaToDefaultsUs: client === RAW || client === RAW_FOUR || client === RAW_JSON ? undefined : paired(runs, defaults, (x, y) => x.cpuUsPerCall - y.cpuUsPerCall).median,
    };
  });
}

function targetTable(targets: readonly EverydayTarget[], options: EverydayBenchOptions, roundsRun: number, load: readonly [number, number]): string {
  const rows = targets.map((t) => [t.row, t.target, `${t.median.toFixed(2)}×`, `${t.min.toFixed(2)}–${t.max.toFixed(2)}×`, t.met ? 'met' : '**missed**']);
  const note = `_${roundsRun} rounds; 64 in flight ${options.durationMs} ms and 1 in flight ${options.sequentialMs} ms per client per round; every call a distinct \`eth_getBalance\`; load average ${load[0].toFixed(1)} → ${load[1].toFixed(1)}._`;
  return `${table(['row', 'target', 'median of rounds', 'spread of rounds', 'verdict'], rows)}\n\n${note}`;
}

function stageTable(rows: readonly EverydayStageCost[]): string {
  const lines = rows.map((r) => [
    r.client,
    Math.round(r.callsPerSecond),
    r.ratioToRaw.toFixed(2),
    r.cpuUsPerCall.toFixed(1),
    `${r.cpuMinUs.toFixed(1)}–${r.cpuMaxUs.toFixed(1)}`,
    r.deltaToDefaultsUs === undefined ? '—' : `${r.deltaToDefaultsUs >= 0 ? '+' : ''}${r.deltaToDefaultsUs.toFixed(1)}`,
  ]);
  return table(['client (64 in flight)', 'calls/s', '÷ raw (median of rounds)', 'client CPU µs/call', 'spread of rounds', 'Δ vs 4-endpoint defaults, µs/call'], lines);
}
