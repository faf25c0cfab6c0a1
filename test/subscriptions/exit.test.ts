import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixtureServer, type FixtureServer } from '../../src/testing/fixture-server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let node: FixtureServer;

beforeAll(async () => {
  node = await createFixtureServer({ fixtures: [], websocket: { slotIntervalMs: 0 } });
});

afterAll(async () => {
  await node.close();
});

describe('failed subscribes never keep a process alive', () => {
  it('a script whose subscribe was refused (-32601) and whose next one was never confirmed exits by itself without pool.close()', async () => {
    // Unknown methods are refused with -32601 whatever the mode; subscribe methods get no answer.
    node.ws!.setSubscribeAnswer('never');
    const started = performance.now();
    const run = await new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['--import', 'tsx', 'test/subscriptions/failed-subscribe-no-close.ts', node.url, node.wsUrl!],
        { cwd: ROOT, timeout: 15_000, killSignal: 'SIGKILL' },
        (_error, stdout, stderr) => resolve({ code: child.exitCode, signal: child.signalCode, stdout, stderr }),
      );
    });
    expect(run.stderr).toBe('');
    expect(run.signal).toBeNull();
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('refused: rpc-error');
    expect(run.stdout).toContain('unconfirmed: timeout');
    expect(node.count('notAMethod')).toBe(1);
    expect(node.count('slotSubscribe')).toBeGreaterThanOrEqual(1);
    expect(performance.now() - started).toBeLessThan(15_000);
  }, 30_000);
});
