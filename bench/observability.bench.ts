/**
 * The cost of the exporters on the no-fault path: the same 4-endpoint pool with nothing
 * attached, with the Prometheus exporter, with OpenTelemetry (the API alone, no SDK, and a
 * full SDK recording every span and metric), and with both. On the loopback server each
 * setup runs in a process of its own beside the bare pool, both warmed, then taking turns in
 * short slices (as the everyday bench does: on a shared VM, runs seconds apart differ more
 * than the exporters do); a ratio is the median of the slices' ratios to the bare pool beside
 * them. Targets (issue 26 §2): Prometheus ≤ 3 %, OpenTelemetry with a tracing SDK ≤ 5 %.
 */
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { Registry } from 'prom-client';
import { registerPrometheusMetrics } from '../src/metrics/prometheus.js';
import { instrumentOpenTelemetry } from '../src/otel/index.js';
import { HttpTransportPool } from '../src/pool/http-transport-pool.js';
import { startFaultServer } from './fault-control.js';
import { slicePairs, takeTurns, warmUp, type EverydayClient, type LoadResult } from './everyday-clients.js';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { HttpExecutor } from '../src/http/executor.js';
import { gc, median, summary, table } from './util.js';

export interface ObservabilityBenchOptions {
  /** Unmeasured turns per pool and process, in ms. */
  readonly warmupMs: number;
  /** One measured slice of one pool at 64 in flight, in ms. */
  readonly sliceMs: number;
  /** Measured slices per pool and process. */
  readonly slices: number;
  /** Processes per setup. */
  readonly rounds: number;
}

export interface ObservabilityResult {
  readonly client: string;
  readonly callsPerSecond: number;
  /** Median over every slice of its calls/s ÷ the bare pool's beside it. */
  readonly medianRatioToBare: number;
  readonly minRatio: number;
  readonly maxRatio: number;
  /** Median over slices of this setup's client CPU per call − the bare pool's beside it, in µs. */
  readonly addedCpuUs: number;
  readonly bareCpuUs: number;
}

/** Spans are built and handed to an exporter that drops them: the SDK's per-span work, no I/O. */
class DiscardingExporter implements SpanExporter {
  export(_spans: ReadableSpan[], done: (result: { code: 0 }) => void): void {
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
}

class IdleReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

const BARE = 'pool, nothing attached';

/** An executor that answers at once from memory: what is left is the pool's own CPU per call. */
const memoryExecutor: HttpExecutor = {
  async execute(request) {
    const id = /"id":(\d+)/.exec(request.body)![1];
    return { type: 'response', status: 200, headers: {}, body: `{"jsonrpc":"2.0","id":${id},"result":"0x10"}` };
  },
  async close() {},
};

/** CPU (user + system) per call, in µs, of `calls` calls with 64 in flight. */
async function cpuPerCall(pool: HttpTransportPool, calls: number): Promise<number> {
  gc?.();
  const cpu0 = process.cpuUsage();
  const loop = async () => {
    for (let i = 0; i < calls / 64; i++) await pool.request('eth_blockNumber', []);
  };
  await Promise.all(Array.from({ length: 64 }, loop));
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / calls;
}

export interface ObservabilityCpuResult {
  readonly client: string;
  readonly cpuMicrosPerCall: number;
  /** Median over rounds of (this setup's CPU per call − the bare pool's in the same round). */
  readonly addedMicrosPerCall: number;
}

type Setup = { readonly name: string; readonly attach: (pool: HttpTransportPool) => void };

/** Each exporter's added CPU per call without sockets: steadier on a busy machine than throughput. */
async function benchCpu(setups: readonly Setup[], rounds: number, calls: number): Promise<ObservabilityCpuResult[]> {
  const pools = setups.map(({ name, attach }) => {
    const pool = new HttpTransportPool({
      coalesce: false, // every call its own request, so the rounds compare exporters, not coalescing
      endpoints: [0, 1, 2, 3].map((i) => ({ id: `e${i}`, url: `http://127.0.0.1:${9000 + i}/`, operator: `op${i}` })),
      chain: 'evm',
      executor: memoryExecutor,
    });
    attach(pool);
    return { name, pool };
  });
  const runs = new Map<string, number[]>();
  try {
    for (const { pool } of pools) await cpuPerCall(pool, calls / 2);
    for (let round = 0; round < rounds; round++) {
      for (const { name, pool } of round % 2 === 0 ? pools : [...pools].reverse()) runs.set(name, [...(runs.get(name) ?? []), await cpuPerCall(pool, calls)]);
    }
  } finally {
    await Promise.all(pools.map(({ pool }) => pool.close()));
  }
  const bare = runs.get(BARE)!;
  return pools.map(({ name }) => ({
    client: name,
    cpuMicrosPerCall: median(runs.get(name)!),
    addedMicrosPerCall: median(runs.get(name)!.map((us, i) => us - bare[i]!)),
  }));
}

/** What is attached to each pool measured. */
function setupList(): Setup[] {
  const sdk = (ratio = 1) => ({
    tracerProvider: new BasicTracerProvider({
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) }),
      spanProcessors: [new SimpleSpanProcessor(new DiscardingExporter())],
    }),
    meterProvider: new MeterProvider({ readers: [new IdleReader()] }),
  });
  return [
    { name: BARE, attach: () => undefined },
    { name: '+ Prometheus', attach: (pool) => registerPrometheusMetrics(pool, { registry: new Registry() }) },
    { name: '+ OpenTelemetry API, no SDK', attach: (pool) => instrumentOpenTelemetry(pool) },
    { name: '+ OpenTelemetry SDK, 1 % of traces sampled', attach: (pool) => instrumentOpenTelemetry(pool, sdk(0.01)) },
    { name: '+ OpenTelemetry SDK, every trace sampled', attach: (pool) => instrumentOpenTelemetry(pool, sdk()) },
    {
      name: '+ Prometheus + OpenTelemetry SDK (1 %)',
      attach: (pool) => {
        registerPrometheusMetrics(pool, { registry: new Registry() });
        instrumentOpenTelemetry(pool, sdk(0.01));
      },
    },
  ];
}

const PAIR_FLAG = '--observability-cpu-pair';

/**
 * Each exporter against the bare pool in a process of its own: two exporters in one process
 * make the hook's call sites polymorphic, which is not what an application with one pays.
 */
async function cpuPairs(count: number, rounds: number, calls: number): Promise<ObservabilityCpuResult[]> {
  const rows: ObservabilityCpuResult[] = [];
  const bare: number[] = [];
  for (let index = 1; index < count; index++) {
    const output = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), PAIR_FLAG, String(index), String(rounds), String(calls)], { timeout: 600_000 }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
    const [bareRow, row] = JSON.parse(output) as [ObservabilityCpuResult, ObservabilityCpuResult];
    bare.push(bareRow.cpuMicrosPerCall);
    rows.push(row);
  }
  return [{ client: BARE, cpuMicrosPerCall: median(bare), addedMicrosPerCall: 0 }, ...rows];
}

// Child mode (see cpuPairs): the bare pool against one setup, as JSON on stdout.
if (process.argv[2] === PAIR_FLAG) {
  const [index, rounds, calls] = process.argv.slice(3).map(Number);
  const setups = setupList();
  process.stdout.write(JSON.stringify(await benchCpu([setups[0]!, setups[index!]!], rounds!, calls!)));
  process.exit(0);
}

const LOOPBACK_FLAG = '--observability-loopback-pair';

/** A 4-endpoint pool on the loopback server's ports with `setup` attached, as a client of the turns. */
function loopbackClient(urls: readonly string[], setup: Setup): { client: EverydayClient; pool: HttpTransportPool } {
  const pool = new HttpTransportPool({
    coalesce: false, // every call its own request, so the turns compare exporters, not coalescing
    endpoints: urls.map((u, i) => ({ id: `e${i}`, url: u, operator: `op${i}`, maxConcurrentRequests: 64 })),
    chain: 'evm',
  });
  setup.attach(pool);
  return { client: { name: setup.name, call: () => pool.request('eth_blockNumber', []) }, pool };
}

// Child mode (see benchObservability): the bare pool beside one setup on the loopback server, their slices as JSON on stdout.
if (process.argv[2] === LOOPBACK_FLAG) {
  const [index, urlsJson, warmupMs, sliceMs, slices] = process.argv.slice(3);
  const setups = setupList();
  const made = [setups[0]!, setups[Number(index)]!].map((setup) => loopbackClient(JSON.parse(urlsJson!) as string[], setup));
  const clients = made.map(({ client }) => client);
  await warmUp(clients, Number(warmupMs));
  process.stdout.write(JSON.stringify(await takeTurns(clients, 64, Number(sliceMs), Number(slices))));
  await Promise.all(made.map(({ pool }) => pool.close()));
  process.exit(0);
}

export async function benchObservability(options: ObservabilityBenchOptions): Promise<{ results: { loopback: ObservabilityResult[]; cpu: ObservabilityCpuResult[] }; markdown: string }> {
  const server = await startFaultServer(4);
  const setups = setupList();
  // Per setup, pairs of (setup slice, bare slice beside it).
  const pairs = new Map<string, [LoadResult, LoadResult][]>(setups.slice(1).map(({ name }) => [name, []]));
  try {
    await server.configure({ baseDelayMs: 0, ports: [] });
    for (let round = 0; round < options.rounds; round++) {
      for (let index = 1; index < setups.length; index++) {
        const argv = [LOOPBACK_FLAG, index, JSON.stringify(server.urls), options.warmupMs, options.sliceMs, options.slices].map(String);
        const output = await new Promise<string>((resolve, reject) =>
          execFile(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...argv], { timeout: 120_000 }, (error, stdout) => (error ? reject(error) : resolve(stdout))),
        );
        const turns = JSON.parse(output) as Record<string, LoadResult[]>;
        const name = setups[index]!.name;
        pairs.get(name)!.push(...slicePairs(turns[name]!, turns[BARE]!));
      }
    }
  } finally {
    await server.stop();
  }
  const results: ObservabilityResult[] = [...pairs].map(([client, own]) => {
    const ratios = summary(own.map(([run, bare]) => run.callsPerSecond / bare.callsPerSecond));
    return {
      client,
      callsPerSecond: median(own.map(([run]) => run.callsPerSecond)),
      medianRatioToBare: ratios.median,
      minRatio: ratios.min,
      maxRatio: ratios.max,
      addedCpuUs: median(own.map(([run, bare]) => run.cpuUsPerCall - bare.cpuUsPerCall)),
      bareCpuUs: median(own.map(([, bare]) => bare.cpuUsPerCall)),
    };
  });
  const cpu = await cpuPairs(setups.length, Math.max(2, options.rounds * 2), 20_000);
  const cpuTable = table(
    ['pool (4 endpoints, 64 in flight, in-memory executor; each setup in its own process with the bare pool)', 'CPU µs / call (median)', 'added µs / call (median of same-round differences)'],
    cpu.map((r) => [r.client, r.cpuMicrosPerCall.toFixed(2), r.addedMicrosPerCall.toFixed(2)]),
  );
  const loopbackTable = table(
    ['pool (4 endpoints, loopback server, 64 in flight; each setup in its own process beside the bare pool)', '× bare pool beside it (median of slices)', 'spread of slices', 'added client CPU µs / call', 'bare pool µs / call'],
    results.map((r) => [r.client, r.medianRatioToBare.toFixed(3), `${r.minRatio.toFixed(2)}–${r.maxRatio.toFixed(2)}`, r.addedCpuUs.toFixed(1), r.bareCpuUs.toFixed(1)]),
  );
  const note = `_${options.rounds} processes per setup, each after ${options.warmupMs} ms of warm-up per pool, ${options.slices} turns of ${options.sliceMs} ms, the order flipped every turn._`;
  const markdown = `${cpuTable}\n\n${loopbackTable}\n\n${note}`;
  return { results: { loopback: results, cpu }, markdown };
}
