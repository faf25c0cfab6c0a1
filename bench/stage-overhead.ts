/**
 * What each stage costs the pool itself, without a socket: client CPU per call of the
 * 4-endpoint pool whose executor answers at once, defaults against the same pool with one
 * optional stage off, each pair in a process of its own (two pool shapes in one process make
 * the path's call sites polymorphic, which an application with one pool never pays), rounds
 * alternating inside the pair. Steadier than the loopback rounds on a busy machine: the
 * socket, the server and the kernel are out of the number.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { HttpTransportPool, type HttpTransportPoolOptions } from '../src/index.js';
import type { HttpExecutor } from '../src/http/executor.js';
import { EVERY_STAGE_OFF, STAGES_OFF } from './everyday-clients.js';
import { median } from './peers.bench.js';
import { gc, table } from './util.js';

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
  /** Median of same-round differences against the defaults pool of the same process, µs (negative: the stage's cost). */
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

/** In a child: the defaults pool against setup `index`, alternating; prints [defaults µs[], setup µs[]]. */
async function pair(index: number, rounds: number, calls: number): Promise<[number[], number[]]> {
  const endpoints = [0, 1, 2, 3].map((i) => ({ id: `e${i}`, url: `http://127.0.0.1:${9000 + i}/`, operator: `op${i}`, maxConcurrentRequests: 64 }));
  const make = (extra: Partial<HttpTransportPoolOptions>) => new HttpTransportPool({ endpoints, chain: 'evm', executor: instantExecutor, ...extra });
  const pools = [make({}), make(SETUPS[index]![1])] as const;
  const out: [number[], number[]] = [[], []];
  try {
    for (const pool of pools) await cpuPerCall(pool, calls);
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) out[i]!.push(await cpuPerCall(pools[i]!, calls));
    }
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
  }
  return out;
}

const PAIR_FLAG = '--stage-overhead-pair';
if (process.argv[2] === PAIR_FLAG) {
  const [index, rounds, calls] = process.argv.slice(3).map(Number);
  process.stdout.write(JSON.stringify(await pair(index!, rounds!, calls!)));
  process.exit(0);
}

export async function benchStageOverhead(rounds: number, calls: number): Promise<{ results: StageOverhead[]; markdown: string }> {
  const results: StageOverhead[] = [];
  const defaults: number[] = [];
  for (let index = 1; index < SETUPS.length; index++) {
    const output = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), PAIR_FLAG, String(index), String(rounds), String(calls)], { timeout: 300_000 }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
    const [base, setup] = JSON.parse(output) as [number[], number[]];
    defaults.push(...base);
    results.push({ setup: SETUPS[index]![0], cpuUsPerCall: median(setup), deltaUs: median(setup.map((us, i) => us - base[i]!)) });
  }
  results.unshift({ setup: 'defaults', cpuUsPerCall: median(defaults), deltaUs: 0 });
  const rows = results.map((r) => [r.setup, r.cpuUsPerCall.toFixed(2), r.setup === 'defaults' ? '—' : `${r.deltaUs >= 0 ? '+' : ''}${r.deltaUs.toFixed(2)}`]);
  const note = `_4 endpoints, an executor that answers at once, 64 in flight, ${calls} distinct \`eth_getBalance\` calls per round, ${rounds} rounds per pair, each pair in its own process._`;
  return { results, markdown: `${table(['setup (no socket)', 'pool CPU µs/call', 'Δ vs defaults, µs/call (the stage costs minus this)'], rows)}\n\n${note}` };
}
