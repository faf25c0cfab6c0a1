/**
 * Sessions (issue 27): the client CPU of a read through `pool.session()` against the same
 * read on the pool, in-process A/B. One pool on an in-memory executor (no sockets: what is
 * measured is the client's own work), two endpoints, every call distinct; rounds alternate
 * plain and session so machine noise falls on both. Solana: `getBalance`, whose answer
 * carries `context.slot` (a session read also rewrites its params with `minContextSlot`).
 * EVM: `eth_getBalance` at `latest` under a block floor (a session read goes with `minHead`:
 * the endpoints known below it are left out).
 */
import { createSeededRandom, HttpTransportPool } from '../src/index.js';
import type { HttpExecutor } from '../src/http/executor.js';
import { median, table } from './util.js';

export interface SessionBenchOptions {
  /** Calls per client per round. */
  readonly calls: number;
  readonly rounds: number;
  /** Send-then-read cycles on the load-balanced anvils, with and without a session. */
  readonly cycles: number;
}

/** Wrong read-after-write answers on the anvils (a null receipt or a balance from before the send), per cycle. */
export interface ReadAfterWriteResult {
  readonly cycles: number;
  readonly plainWrong: number;
  readonly sessionWrong: number;
  readonly sessionReadsBelowFloor: number;
}

export interface SessionBenchResult {
  readonly chain: 'solana' | 'evm';
  readonly plainUsPerCall: number;
  readonly sessionUsPerCall: number;
  /** Median over rounds of session ÷ plain. */
  readonly ratio: number;
  readonly ratioMin: number;
  readonly ratioMax: number;
}

/** Answers every request at once: Solana, a balance at a slot that rises by one per answer; EVM, the head (`eth_blockNumber`) or a balance. */
function memoryExecutor(chain: 'solana' | 'evm'): HttpExecutor {
  let slot = 1_000;
  return {
    async execute(request) {
      const id = /"id":(\d+)/.exec(request.body)?.[1] ?? '0';
      const result = chain === 'solana' ? `{"context":{"slot":${slot++}},"value":5000}` : request.body.includes('eth_blockNumber') ? '"0x3e8"' : '"0x1388"';
      const body = `{"jsonrpc":"2.0","id":${id},"result":${result}}`;
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

/** One chain's A/B: plain reads and session reads in alternating rounds. */
async function abOf(chain: 'solana' | 'evm', options: SessionBenchOptions): Promise<SessionBenchResult> {
  const pool = new HttpTransportPool({
    endpoints: [
      { id: 'a', url: 'https://a.example.com/' },
      { id: 'b', url: 'https://b.example.org/' },
    ],
    chain,
    executor: memoryExecutor(chain),
    random: createSeededRandom(27),
    health: false,
  });
  const session = pool.session();
  if (chain === 'evm') {
    // Both endpoints' heads known (1000), and the session's floor at them: every read goes with `minHead`.
    for (const endpoint of ['a', 'b']) await pool.request('eth_blockNumber', [], { endpoint });
    session.raiseFloor('block', 1_000n);
  }
  const paramsOf = (i: number) => (chain === 'solana' ? [`addr${i}`, { commitment: 'confirmed' }] : [`0x${i.toString(16).padStart(40, '0')}`, 'latest']);
  const method = chain === 'solana' ? 'getBalance' : 'eth_getBalance';
  const plainRead = (i: number) => pool.request(method, paramsOf(i));
  const sessionRead = (i: number) => session.request(method, paramsOf(i));
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
  return {
    chain,
    plainUsPerCall: median(plain),
    sessionUsPerCall: median(sessions),
    ratio: median(ratios),
    ratioMin: Math.min(...ratios),
    ratioMax: Math.max(...ratios),
  };
}

/**
 * The wrong-answer fraction with and without a session on three real anvils behind loopback
 * load balancers, one a block or two behind (the test's set-up: `test/helpers/lagging-chain.ts`);
 * undefined when anvil is not installed.
 */
async function readAfterWrite(cycles: number): Promise<ReadAfterWriteResult | undefined> {
  const { LaggingChain, rawApp } = await import('../test/helpers/lagging-chain.js');
  const { closeAllServers } = await import('../test/helpers/loopback.js');
  let chain: Awaited<ReturnType<typeof LaggingChain.start>>;
  try {
    chain = await LaggingChain.start();
  } catch {
    return undefined;
  }
  try {
    const plainPool = await chain.pool({ belowFloor: 0, reads: 0 }, () => undefined);
    const plain = await chain.cycles(rawApp(plainPool), cycles);
    await plainPool.close();
    const seen = { belowFloor: 0, reads: 0 };
    const holder: { session?: ReturnType<HttpTransportPool['session']> } = {};
    const pool = await chain.pool(seen, () => holder.session?.floor('block'));
    const session = (holder.session = pool.session());
    const throughSession = await chain.cycles(rawApp(session), cycles);
    await pool.close();
    const wrong = (counts: { nullReceipts: number; olderBalances: number }) => counts.nullReceipts + counts.olderBalances;
    return { cycles, plainWrong: wrong(plain), sessionWrong: wrong(throughSession), sessionReadsBelowFloor: seen.belowFloor };
  } finally {
    await closeAllServers();
    await chain.stop();
  }
}

export async function benchSession(options: SessionBenchOptions): Promise<{ results: { cpu: readonly SessionBenchResult[]; readAfterWrite: ReadAfterWriteResult | undefined }; markdown: string }> {
  const results = [await abOf('solana', options), await abOf('evm', options)];
  const raw = await readAfterWrite(options.cycles);
  const rows = results.flatMap((result) => {
    const read = result.chain === 'solana' ? 'getBalance' : 'eth_getBalance, latest';
    return [
      [`pool.request (${read})`, result.plainUsPerCall.toFixed(2), '1.00', '—'],
      [`session.request (${read})`, result.sessionUsPerCall.toFixed(2), result.ratio.toFixed(3), `${result.ratioMin.toFixed(3)}–${result.ratioMax.toFixed(3)}`],
    ];
  });
  const rawTable =
    raw === undefined
      ? '_Read-after-write on anvils: skipped (anvil is not installed: npm ci installs @foundry-rs/anvil-linux-amd64)._'
      : table(
          ['reads after a send', 'wrong answers (null receipt or older balance)', 'reads reaching a node below the floor'],
          [
            ['plain pool', `${raw.plainWrong} of ${raw.cycles} cycles`, '—'],
            ['session', `${raw.sessionWrong} of ${raw.cycles} cycles`, String(raw.sessionReadsBelowFloor)],
          ],
        ) + `\n\n_${raw.cycles} send → receipt → re-read cycles on 3 anvils behind loopback load balancers, one 1–2 blocks behind; the pool round-robin (balance: false)._`;
  const markdown =
    table(['read', 'client CPU µs/call (median of rounds)', '÷ plain (median)', 'spread of rounds'], rows) +
    `\n\n_${options.rounds} rounds of ${options.calls} sequential distinct calls per client; in-memory executor, 2 endpoints, health off; EVM session reads under a block floor both endpoints are known at._\n\n` +
    rawTable;
  return { results: { cpu: results, readAfterWrite: raw }, markdown };
}
