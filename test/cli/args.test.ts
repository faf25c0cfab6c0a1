import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { foldDashValues } from '../../src/cli/args.js';
import { REPO_ROOT, runCli } from './run-cli.js';

/** The command line a newcomer types: `--version`, a negative or dash-led value, a missing value, `npm run cli`. */

const VERSION = (JSON.parse(readFileSync(`${REPO_ROOT}package.json`, 'utf8')) as { version: string }).version;

describe('sturdy-rpc arguments', () => {
  it('--version and -V print the package version and exit 0', async () => {
    for (const flag of ['--version', '-V']) {
      const result = await runCli([flag]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(`${VERSION}\n`);
    }
  });

  it('a negative or dash-led value gets the option’s plain range error, not parseArgs’ "ambiguous" text', async () => {
    for (const args of [['demo', '--duration', '-5'], ['demo', '--duration=-XYZ'], ['demo', '--duration', '-XYZ']]) {
      const result = await runCli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.split('\n')[0], args.join(' ')).toBe('sturdy-rpc demo: --duration must be a positive number');
      expect(result.stderr).not.toMatch(/argument is ambiguous|Did you forget/);
    }
    const probe = await runCli(['probe', '--samples', '-1', '--url', 'http://127.0.0.1:9']);
    expect(probe.code).toBe(2);
    expect(probe.stderr.split('\n')[0]).toBe('sturdy-rpc probe: --samples must be an integer from 1 to 100');
  });

  it('an option followed by another option says it needs a value', async () => {
    const result = await runCli(['demo', '--duration', '--json']);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe('sturdy-rpc demo: --duration needs a value');
  });

  it('folds only single-dash values into the option before them; -h and everything after -- stay as they are', () => {
    expect(foldDashValues(['--duration', '-5', '--json'])).toEqual(['--duration=-5', '--json']);
    expect(foldDashValues(['--seed', '-h'])).toEqual(['--seed', '-h']);
    expect(foldDashValues(['--json', '--seed', '3'])).toEqual(['--json', '--seed', '3']);
    expect(foldDashValues(['--', '--duration', '-5'])).toEqual(['--', '--duration', '-5']);
  });

  it('runs from a checkout with `npm run cli -- …`', async () => {
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile('npm', ['run', '--silent', 'cli', '--', '--version'], { cwd: REPO_ROOT, timeout: 20_000 }, (error, out) => (error ? reject(error) : resolve(out))),
    );
    expect(stdout.trim()).toBe(VERSION);
  }, 25_000);
});
