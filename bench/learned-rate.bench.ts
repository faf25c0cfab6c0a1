/**
 * Learned rates (issue 30 §1), two tables:
 * - the hidden-limit scenario: one loopback node with a hidden limit of 37 req/s (a token
 *   bucket, 429 with a JSON-RPC rate-limit error and no Retry-After above it) under 64
 *   callers, and a pool with a fixed `requestsPerSecond` that is too high (60), one that is
 *   too low (20), and `'auto'`: calls answered per second and the share of requests the node
 *   refused, over the whole run and over its last third (after learning);
 * - the everyday path of an `'auto'` role: client CPU per call of one endpoint with no rate,
 *   a fixed rate far above the load and `'auto'` bounded to the same rate (so neither ever
 *   waits), an in-process A/B in alternating rounds against one server process.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TokenBucket } from '../src/admission/token-bucket.js';
import { HttpTransportPool, systemClock, type HttpTransportPoolOptions } from '../src/index.js';
import { startFaultServer } from './fault-control.js';
import { runLoad, type EverydayClient } from './everyday-clients.js';
import { median, table } from './util.js';

export interface LearnedRateBenchOptions {
  /** Length of one hidden-limit run, in ms. */
  readonly scenarioMs: number;
  /** Measured time of one client in one everyday round, in ms. */
  readonly durationMs: number;
  readonly rounds: number;
}

const HIDDEN_LIMIT = 37;

type Rate = NonNullable<HttpTransportPoolOptions['endpoints'][number]['requestsPerSecond']> | undefined;
/** The endpoint's rate field, left out when there is none (options are exact). */
const rateField = (requestsPerSecond: Rate) => (requestsPerSecond === undefined ? {} : { requestsPerSecond });

interface ScenarioRow {
  readonly setup: string;
  readonly answeredPerSecond: number;
  readonly refusedShare: number;
  readonly lastThirdAnsweredPerSecond: number;
  readonly lastThirdRefusedShare: number;
}

async function hiddenLimitRun(setup: string, requestsPerSecond: Rate, scenarioMs: number): Promise<ScenarioRow> {
  const started = systemClock.now();
  const hidden = new TokenBucket(HIDDEN_LIMIT, HIDDEN_LIMIT, started);
  const tally = { ok: 0, refused: 0, lateOk: 0, lateRefused: 0 };
  const lateFromMs = started + (scenarioMs * 2) / 3;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { id } = JSON.parse(Buffer.concat(chunks).toString()) as { id: number };
      const now = systemClock.now();
      const late = now >= lateFromMs;
      // Counted only inside the run: calls still waiting in admission at its end arrive later.
      const counted = now < started + scenarioMs;
      res.setHeader('content-type', 'application/json');
      if (hidden.tryTake(now)) {
        if (counted) tally.ok++;
        if (counted && late) tally.lateOk++;
        res.end(JSON.stringify({ jsonrpc: '2.0', id, result: '0x1' }));
      } else {
        if (counted) tally.refused++;
        if (counted && late) tally.lateRefused++;
        res.statusCode = 429;
        res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32005, message: 'rate limit exceeded' } }));
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const pool = new HttpTransportPool({ endpoints: [{ url, ...rateField(requestsPerSecond) }], chain: 'evm', coalesce: false, hedge: false, timeoutMs: 2_000 });
  const end = started + scenarioMs;
  let n = 0;
  const caller = async () => {
    while (systemClock.now() < end) await pool.request('eth_getBalance', [`0x${(n++).toString(16).padStart(40, '0')}`, 'latest']).catch(() => undefined);
  };
  await Promise.all(Array.from({ length: 64 }, caller));
  await pool.close();
  server.closeAllConnections();
  server.close();
  const seconds = scenarioMs / 1000;
  return {
    setup,
    answeredPerSecond: tally.ok / seconds,
    refusedShare: tally.refused / Math.max(1, tally.ok + tally.refused),
    lastThirdAnsweredPerSecond: tally.lateOk / (seconds / 3),
    lastThirdRefusedShare: tally.lateRefused / Math.max(1, tally.lateOk + tally.lateRefused),
  };
}

const NO_RATE = '1 endpoint, no rate';
const FIXED = '1 endpoint, requestsPerSecond 1e6';
const AUTO = "1 endpoint, requestsPerSecond 'auto' (start = max = 1e6)";

export async function benchLearnedRate(options: LearnedRateBenchOptions): Promise<{ results: unknown; markdown: string }> {
  const scenario: ScenarioRow[] = [];
  scenario.push(await hiddenLimitRun('fixed 60 req/s (too high)', 60, options.scenarioMs));
  scenario.push(await hiddenLimitRun('fixed 20 req/s (too low)', 20, options.scenarioMs));
  scenario.push(await hiddenLimitRun("'auto'", 'auto', options.scenarioMs));

  const server = await startFaultServer(1);
  const url = server.urls[0]!;
  let distinct = 0;
  const setups: [string, Rate][] = [
    [NO_RATE, undefined],
    [FIXED, 1e6],
    [AUTO, { auto: { start: 1e6, max: 1e6 } }],
  ];
  const clients = setups.map(([name, requestsPerSecond]) => {
    const pool = new HttpTransportPool({ endpoints: [{ url, ...rateField(requestsPerSecond), maxConcurrentRequests: 64 }], chain: 'evm' });
    const client: EverydayClient = { name, call: () => pool.request('eth_getBalance', [`0x${(distinct++ % 1_000_000).toString(16).padStart(40, '0')}`, 'latest']) };
    return { client, pool };
  });
  const cpu = new Map<string, number[]>(setups.map(([name]) => [name, []]));
  const rate = new Map<string, number[]>(setups.map(([name]) => [name, []]));
  for (let round = 0; round < options.rounds; round++) {
    for (const { client } of round % 2 === 0 ? clients : [...clients].reverse()) {
      await runLoad(client, 64, options.durationMs / 4);
      const result = await runLoad(client, 64, options.durationMs);
      cpu.get(client.name)!.push(result.cpuUsPerCall);
      rate.get(client.name)!.push(result.callsPerSecond);
    }
  }
  await Promise.all(clients.map(({ pool }) => pool.close()));
  await server.stop();
  const fixedCpu = cpu.get(FIXED)!;
  const autoCpu = cpu.get(AUTO)!;
  const autoOverFixed = median(autoCpu.map((value, i) => value / fixedCpu[i]!));
  const everyday = setups.map(([name]) => ({ client: name, callsPerSecond: median(rate.get(name)!), cpuUsPerCall: median(cpu.get(name)!) }));
  const pct = (share: number) => `${(share * 100).toFixed(1)} %`;
  const markdown = [
    `Hidden limit ${HIDDEN_LIMIT} req/s, 64 callers, ${(options.scenarioMs / 1000).toFixed(0)} s per setup:`,
    '',
    table(
      ['setup', 'answered/s', 'refused (429)', 'answered/s, last third', 'refused, last third'],
      scenario.map((row) => [row.setup, row.answeredPerSecond.toFixed(1), pct(row.refusedShare), row.lastThirdAnsweredPerSecond.toFixed(1), pct(row.lastThirdRefusedShare)]),
    ),
    '',
    `Everyday path, ${options.rounds} alternating rounds (median):`,
    '',
    table(['client', 'calls/s', 'client CPU µs/call'], everyday.map((row) => [row.client, row.callsPerSecond.toFixed(0), row.cpuUsPerCall.toFixed(2)])),
    '',
    `'auto' ÷ fixed, client CPU per call (median of per-round ratios): ${autoOverFixed.toFixed(3)}`,
  ].join('\n');
  return { results: { scenario, everyday, autoOverFixed }, markdown };
}

// Run directly: `npx tsc -p tsconfig.bench.json && node .bench-build/bench/learned-rate.bench.js`.
if (process.argv[1]?.endsWith('learned-rate.bench.js')) {
  const { markdown } = await benchLearnedRate({ scenarioMs: 15_000, durationMs: 1_500, rounds: 6 });
  console.log(markdown);
}
