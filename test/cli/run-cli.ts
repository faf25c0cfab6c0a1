import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadFixtures, type Fixture } from '../../src/testing/fixtures.js';

/**
 * Runs `sturdy-rpc` as a child process (`node --import tsx src/cli/main.ts …`), exactly as
 * a user would, and reports its exit code and output.
 */

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN = 'src/cli/main.ts';

export interface CliResult {
  /** Exit code; `null` when killed (e.g. by the timeout). */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI to completion, killing it after `timeoutMs`. Never rejects. */
export function runCli(args: readonly string[], timeoutMs = 12_000): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', MAIN, ...args],
      { cwd: REPO_ROOT, timeout: timeoutMs, killSignal: 'SIGKILL', env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A long-running CLI child (serve-fixtures) with its output collected as it arrives. */
export interface CliProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout match of `pattern`; rejects after `timeoutMs` or on exit. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code once the child has exited (`null` when killed by a signal). */
  exited(): Promise<number | null>;
  /** SIGKILLs the child if it is still running (for `afterEach`). */
  kill(): void;
}

export function startCli(args: readonly string[]): CliProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitForOutput(pattern, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(out);
          if (match === null) return false;
          cleanup();
          resolve(match);
          return true;
        };
        const onData = () => void check();
        const onExit = () => {
          cleanup();
          reject(new Error(`CLI exited before printing ${pattern}; stdout: ${out}; stderr: ${err}`));
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no ${pattern} within ${timeoutMs} ms; stdout: ${out}; stderr: ${err}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          child.stdout?.off('data', onData);
          child.off('exit', onExit);
        };
        if (check()) return;
        child.stdout?.on('data', onData);
        child.once('exit', onExit);
      });
    },
    exited: () => exit,
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** The project's fixtures whose name passes `keep`. */
export function projectFixtures(keep: (name: string) => boolean = () => true): Fixture[] {
  return loadFixtures(`${REPO_ROOT}fixtures`).filter((fixture) => keep(fixture.name));
}

/** Solana fixtures of a healthy mainnet-beta node (one genesis hash, one health answer). */
export function mainnetSolanaFixtures(): Fixture[] {
  return projectFixtures(
    (name) =>
      (name.startsWith('solana-') && !name.startsWith('solana-getGenesisHash-') && !name.startsWith('solana-getHealth-')) ||
      name === 'solana-getGenesisHash-mainnet-beta' ||
      name === 'solana-getHealth-ok',
  );
}

/** EVM fixtures (eth_chainId, block 0 of mainnet, web3_clientVersion, eth_syncing false first). */
export function evmFixtures(): Fixture[] {
  return projectFixtures((name) => name.startsWith('evm-') && name !== 'evm-eth_syncing-object');
}
