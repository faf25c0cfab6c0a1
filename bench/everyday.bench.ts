/**
 * The everyday path (issue 26 §2): the pool against raw undici `Pool.request` on one
 * loopback server (a separate process, 4 ports), every call a distinct `eth_getBalance`.
 * Every client runs in a fresh process of its own with raw undici beside it (`everyday-run.ts`):
 * an application holds one pool, and twelve pool shapes in one process made every stage's
 * call sites polymorphic. In that process the two take turns in short slices, so a ratio is
 * always taken between slices seconds apart on the same machine state; rounds repeat every
 * pairing. A row against raw is the median of every slice's ratio (the spread beside it is
 * the slices'); a row between two clients of different processes (against the 4-origin or
 * the JSON floor, the CPU A/B) goes through the raw of each process, one value per round.
 * What one optional stage costs is an in-process A/B: the pool with the stage off beside the
 * 4-endpoint defaults pool. Client CPU per call is `process.cpuUsage()` over each slice.
 */
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startFaultServer } from './fault-control.js';
import {
  EVERYDAY_CLIENTS,
  FIRST_FOUR,
  FIRST_ONE,
  FOUR_ALL_OFF,
  FOUR_DEFAULTS,
  ONE_DEFAULTS,
  RAW,
  RAW_FOUR,
  RAW_JSON,
  STAGES_OFF,
  slicePairs,
  withoutStage,
  type LoadResult,
} from './everyday-clients.js';
import { median, summary, table, type Summary } from './util.js';
import { benchStageOverhead, type StageOverhead } from './stage-overhead.js';
import type { EverydayRunResult } from './everyday-run.js';

export interface EverydayBenchOptions {
  /** Unmeasured turns before the measured ones, per client and process, in ms (the JIT, connections, latency estimates). */
  readonly warmupMs: number;
  /** One measured slice of one client at 64 in flight, in ms. */
  readonly sliceMs: number;
  /** Measured slices per client and process at 64 in flight. */
  readonly slices: number;
  /** One measured slice at 1 in flight (4 per client and process), in ms. */
  readonly sequentialMs: number;
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
  /** The first version's build (`scripts/first-version.sh`): its two pools run beside raw undici too. */
  readonly firstVersionDir?: string | undefined;
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

/** A client beside raw undici. */
export interface EverydayClientCost {
  readonly client: string;
  readonly callsPerSecond: number;
  /** Median over slices of calls/s ÷ the raw undici's beside it. */
  readonly ratioToRaw: number;
  readonly cpuUsPerCall: number;
  /** Median over slices of its CPU per call − the raw undici's beside it, in µs. */
  readonly cpuOverRawUs: number;
}

/** One optional stage, from the pool without it beside the 4-endpoint defaults pool (an in-process A/B). */
export interface EverydayStageCost {
  readonly stage: string;
  /** Median over slices of the defaults pool's calls/s ÷ the stage-off pool's beside it. */
  readonly throughputWithStage: number;
  /** Median over slices of (defaults − stage off) CPU per call, in µs: what the stage costs. */
  readonly costUs: number;
  readonly minCostUs: number;
  readonly maxCostUs: number;
}

export interface EverydayResults {
  readonly targets: EverydayTarget[];
  readonly clients: EverydayClientCost[];
  readonly stages: EverydayStageCost[];
  /** Per-stage pool CPU without a socket (stage-overhead.ts). */
  readonly overhead: StageOverhead[];
  /** The machine's 1-minute load average before and after the section: the ratios mean little on a busy machine. */
  readonly loadAverage: readonly [before: number, after: number];
  /** Every process run: client → one pairing per round (its slices and its reference's beside them). */
  readonly rounds: Record<string, Pairing[]>;
}

/** One process of one round: a client's slices and its reference's beside them (raw undici, or the defaults pool for a stage), at 64 and at 1 in flight. */
export interface Pairing {
  readonly concurrent: Side;
  readonly sequential: Side;
}

interface Side {
  readonly client: LoadResult[];
  readonly reference: LoadResult[];
}

/** The clients that run beside raw undici (raw's own row comes from all of them). */
const BESIDE_RAW = EVERYDAY_CLIENTS.filter((name) => name !== RAW && !STAGES_OFF.some(([stage]) => withoutStage(stage) === name));
const FIRST_VERSION = [FIRST_ONE, FIRST_FOUR];
const SEQUENTIAL = new Set([ONE_DEFAULTS, FOUR_DEFAULTS]);
/** Each optional stage's pool (that stage off) runs beside the 4-endpoint defaults pool. */
const referenceOf = (name: string) => (STAGES_OFF.some(([stage]) => withoutStage(stage) === name) ? FOUR_DEFAULTS : RAW);

export async function benchEveryday(options: EverydayBenchOptions): Promise<{ results: EverydayResults; markdown: string }> {
  const started = performance.now();
  const loadBefore = loadavg()[0]!;
  const server = await startFaultServer(4);
  const first = options.firstVersionDir === undefined ? [] : FIRST_VERSION;
  const paired = [...BESIDE_RAW, ...first, ...STAGES_OFF.map(([stage]) => withoutStage(stage))];
  const rounds = new Map<string, Pairing[]>(paired.map((name) => [name, []]));
  try {
    await server.configure({ baseDelayMs: 0, ports: [] });
    let longestRoundMs = 0;
    for (let round = 0; round < options.rounds; round++) {
      const roundStart = performance.now();
      if (round > 0 && roundStart + longestRoundMs - started > options.budgetMs) break;
      for (const name of paired) rounds.get(name)!.push(await runPaired(name, server.urls, options, SEQUENTIAL.has(name)));
      longestRoundMs = Math.max(longestRoundMs, performance.now() - roundStart);
    }
  } finally {
    await server.stop();
  }
  const targets = targetRows(rounds);
  const clients = clientRows(rounds, [RAW_FOUR, RAW_JSON, ...first, ONE_DEFAULTS, FOUR_DEFAULTS, FOUR_ALL_OFF]);
  const stages = stageRows(rounds);
  const overhead = await benchStageOverhead(options.overheadRounds, options.overheadCalls);
  const loadAverage = [loadBefore, loadavg()[0]!] as const;
  const results: EverydayResults = { targets, clients, stages, overhead: overhead.results, loadAverage, rounds: Object.fromEntries(rounds) };
  const roundsRun = rounds.get(FOUR_DEFAULTS)!.length;
  return { results, markdown: `${targetTable(targets, options, roundsRun, loadAverage)}\n\n${clientTable(clients)}\n\n${stageTable(stages)}\n\n${overhead.markdown}` };
}

/** Client `name` beside its reference in a fresh process with this one's flags (`--expose-gc`, the semi-space size); bounded by 120 s. */
function runPaired(name: string, urls: readonly string[], options: EverydayBenchOptions, sequential: boolean): Promise<Pairing> {
  const script = fileURLToPath(new URL('./everyday-run.js', import.meta.url));
  const reference = referenceOf(name);
  const argv = [JSON.stringify([reference, name]), JSON.stringify(urls), options.warmupMs, options.sliceMs, options.slices, sequential ? options.sequentialMs : 0, options.firstVersionDir ?? ''];
  const args = [...process.execArgv, script, ...argv.map(String)];
  return new Promise((resolve, reject) =>
    execFile(process.execPath, args, { timeout: 120_000 }, (error, stdout) => {
      if (error) return reject(error);
      const run = JSON.parse(stdout) as EverydayRunResult;
      const side = (results: Record<string, LoadResult[]>): Side => ({ client: results[name] ?? [], reference: results[reference] ?? [] });
      resolve({ concurrent: side(run.concurrent), sequential: side(run.sequential) });
    }),
  );
}

/** `combine(client slice, reference slice)` for every slice pair of one process. */
function perSlice(side: Side, combine: (client: LoadResult, reference: LoadResult) => number): number[] {
  return slicePairs(side.client, side.reference).map(([client, reference]) => combine(client, reference));
}

const rate = (r: LoadResult) => r.callsPerSecond;
const rateRatio = (client: LoadResult, raw: LoadResult) => rate(client) / rate(raw);
const cpuOverRaw = (client: LoadResult, raw: LoadResult) => client.cpuUsPerCall - raw.cpuUsPerCall;

/** Every slice's `combine(client, the reference beside it)` — by default its throughput ratio — over all rounds. */
const overSlices = (pairings: readonly Pairing[], combine = rateRatio, sequential = false) =>
  summary(pairings.flatMap((pairing) => perSlice(sequential ? pairing.sequential : pairing.concurrent, combine)));

/** Per round, `combine` of two clients' medians over their own raw (`a`'s and `b`'s processes, the same round). */
function acrossProcesses(a: readonly Pairing[], b: readonly Pairing[], anchor: (client: LoadResult, raw: LoadResult) => number, combine: (x: number, y: number) => number): Summary {
  const values = a.flatMap((pairing, round) => {
    const [x, y] = [perSlice(pairing.concurrent, anchor), b[round] === undefined ? [] : perSlice(b[round]!.concurrent, anchor)];
    return x.length > 0 && y.length > 0 ? [combine(median(x), median(y))] : [];
  });
  return summary(values);
}

function targetRows(rounds: ReadonlyMap<string, Pairing[]>): EverydayTarget[] {
  const of = (name: string) => rounds.get(name)!;
  const atLeast = (row: string, bound: number, s: Summary) => ({ row, target: `≥ ${bound.toFixed(2)}×`, ...s, met: s.median >= bound });
  const atMost = (row: string, bound: number, s: Summary) => ({ row, target: `≤ ${bound.toFixed(2)}×`, ...s, met: s.median <= bound });
  const divided = (x: number, y: number) => x / y;
  const p50Ratio = (client: LoadResult, raw: LoadResult) => client.p50Ms / raw.p50Ms;
  // CPU of a client as a multiple of the raw undici beside it: two processes' pools compared through their raw.
  const cpuRatio = (client: LoadResult, raw: LoadResult) => client.cpuUsPerCall / raw.cpuUsPerCall;
  return [
    atLeast('throughput ÷ raw, 64 in flight, defaults, 1 endpoint', 0.95, overSlices(of(ONE_DEFAULTS))),
    atLeast('throughput ÷ raw, 64 in flight, defaults, 4 endpoints', 0.93, overSlices(of(FOUR_DEFAULTS))),
    atLeast('throughput ÷ raw, 64 in flight, every optional stage off, 4 endpoints', 0.97, overSlices(of(FOUR_ALL_OFF))),
    // Not the rows: the same two 4-endpoint pools against the limit spread over the same 4 origins
    // (spreading 64 calls over 4 origins costs raw undici itself a few per cent on one loopback server).
    atLeast('throughput ÷ raw over 4 origins, 64 in flight, defaults, 4 endpoints', 0.93, acrossProcesses(of(FOUR_DEFAULTS), of(RAW_FOUR), rateRatio, divided)),
    atLeast('throughput ÷ raw over 4 origins, 64 in flight, every optional stage off, 4 endpoints', 0.97, acrossProcesses(of(FOUR_ALL_OFF), of(RAW_FOUR), rateRatio, divided)),
    // Nor these: against raw undici that writes and reads its JSON, as every client must (the limit does neither).
    atLeast('throughput ÷ raw + JSON, 64 in flight, defaults, 1 endpoint', 0.95, acrossProcesses(of(ONE_DEFAULTS), of(RAW_JSON), rateRatio, divided)),
    atLeast('throughput ÷ raw + JSON, 64 in flight, defaults, 4 endpoints', 0.93, acrossProcesses(of(FOUR_DEFAULTS), of(RAW_JSON), rateRatio, divided)),
    atMost('sequential p50 ÷ raw p50, defaults, 1 endpoint', 1.1, overSlices(of(ONE_DEFAULTS), p50Ratio, true)),
    atMost('sequential p50 ÷ raw p50, defaults, 4 endpoints', 1.1, overSlices(of(FOUR_DEFAULTS), p50Ratio, true)),
    atMost('client CPU per call, 4 endpoints: defaults ÷ every optional stage off', 1.15, acrossProcesses(of(FOUR_DEFAULTS), of(FOUR_ALL_OFF), cpuRatio, divided)),
  ];
}

function clientRows(rounds: ReadonlyMap<string, Pairing[]>, names: readonly string[]): EverydayClientCost[] {
  const raws = names.flatMap((name) => rounds.get(name)!).flatMap((pairing) => pairing.concurrent.reference.filter((r) => r.calls > 0));
  const rawRow = { client: RAW, callsPerSecond: median(raws.map(rate)), ratioToRaw: 1, cpuUsPerCall: median(raws.map((r) => r.cpuUsPerCall)), cpuOverRawUs: 0 };
  return [
    rawRow,
    ...names.map((client) => {
      const pairings = rounds.get(client)!;
      const runs = pairings.flatMap((pairing) => pairing.concurrent.client.filter((r) => r.calls > 0));
      return {
        client,
        callsPerSecond: median(runs.map(rate)),
        ratioToRaw: overSlices(pairings).median,
        cpuUsPerCall: median(runs.map((r) => r.cpuUsPerCall)),
        cpuOverRawUs: overSlices(pairings, cpuOverRaw).median,
      };
    }),
  ];
}

function stageRows(rounds: ReadonlyMap<string, Pairing[]>): EverydayStageCost[] {
  return STAGES_OFF.map(([stage]) => {
    const pairings = rounds.get(withoutStage(stage))!;
    // The reference is the defaults pool: what the stage costs is the defaults' CPU minus the stage-off pool's.
    const cost = overSlices(pairings, (off, defaults) => defaults.cpuUsPerCall - off.cpuUsPerCall);
    return {
      stage,
      throughputWithStage: overSlices(pairings, (off, defaults) => rate(defaults) / rate(off)).median,
      costUs: cost.median,
      minCostUs: cost.min,
      maxCostUs: cost.max,
    };
  });
}

function targetTable(targets: readonly EverydayTarget[], options: EverydayBenchOptions, roundsRun: number, load: readonly [number, number]): string {
  const rows = targets.map((t) => [t.row, t.target, `${t.median.toFixed(2)}×`, `${t.min.toFixed(2)}–${t.max.toFixed(2)}×`, t.met ? 'met' : '**missed**']);
  const note =
    `_${roundsRun} rounds; each client in its own process beside raw undici, after ${options.warmupMs} ms of warm-up each, ${options.slices} turns of ${options.sliceMs} ms at 64 in flight ` +
    `(4 of ${options.sequentialMs} ms at 1 in flight); every call a distinct \`eth_getBalance\`; the spread is of the slices (against raw) or of the rounds (between processes); ` +
    `load average ${load[0].toFixed(1)} → ${load[1].toFixed(1)}._`;
  return `${table(['row', 'target', 'median', 'spread', 'verdict'], rows)}\n\n${note}`;
}

const signed = (us: number) => `${us >= 0 ? '+' : ''}${us.toFixed(1)}`;

function clientTable(rows: readonly EverydayClientCost[]): string {
  const lines = rows.map((r) => [r.client, Math.round(r.callsPerSecond), r.ratioToRaw.toFixed(2), r.cpuUsPerCall.toFixed(1), r.client === RAW ? '—' : signed(r.cpuOverRawUs)]);
  return table(['client (64 in flight)', 'calls/s', '÷ raw beside it', 'client CPU µs/call', 'over raw beside it, µs/call'], lines);
}

function stageTable(rows: readonly EverydayStageCost[]): string {
  const lines = rows.map((r) => [r.stage, `${r.throughputWithStage.toFixed(3)}×`, signed(r.costUs), `${signed(r.minCostUs)} to ${signed(r.maxCostUs)}`]);
  return table(
    ['stage (4 endpoints, 64 in flight; the pool without it beside the defaults pool, in one process)', 'throughput with it ÷ without', 'client CPU it costs, µs/call', 'spread of slices'],
    lines,
  );
}
