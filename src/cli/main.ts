#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { runDemo, type DemoReport } from './demo.js';
import { formatTable } from './table.js';

const USAGE = `Usage: sturdy-rpc <command> [options]

Commands:
  demo     Run an offline demo: fake Solana nodes with faults on loopback, one pool, a mixed
           workload of reads and sends; prints a per-endpoint table and the totals.
           --duration <seconds>  how long the workload runs (default 10)
           --seed <n>            seed for a reproducible workload (default 1)
           --concurrency <n>     calls in flight (default 16)
           --json                print the report as JSON

Options:
  -h, --help  show this help`;

/** An expected error: a one-line message, usage, exit code 2 — never a stack trace. */
class UsageError extends Error {}

function positiveNumber(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} must be a positive number`);
  return n;
}

function printDemo(report: DemoReport): void {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  console.log(
    formatTable(
      ['endpoint', 'fault', 'requests', 'successes', '429s', 'cooldowns', 'score', 'share', 'state'],
      report.endpoints.map((r) => [r.endpoint, r.fault, r.requests, r.successes, r.rateLimited, r.cooldowns, r.score ?? '-', pct(r.share), r.state]),
    ),
  );
  console.log('');
  console.log(`calls ${report.calls}, succeeded ${report.succeeded} (${pct(report.successRate)}), p50 ${report.p50Ms.toFixed(1)} ms, p99 ${report.p99Ms.toFixed(1)} ms`);
  console.log(`sends ${report.sends}, ambiguous (reported to the caller, not resent) ${report.ambiguousSends}, duplicate sends at the nodes ${report.duplicateSends}`);
  if (Object.keys(report.failuresByCode).length > 0) console.log(`failures by code: ${JSON.stringify(report.failuresByCode)}`);
}

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help') {
    console.log(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command !== 'demo') throw new UsageError(`unknown command '${command}'`);
  const { values } = parseArgs({
    args: [...rest],
    options: {
      duration: { type: 'string' },
      seed: { type: 'string' },
      concurrency: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const report = await runDemo({
    durationMs: positiveNumber(values.duration, 'duration', 10) * 1000,
    seed: Math.floor(positiveNumber(values.seed, 'seed', 1)),
    concurrency: Math.floor(positiveNumber(values.concurrency, 'concurrency', 16)),
    ...(values.json || !process.stderr.isTTY ? {} : { progress: (line: string) => process.stderr.write(line) }),
  });
  if (values.json) console.log(JSON.stringify(report, null, 2));
  else printDemo(report);
  return report.duplicateSends === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    console.error(`sturdy-rpc: ${error instanceof Error ? error.message : String(error)}`);
    if (usage) console.error(`\n${USAGE}`);
    process.exitCode = usage ? 2 : 1;
  },
);
