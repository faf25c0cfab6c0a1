/**
 * Sessions (issue 27 §2): the client CPU of a read through `pool.session()` against the same
 * read on the pool, in-process A/B. One pool on an in-memory executor (no sockets: what is
 * measured is the client's own work), two endpoints, every call a distinct `getBalance`
 * whose answer carries `context.slot`; rounds alternate plain and session so machine noise
 * falls on both. A session read also rewrites its params (`minContextSlot`) and reads the
 * answer's slot.
 */
import { createSeededRandom, HttpTransportPool } from '../src/index.js';
import type { HttpExecutor } from '../src/http/executor.js';
import { table } from './util.js';

export interface SessionBenchOptions {
  /** Calls per client per round. */
  readonly calls: number;
  readonly rounds: number;
}

export interface SessionBenchResult {
  readonly plainUsPerCall: number;
  readonly sessionUsPerCall: number;
  /** Median over rounds of session ÷ plain. */
  readonly ratio: number;
  readonly ratioMin: number;
  readonly ratioMax: number;
}

/** Answers every request at once with a balance at a slot that rises by one per answer. */
function memoryExecutor(): HttpExecutor {
  let slot = 1_000;
  return {
    async execute(request) {
      const id = /"id":(\d+)/.exec(request.body)?.[1] ?? '0';
      const body = `{"jsonrpc":"2.0","id":${id},"result":{"context":{"slot":${slot++}},"value":5000}}`;
      return { type: 'response', status: 200, headers: { 'content-type': 'application/json' }, body };
    },
    async close() {},
  } as HttpExecutor;
}

async function cpuPerCallUs(call: (i: number) => Promise<unknown>, calls: number, offset: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) await call(offset + i);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[(sorted.length - 1) >> 1]!;
};

export async function benchSession(options: SessionBenchOptions): Promise<{ results: SessionBenchResult; markdown: string }> {
  const pool = new HttpTransportPool({
    endpoints: [
      { id: 'a', url: 'https://a.example.com/' },
      { id: 'b', url: 'https://b.example.org/' },
    ],
    executor: memoryExecutor(),
    random: createSeededRandom(27),
    health: false,
  });
  const session = pool.session();
  const plainRead = (i: number) => pool.request('getBalance', [`addr${i}`, { commitment: 'confirmed' }]);
  const sessionRead = (i: number) => session.request('getBalance', [`addr${i}`, { commitment: 'confirmed' }]);
  // Warm-up: both paths compiled before the first measured round.
  await cpuPerCallUs(plainRead, options.calls, 0);
  await cpuPerCallUs(sessionRead, options.calls, 0);
  const plain: number[] = [];
  const sessions: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const offset = (round + 1) * options.calls;
    const p = await cpuPerCallUs(plainRead, options.calls, offset);
    const s = await cpuPerCallUs(sessionRead, options.calls, offset);
    plain.push(p);
    sessions.push(s);
    ratios.push(s / p);
  }
  await pool.close();
  const results: SessionBenchResult = {
    plainUsPerCall: median(plain),
    sessionUsPerCall: median(sessions),
    ratio: median(ratios),
    ratioMin: Math.min(...ratios),
    ratioMax: Math.max(...ratios),
  };
  const markdown =
    table(
      ['read', 'client CPU µs/call (median of rounds)', '÷ plain (median)', 'spread of rounds'],
      [
        ['pool.request', results.plainUsPerCall.toFixed(2), '1.00', '—'],
        ['session.request', results.sessionUsPerCall.toFixed(2), results.ratio.toFixed(3), `${results.ratioMin.toFixed(3)}–${results.ratioMax.toFixed(3)}`],
      ],
    ) + `\n\n_${options.rounds} rounds of ${options.calls} sequential distinct getBalance calls per client; in-memory executor, 2 endpoints, health off._`;
  return { results, markdown };
}
