import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findBinary } from '../helpers/system-binary.js';

/**
 * Every program in `examples/` runs, offline, as a user would run it: a child process
 * `node --import tsx examples/<name>.ts` from the repository root, with no `*_RPC_URL`
 * variable set (so each starts its own fixture servers or anvil). `npm run typecheck`
 * already type-checks them (tsconfig includes `examples`); this proves they still work.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TIMEOUT_MS = 30_000;

/** Lines each program must print: the behaviour it exists to show. */
const EXPECTED_OUTPUT: Readonly<Record<string, readonly RegExp[]>> = {
  'solana-balance.ts': [/primary: 429, Retry-After 2000 ms; paused for 2000 ms/, /served by backup \(attempt 2,/, /balance 18446744073709551615 lamports/],
  'evm-balance-anvil.ts': [/^chain id: 31337$/m, /: 10000000000000000000000 wei \(10000\.0 ETH\)/, /genesis hash: 0xc56b8342/],
  'backend-fetch-loop.ts': [/^job done/m, /the call in flight ended with ABORTED after \d+ ms/],
  'safe-send.ts': [/^AMBIGUOUS_DISPATCH: endpoint 'primary'/m, /^decision: landed in slot 341197058/m, /^sendTransaction received: primary 1, peer 0$/m],
  'send-and-confirm.ts': [/^send: ambiguous/m, /^outcome: confirmed$/m, /^decision: landed in slot 341197058: done, never re-sign$/m, /^sendTransaction received: 1$/m],
  'guarded-pool.ts': [
    /^chain check: misconfigured wrong-chain \(reported EtWTRABZ…\)$/m,
    /^reconcile: sendTransaction to 'primary' found after 1 lookup\(s\)$/m,
    /^sendTransaction resolved: the transaction signature$/m,
    /^primary: 1 send\(s\), 6 read\(s\); misconfigured: 0 send\(s\), 0 read\(s\); backup: 0 send\(s\), 0 read\(s\)$/m,
  ],
  'monitoring.ts': [
    /^30 of 30 reads succeeded$/m,
    /^ {2}sturdy_rpc_breaker_opens_total\{endpoint="flaky"\} 1$/m,
    /^ {2}sturdy_rpc_calls_total\{kind="read",method="getBalance",outcome_code="ok"\} 30$/m,
    /^ {2}warn sturdy-rpc: host breaker open for \d+ ms \(operator provider-b; endpoints flaky\)$/m,
    /^ {2}main +share +\d+%/m,
    /: none$/m,
  ],
  'batching.ts': [
    /^10 identical getBalance calls: 1 request\(s\); every task got 18446744073709551615 lamports$/m,
    /^pool\.batch of 3: 1 request\(s\); ok, ok, ok$/m,
    /^micro-batching, 3 reads in one tick: 1 request\(s\)$/m,
  ],
  'subscriptions.ts': [
    /^account changed at slot 341197061 on primary: 1000000000 lamports \(rentEpoch 18446744073709551615\)$/m,
    /^rebind primary -> backup: re-read 2500000000 lamports at slot 341197066 over HTTP$/m,
    /^account changed at slot 341197067 on backup: 3000000000 lamports/m,
    /^confirmed in slot 341197069 \(err null\), learned by status-check$/m,
    /^open subscriptions: 0$/m,
  ],
  // Needs redis-server: where it is missing (never under CI=true, where .ci/run installs it) the program prints a visible SKIPPED line instead.
  'fleet-workers.ts':
    findBinary('redis-server') === undefined && process.env['CI'] !== 'true'
      ? [/^SKIPPED: redis-server is not installed/m]
      : [
          /^3 workers, one quota of 30 req\/s: busiest saturated second after the first held \d+ requests \(bound 30 \+ 3 leases of 3 = 39\)$/m,
          /^calls answered: \d+ \+ \d+ \+ \d+; failed: 0$/m,
          /^429 \+ Retry-After: 1 to worker 0: workers 1 and 2 adopted the cooldown; requests from 300 ms to 900 ms after it: 0$/m,
        ],
  'adapters/fetch.ts': [/^genesis 5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d$/m],
  'adapters/viem.ts': [/^chain id 31337$/m, /^balance \(wei\) 10000000000000000000000n$/m],
  'adapters/kit.ts': [/^lamports \(exact bigint\) 18446744073709551615n$/m],
  'adapters/ethers.ts': [/^chain id 31337n$/m],
};

const programsIn = (dir: string, exclude: readonly string[] = []) =>
  readdirSync(new URL(`../../examples/${dir}`, import.meta.url))
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && !exclude.includes(name))
    .map((name) => `${dir}${name}`);
// `adapters/local-node.ts` is the in-process node the adapter examples share, not a program.
const programs = [...programsIn(''), ...programsIn('adapters/', ['local-node.ts'])].sort();

/** The parent's environment minus anything that would point an example at a real node. */
function offlineEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/_RPC_URL$|^(SOLANA|EVM)_ADDRESS$/.test(name)));
}

interface Run {
  readonly code: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runExample(name: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', `examples/${name}`],
      { cwd: ROOT, env: offlineEnv(), timeout: TIMEOUT_MS, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const failure = error as (Error & { code?: number | string; signal?: string | null }) | null;
        resolve({
          code: failure === null ? 0 : typeof failure.code === 'number' ? failure.code : null,
          signal: failure?.signal ?? null,
          stdout,
          stderr,
        });
      },
    );
  });
}

describe('examples', () => {
  it('lists the expected output of every example program, and of nothing else', () => {
    expect(programs).toEqual(Object.keys(EXPECTED_OUTPUT).sort());
  });

  it.concurrent.each(programs)('examples/%s exits 0 offline and prints what it demonstrates', { timeout: TIMEOUT_MS + 5_000 }, async (name) => {
    const run = await runExample(name);
    const transcript = `exit ${run.code ?? run.signal}\n--- stdout\n${run.stdout}--- stderr\n${run.stderr}`;
    expect(run.code, transcript).toBe(0);
    for (const line of EXPECTED_OUTPUT[name] ?? []) expect(run.stdout, transcript).toMatch(line);
  });
});
