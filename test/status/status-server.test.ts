import { execFile } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { Server, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import type { StatusDocument } from '../../src/status/status-server.js';
import { quantile } from '../../src/status/recent-activity.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { REPO_ROOT } from '../cli/run-cli.js';
import { closePools, createPool } from '../helpers/pools.js';
import { answerAfter, createScriptedExecutor } from '../helpers/scripted-executor.js';

const SECRET = 'sk-live-0123456789abcdef';

/** One GET without keep-alive; resolves with the status and the body (or the socket error code). */
function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    req.setTimeout(5_000, () => req.destroy(new Error('timeout')));
    req.end();
  });
}

afterEach(closePools);

function setup() {
  const clock = createFakeClock();
  const executor = createScriptedExecutor();
  const pool = createPool({
    endpoints: [
      { id: 'fast', url: `https://${SECRET}.one.example.com/`, operator: 'one' },
      { id: 'slow', url: `https://two.example.org/v2/${SECRET}`, operator: 'two' },
    ],
    clock,
    random: createSeededRandom(2),
    executor,
    hedge: false,
    balance: false,
    concentration: { maxOperatorShare: 0 },
  });
  executor.script('fast', answerAfter(clock, 10));
  executor.script('slow', answerAfter(clock, 300));
  return { clock, pool };
}

async function drive(clock: ReturnType<typeof createFakeClock>, call: () => Promise<unknown>, calls: number): Promise<void> {
  for (let i = 0; i < calls; i++) {
    let settled = false;
    void call().finally(() => (settled = true));
    while (!settled) await clock.advance(10);
  }
}

describe('pool.serveStatus', () => {
  it('serves the snapshot and the last 10 s of activity (share, p50, p99 per endpoint) as JSON on 127.0.0.1', async () => {
    const { clock, pool } = setup();
    const status = await pool.serveStatus({ port: 0 });
    expect(status.url).toBe(`http://127.0.0.1:${status.port}/status`);
    await drive(clock, () => pool.request('getSlot', []), 40);
    const answer = await get(status.url);
    if (!('status' in answer)) throw new Error(answer.error);
    expect(answer.status).toBe(200);
    const document = JSON.parse(answer.body) as StatusDocument;
    expect(document.version).toBe(1);
    expect(document.windowMs).toBe(10_000);
    expect(document.snapshot.endpoints.map((e) => e.endpointId)).toEqual(['fast', 'slow']);
    const [fast, slow] = document.recent;
    // Plain rotation: 20 calls each.
    expect([fast!.attempts, slow!.attempts]).toEqual([20, 20]);
    expect(fast!.share).toBe(0.5);
    expect([fast!.p50Ms, fast!.p99Ms, slow!.p50Ms, slow!.p99Ms]).toEqual([10, 10, 300, 300]);
    expect(answer.body).not.toContain(SECRET);
    expect(answer.body).not.toContain('example.');

    // Ten seconds later the window is empty again.
    await clock.advance(10_001);
    const later = await get(status.url);
    if (!('status' in later)) throw new Error(later.error);
    expect((JSON.parse(later.body) as StatusDocument).recent.map((r) => [r.attempts, r.share, r.p50Ms ?? null])).toEqual([
      [0, 0, null],
      [0, 0, null],
    ]);
  });

  it('listens on a loopback address only: the socket it bound, not just the URL it returns', async () => {
    const { pool } = setup();
    // The listening socket itself: every server that starts listening during the call, as bound.
    const listen = vi.spyOn(Server.prototype, 'listen');
    try {
      for (const port of [0, undefined]) {
        const status = await pool.serveStatus(port === undefined ? {} : { port });
        const bound = listen.mock.contexts.map((server) => (server as Server).address()).filter((a): a is AddressInfo => typeof a === 'object' && a?.port === status.port);
        expect(bound).toHaveLength(1);
        expect(bound[0]!.address).toBe('127.0.0.1');
        expect(new URL(status.url).hostname).toBe(bound[0]!.address);
        await status.close();
      }
    } finally {
      listen.mockRestore();
    }
  });

  it('refuses other host names, other paths and other methods', async () => {
    const { pool } = setup();
    const status = await pool.serveStatus();
    expect(await get(status.url, { host: `evil.example:${status.port}` })).toMatchObject({ status: 403 });
    expect(await get(`http://127.0.0.1:${status.port}/other`)).toMatchObject({ status: 404 });
    expect(await get(status.url, {}, 'POST')).toMatchObject({ status: 405 });
    expect(await get(`http://localhost:${status.port}/`, { host: `localhost:${status.port}` })).toMatchObject({ status: 200 });
  });

  it('pool.close() closes it: the port refuses connections', async () => {
    const { pool } = setup();
    const status = await pool.serveStatus();
    expect(await get(status.url)).toMatchObject({ status: 200 });
    await pool.close();
    expect(await get(status.url)).toEqual({ error: 'ECONNREFUSED' });
    await status.close(); // idempotent
    await expect(pool.serveStatus()).rejects.toMatchObject({ code: 'POOL_CLOSED' });
  });

  it('rejects a bad port with INVALID_INPUT and opens nothing', async () => {
    const { pool } = setup();
    for (const port of [-1, 65_536, 1.5, Number.NaN]) await expect(pool.serveStatus({ port })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('never keeps a process alive on its own', async () => {
    const script = `
      import { HttpTransportPool } from './src/index.ts';
      const pool = new HttpTransportPool({ endpoints: [{ url: 'http://127.0.0.1:9/' }] });
      const status = await pool.serveStatus({ port: 0 });
      console.log('serving', status.port);
    `;
    const result = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO_ROOT, timeout: 15_000, killSignal: 'SIGKILL' }, (error, stdout) =>
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout }),
      );
    });
    expect(result.stdout).toMatch(/^serving \d+\n$/);
    expect(result.code).toBe(0);
  }, 20_000);
});

describe('quantile', () => {
  it('is the nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([quantile(values, 0.5), quantile(values, 0.99), quantile(values, 1), quantile([], 0.5)]).toEqual([50, 99, 100, undefined]);
  });
});
