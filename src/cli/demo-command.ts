import { parseArgs } from 'node:util';
import { integerInRange, positiveNumber, type CliCommand } from './args.js';
import { runDemo, type DemoReport } from './demo.js';
import { progressWriter } from './demo-progress.js';
import { formatTable } from './table.js';

const HELP = `Usage: sturdy-rpc demo [options]

Runs an offline demo: fake Solana nodes with faults on loopback (healthy, rate-limiting with
Retry-After, resetting connections, slow, wrong chain, one that falls 300 slots behind for a
while and catches up), one pool, a mixed workload of reads
and sends; prints a per-endpoint table and the totals (success rate, p50/p99, duplicate
sends — always 0). Two nodes also speak WebSocket and carry live slot subscriptions
(onSlot) through the same pool; one goes silent for a while: a second table shows the
subscriptions that rebound away from it and the gaps (missed slots) reported.

Options:
  --duration <seconds>  how long the workload runs (default 10)
  --seed <n>            seed for a reproducible workload (default 1)
  --concurrency <n>     calls in flight, 1-1024 (default 16)
  --json                print the report as JSON: { seed, durationMs, calls, succeeded,
                        successRate, p50Ms, p99Ms, sends, ambiguousSends, duplicateSends, hedges, longestGapMs,
                        excludedForWrongChain[], failuresByCode{}, endpoints[], subscriptions{} }
  -h, --help            show this help

Exit codes: 0 no duplicate sends; 1 otherwise; 2 bad arguments.`;

function printDemo(report: DemoReport): void {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  console.log(
    formatTable(
      ['endpoint', 'fault', 'requests', 'successes', '429s', 'cooldowns', 'hedged away', 'score', 'share', 'max lag (slots)', 'lagging for', 'state'],
      report.endpoints.map((r) => [
        r.endpoint,
        r.fault,
        r.requests,
        r.successes,
        r.rateLimited,
        r.cooldowns,
        r.hedgedAway,
        r.score ?? '-',
        pct(r.share),
        r.maxLagSlots ?? '-',
        r.laggingMs === 0 ? '-' : `${(r.laggingMs / 1000).toFixed(1)} s`,
        r.state,
      ]),
    ),
  );
  console.log('');
  console.log(`calls ${report.calls}, succeeded ${report.succeeded} (${pct(report.successRate)}), p50 ${report.p50Ms.toFixed(1)} ms, p99 ${report.p99Ms.toFixed(1)} ms`);
  console.log(`hedged reads ${report.hedges}, longest time without a completed call ${report.longestGapMs} ms`);
  console.log(`sends ${report.sends}, ambiguous (reported to the caller, not resent) ${report.ambiguousSends}, duplicate sends at the nodes ${report.duplicateSends}`);
  printSubscriptions(report);
  if (Object.keys(report.failuresByCode).length > 0) console.log(`failures by code: ${JSON.stringify(report.failuresByCode)}`);
}

function printSubscriptions(report: DemoReport): void {
  const s = report.subscriptions;
  if (s.subscriptions === 0) {
    console.log(`slot subscriptions: none opened${s.error === null ? ' (no WebSocket: install the ws package)' : ` (${s.error})`}`);
    return;
  }
  console.log('');
  console.log(
    formatTable(
      ['endpoint', 'websocket', 'subscriptions at end', 'rebound away', 'gaps', 'slots missed'],
      report.endpoints.filter((r) => r.subscriptions !== null).map((r) => [r.endpoint, r.websocket, r.subscriptions ?? '-', r.reboundAway ?? '-', r.gaps ?? '-', r.missedSlots ?? '-']),
    ),
  );
  const reasons = Object.entries(s.rebindReasons).map(([reason, n]) => `${reason} ${n}`).join(', ');
  console.log('');
  console.log(
    `slot subscriptions ${s.subscriptions}: notifications ${s.notifications}, rebinds ${s.rebinds}${reasons === '' ? '' : ` (${reasons})`}, gaps ${s.gaps} (${s.missedSlots} slots), slots delivered twice ${s.duplicateSlots}, skipped without a gap ${s.unannouncedSkips}`,
  );
}

export const demoCommand: CliCommand = {
  name: 'demo',
  summary: 'offline demo: faulty fake nodes, one pool, a mixed workload; per-endpoint table and totals',
  help: HELP,
  async run(args) {
    const { values } = parseArgs({
      args: [...args],
      options: {
        duration: { type: 'string' },
        seed: { type: 'string' },
        concurrency: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    // Progress on stderr (stdout stays the table or the JSON): in place on a terminal, else a line a second.
    const progress = progressWriter((text) => process.stderr.write(text), process.stderr.isTTY === true);
    const report = await runDemo({
      durationMs: positiveNumber(values.duration, 'duration', 10) * 1000,
      seed: Math.floor(positiveNumber(values.seed, 'seed', 1)),
      concurrency: integerInRange(values.concurrency, 'concurrency', 16, 1, 1024),
      progress: progress.report,
    }).finally(progress.end);
    if (values.json) console.log(JSON.stringify(report, null, 2));
    else printDemo(report);
    return report.duplicateSends === 0 ? 0 : 1;
  },
};
