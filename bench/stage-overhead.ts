/**
 * What each stage costs the pool itself, without a socket: client CPU per call of the
 * 4-endpoint pool whose executor answers at once, defaults against the same pool with one
 * optional stage off. Each setup runs alone in a process of its own (two pool shapes in one
 * process make the path's call sites polymorphic, which an application with one pool never
 * pays: measured in pairs, hedging looked 1.5 µs dearer than it is), the processes taking
 * turns setup after setup, `passes` times. Steadier than the loopback rounds on a busy
 * machine: the socket, the server and the kernel are out of the number.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { HttpTransportPool, type HttpTransportPoolOptions } from '../src/index.js';
import type { HttpExecutor } from '../src/http/executor.js';
import { EVERY_STAGE_OFF, STAGES_OFF } from './everyday-clients.js';
import { gc, median, table } from './util.js';

const headers = { 'content-type': 'application/json' };
/** Answers every call at once with a balance, echoing its id. */
const instantExecutor: HttpExecutor = {
  execute: (request) => {
    const id = /"id":(\d+)/.exec(request.body)![1];
    return Promise.resolve({ type: 'response', status: 200, headers, body: `{"jsonrpc":"2.0","id":${id},"result":"0x1bc16d674ec80000"}` });
  },
  close: () => Promise.resolve(),
};

/** The setups: the defaults, then one optional stage off at a time, then all of them. */
const SETUPS: readonly (readonly [name: string, options: Partial<HttpTransportPoolOptions>])[] = [
  ['defaults', {}],
  ...STAGES_OFF.map(([stage, off]) => [`${stage} off`, off] as const),
  ['every optional stage off', EVERY_STAGE_OFF],
];

export interface StageOverhead {
  readonly setup: string;
  /** Pool CPU per call, µs (median of rounds). */
  readonly cpuUsPerCall: number;
  /** Against the defaults pool (medians of the passes), µs (negative: the stage's cost). */
  readonly deltaUs: number;
}

async function cpuPerCall(pool: HttpTransportPool, calls: number): Promise<number> {
  let distinct = 0;
  gc?.();
  const cpu0 = process.cpuUsage();
  const loop = async () => {
    for (let i = 0; i < calls / 64; i++) await pool.request('eth_getBalance', [`0x${(distinct++).toString(16).padStart(40, '0')}`, 'latest']);
  };
  await Promise.all(Array.from({ length: 64 }, loop));
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / calls;
}

/** In a child: setup `index` alone, warmed up, then `rounds` measured rounds; prints their median. */
async function alone(index: number, rounds: number, calls: number): Promise<number> {
  const endpoints = [0, 1, 2, 3].map((i) => ({ id: `e${i}`, url: `http://127.0.0.1:${9000 + i}/`, operator: `op${i}`, maxConcurrentRequests: 64 }));
  const pool = new HttpTransportPool({ endpoints, chain: 'evm', executor: instantExecutor, ...SETUPS[index]![1] });
  const runs: number[] = [];
  try {
    for (let i = 0; i < 2; i++) await cpuPerCall(pool, calls);
    for (let round = 0; round < rounds; round++) runs.push(await cpuPerCall(pool, calls));
  } finally {
    await pool.close();
  }
  return median(runs);
}

const ALONE_FLAG = '--stage-overhead-alone';
if (process.argv[2] === ALONE_FLAG) {
  const [index, rounds, calls] = process.argv.slice(3).map(Number);
  process.stdout.write(JSON.stringify(await alone(index!, rounds!, calls!)));
  process.exit(0);
}

function inChild(index: number, rounds: number, calls: number): Promise<number> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['--expose-gc', '--max-semi-space-size=64', fileURLToPath(import.meta.url), ALONE_FLAG, String(index), String(rounds), String(calls)], { timeout: 300_000 }, (error, stdout) =>
      error ? reject(error) : resolve(JSON.parse(stdout) as number),
    ),
  );
}

export async function benchStageOverhead(passes: number, calls: number): Promise<{ results: StageOverhead[]; markdown: string }> {
  const runs = SETUPS.map((): number[] => []);
  for (let pass = 0; pass < passes; pass++) for (let index = 0; index < SETUPS.length; index++) runs[index]!.push(await inChild(index, 3, calls));
  const defaults = median(runs[0]!);
  const results: StageOverhead[] = SETUPS.map(([setup], index) => ({ setup, cpuUsPerCall: median(runs[index]!), deltaUs: median(runs[index]!) - defaults }));
  const rows = results.map((r) => [r.setup, r.cpuUsPerCall.toFixed(2), r.setup === 'defaults' ? '—' : `${r.deltaUs >= 0 ? '+' : ''}${r.deltaUs.toFixed(2)}`]);
  const note = `_4 endpoints, an executor that answers at once, 64 in flight, ${calls} distinct \`eth_getBalance\` calls per round, each setup alone in its own process (3 rounds after 2 warm-up rounds), ${passes} passes taking turns; median of the passes._`;
  return { results, markdown: `${table(['setup (no socket)', 'pool CPU µs/call', 'Δ vs defaults, µs/call (the stage costs minus this)'], rows)}\n\n${note}` };
}
