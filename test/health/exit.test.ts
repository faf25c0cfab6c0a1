import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixtureServer, type FixtureServer } from '../../src/testing/fixture-server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let node: FixtureServer;

beforeAll(async () => {
  node = await createFixtureServer({ fixtures: [], head: { start: 42 } });
});

afterAll(async () => {
  await node.close();
});

describe('background work never keeps a process alive', () => {
  it('lets a script that made one call and never closed its pool (probes running) exit by itself', async () => {
    // A port nothing listens on (taken from the OS, then released): the second endpoint's probes are refused.
    const closed = await createFixtureServer({ fixtures: [] });
    const downUrl = closed.url;
    await closed.close();
    const started = performance.now();
    const run = await new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, ['--import', 'tsx', 'test/health/one-call-no-close.ts', node.url, downUrl], { cwd: ROOT, timeout: 20_000, killSignal: 'SIGKILL' }, (_error, stdout, stderr) =>
        resolve({ code: child.exitCode, signal: child.signalCode, stdout, stderr }),
      );
    });
    expect(run.stderr).toBe('');
    expect(run.signal).toBeNull();
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('answered 42');
    expect(run.stdout).toContain('probed: yes');
    expect(node.count('getSlot')).toBeGreaterThanOrEqual(2);
    expect(performance.now() - started).toBeLessThan(20_000);
  }, 30_000);
});
