import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { systemClock, type Clock } from '../../src/clock.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
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

  it('stops every probe at close(): no timer left in the process and no socket left open at the server', async () => {
    // A plain loopback node that counts the connections open to it.
    const open = new Set<Socket>();
    let slot = 1_000;
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const { id } = JSON.parse(body) as { id: number };
        res.writeHead(200, { 'content-type': 'application/json' }).end(`{"jsonrpc":"2.0","id":${id},"result":${slot++}}`);
      });
    });
    server.on('connection', (socket: Socket) => {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    // The real clock, counting the timers the pool holds (unref'd ones are invisible to Node's resource list).
    let pending = 0;
    const clock: Clock = {
      now: () => systemClock.now(),
      wallNow: () => systemClock.wallNow(),
      setTimer(callback, delayMs, options) {
        pending++;
        let done = false;
        const finish = () => {
          if (!done) pending--;
          done = true;
        };
        const handle = systemClock.setTimer(() => {
          finish();
          callback();
        }, delayMs, options);
        return {
          cancel() {
            finish();
            handle.cancel();
          },
        };
      },
    };
    const timers = () => pending;
    const timersBefore = 0;
    const pool = new HttpTransportPool({ endpoints: [{ id: 'n', url }], chain: 'solana', clock, health: { probeAll: true, probeIntervalMs: 50 } });
    const probes: string[] = [];
    pool.on('probe', (e) => probes.push(e.outcome));
    for (let i = 0; i < 200 && probes.filter((o) => o === 'ok').length < 3; i++) await sleep(10);
    expect(probes.filter((o) => o === 'ok').length).toBeGreaterThanOrEqual(3);
    expect(open.size).toBeGreaterThan(0);
    expect(timers()).toBeGreaterThan(timersBefore);
    await pool.close();
    for (let i = 0; i < 200 && (open.size > 0 || timers() > timersBefore); i++) await sleep(10);
    expect(open.size).toBe(0);
    expect(timers()).toBe(timersBefore);
    const probesAtClose = probes.length;
    await sleep(200);
    expect(probes.length).toBe(probesAtClose);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
