/**
 * Fault scenarios: one fixed seeded workload (reads of distinct addresses, sends of unique
 * signed transactions) over 4 endpoints of one server process — the first faulty, three
 * normal — run with sturdy-rpc and the peers' failover clients at their defaults. Reports
 * success rate (the right chain's answer), latency of every call, requests the servers
 * received per successful call, and duplicate sends as the servers saw them.
 */
import { FAULT_CLIENTS, TIMEOUT_MS, web3Console, type FaultClient, type FaultClientFactory } from './fault-clients.js';
import { startFaultServer, type FaultServer } from './fault-control.js';
import { percentile, type PortFault } from './fault-model.js';
import { createWorkload, type WorkItem } from './fault-workload.js';
import { table } from './util.js';

export interface FaultBenchOptions {
  readonly calls: number;
  /** Calls of the single-endpoint client (web3.js v1): a prefix of the same workload. */
  readonly singleEndpointCalls: number;
  readonly inFlight: number;
  /** Delay of every normal answer, in ms; the slow endpoint takes 10×. */
  readonly baseDelayMs: number;
  readonly seed: number;
}

export interface FaultResult {
  readonly scenario: string;
  readonly client: string;
  readonly calls: number;
  readonly successes: number;
  readonly wrongAnswers: number;
  readonly failures: number;
  readonly successRate: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly durationMs: number;
  readonly requestsReceived: number;
  /** Requests each endpoint received; the faulty one first. */
  readonly receivedByEndpoint: readonly number[];
  readonly requestsPerSuccess: number;
  readonly sendsCalled: number;
  readonly sendsProcessed: number;
  readonly duplicateSends: number;
  readonly duplicatedPayloads: number;
  readonly failuresByKind: Readonly<Record<string, number>>;
}

interface Scenario {
  readonly id: string;
  readonly title: string;
  readonly fault: PortFault;
  /** Closes the primary for this share of the expected run time, then reopens it. */
  readonly downWindow?: readonly [number, number];
}

export const SCENARIOS: readonly Scenario[] = [
  { id: 'rate-limit', title: '1. 429 + Retry-After: 1 above 100 req/s', fault: { type: 'rate-limit', requestsPerSecond: 100, retryAfterSeconds: 1 } },
  { id: 'reset', title: '2. resets 20% of connections after processing', fault: { type: 'reset', ratio: 0.2 } },
  { id: 'slow', title: '3. 10× slower', fault: { type: 'slow', factor: 10 } },
  { id: 'wrong-chain', title: '4. wrong chain', fault: { type: 'wrong-chain' } },
  { id: 'down', title: '5. primary down mid-run, then back', fault: { type: 'normal' }, downWindow: [0.15, 0.65] },
];

const WATCHDOG_MS = 15_000;

function failureKind(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : typeof error;
}

/** One call, bounded by a watchdog so a client that never settles cannot hang the run. */
function guarded(client: FaultClient, item: WorkItem): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const watchdog = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('no answer'), { code: 'BENCH_WATCHDOG' })), WATCHDOG_MS);
  });
  return Promise.race([client.run(item), watchdog]).finally(() => clearTimeout(timer));
}

async function runOnce(server: FaultServer, scenario: Scenario, factory: FaultClientFactory, items: readonly WorkItem[], options: FaultBenchOptions): Promise<FaultResult> {
  await server.configure({ baseDelayMs: options.baseDelayMs, ports: [scenario.fault] });
  const client = await factory.create(server.urls);
  await server.resetStats();
  const latencies: number[] = [];
  const failuresByKind: Record<string, number> = {};
  let successes = 0;
  let wrongAnswers = 0;
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      const t0 = performance.now();
      try {
        if (await guarded(client, item)) successes++;
        else wrongAnswers++;
      } catch (error) {
        const kind = failureKind(error);
        failuresByKind[kind] = (failuresByKind[kind] ?? 0) + 1;
      }
      latencies.push(performance.now() - t0);
    }
  };
  const timers: Promise<void>[] = [];
  if (scenario.downWindow) {
    const expectedMs = (items.length / options.inFlight) * options.baseDelayMs;
    const at = (share: number, action: () => Promise<void>) =>
      timers.push(new Promise<void>((resolve) => setTimeout(() => action().then(resolve, resolve), share * expectedMs)));
    at(scenario.downWindow[0], () => server.down(0));
    at(scenario.downWindow[1], () => server.up(0));
  }
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: options.inFlight }, worker));
  } finally {
    await Promise.all(timers);
    await client.close();
  }
  const durationMs = performance.now() - started;
  // Copies still in flight (a broadcast's slower legs) are processed within the slow delay.
  await new Promise((resolve) => setTimeout(resolve, options.baseDelayMs * 10 + 100));
  const stats = await server.stats();
  latencies.sort((a, b) => a - b);
  const requestsReceived = stats.ports.reduce((sum, port) => sum + port.received, 0);
  return {
    scenario: scenario.title,
    client: factory.name,
    calls: items.length,
    successes,
    wrongAnswers,
    failures: items.length - successes - wrongAnswers,
    successRate: successes / items.length,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    durationMs,
    requestsReceived,
    receivedByEndpoint: stats.ports.map((port) => port.received),
    requestsPerSuccess: successes === 0 ? Number.POSITIVE_INFINITY : requestsReceived / successes,
    sendsCalled: items.filter((item) => item.kind === 'send').length,
    sendsProcessed: stats.sendsProcessed,
    duplicateSends: stats.duplicateSends,
    duplicatedPayloads: stats.duplicatedPayloads,
    failuresByKind,
  };
}

export async function benchFaults(options: FaultBenchOptions): Promise<{ results: FaultResult[]; markdown: string }> {
  const items = await createWorkload(options.calls, 0.1, options.seed);
  const server = await startFaultServer(4);
  const results: FaultResult[] = [];
  try {
    for (const [index, scenario] of SCENARIOS.entries()) {
      const factories = FAULT_CLIENTS.filter((f) => !f.scenarios || f.scenarios.includes(scenario.id));
      // Alternate the order between scenarios, as the throughput rounds do.
      for (const factory of index % 2 === 0 ? factories : [...factories].reverse()) {
        const workload = factory.singleEndpoint ? items.slice(0, options.singleEndpointCalls) : items;
        results.push(await runOnce(server, scenario, factory, workload, options));
      }
    }
  } finally {
    await server.stop();
  }
  const rank = (r: FaultResult) =>
    SCENARIOS.findIndex((s) => s.title === r.scenario) * 100 + FAULT_CLIENTS.findIndex((f) => f.name === r.client);
  results.sort((a, b) => rank(a) - rank(b));
  return { results, markdown: render(results, options) };
}

const pct = (rate: number) => `${(rate * 100).toFixed(1)}%`;

function render(results: readonly FaultResult[], options: FaultBenchOptions): string {
  const rows = results.map((r) => [
    r.scenario,
    r.client,
    r.calls,
    pct(r.successRate),
    r.wrongAnswers,
    r.failures === 0 ? '0' : `${r.failures}: ${Object.entries(r.failuresByKind).map(([kind, n]) => `${kind} ${n}`).join(', ')}`,
    r.p50Ms.toFixed(1),
    r.p99Ms.toFixed(1),
    Number.isFinite(r.requestsPerSuccess) ? r.requestsPerSuccess.toFixed(2) : '∞',
    `${r.sendsProcessed} / ${r.sendsCalled}`,
    `${r.duplicateSends} (${r.duplicatedPayloads})`,
  ]);
  const notes = FAULT_CLIENTS.map((f) => `- **${f.name}**: ${f.note}`).join('\n');
  const setup =
    `${options.calls} calls (${options.singleEndpointCalls} for single-endpoint clients), 90% \`getBalance\` of distinct addresses / ` +
    `10% sends of unique signed transactions, ${options.inFlight} in flight, seed ${options.seed}; endpoint 1 of 4 is the faulty one (first in ` +
    `every client's list); normal answers take ${options.baseDelayMs} ms; ${TIMEOUT_MS} ms per request. Latency covers every call, failed ones included.`;
  const web3 = web3Console.suppressedLines > 0 ? `\n\n(web3.js v1 printed ${web3Console.suppressedLines} "Retrying after …" lines to the console; suppressed.)` : '';
  return `${setup}\n\n${table(
    ['scenario', 'client', 'calls', 'success', 'wrong answers', 'failed (by error)', 'p50 ms', 'p99 ms', 'requests / success', 'sends processed / called', 'duplicate sends (payloads)'],
    rows,
  )}\n\n${notes}${web3}`;
}
