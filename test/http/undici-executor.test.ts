import diagnosticsChannel from 'node:diagnostics_channel';
import { getEventListeners } from 'node:events';
import http from 'node:http';
import type net from 'node:net';
import { describe, expect, it } from 'vitest';
import type { HttpExecutor } from '../../src/http/executor.js';
import { createUndiciExecutor } from '../../src/http/undici-executor.js';
import { call, closedAfterEach, expectError, listen, startHttp, whenClosed } from '../helpers/http-server.js';
import { refusedPort } from '../helpers/loopback.js';
import { describeExecutorContract } from './executor-contract.js';

type Options = Parameters<typeof createUndiciExecutor>[0];

/** Resolves with the next message published on an undici diagnostics channel. */
function nextOnChannel(name: string): Promise<void> {
  return new Promise((resolve) => {
    const listener = (): void => {
      diagnosticsChannel.unsubscribe(name, listener);
      // The handler runs right after the publish; let it run before acting.
      setImmediate(resolve);
    };
    diagnosticsChannel.subscribe(name, listener);
  });
}

describeExecutorContract<Options>('createUndiciExecutor', createUndiciExecutor, {
  decodes: ['gzip', 'deflate', 'br'],
  sendsHeaders: { 'accept-encoding': 'gzip, deflate, br' },
  codes: { resetAfterRead: 'ECONNRESET', closeAfterRead: 'UND_ERR_SOCKET' },
  observeHeaders: () => ({ arrived: nextOnChannel('undici:request:headers') }),
});

const executor = closedAfterEach<Options>(createUndiciExecutor);

describe('createUndiciExecutor', () => {
  it('joins a repeated response header and reads a body that arrives in many chunks whole', async () => {
    const big = `{"jsonrpc":"2.0","id":1,"result":"${'ab'.repeat(100_000)}"}`;
    const { url } = await startHttp((req, res) => {
      res.setHeader('X-Multi', ['a', 'b']);
      if (req.url !== '/big') return void res.end('{}');
      // Written in slices: the client sees the body in several chunks.
      for (let i = 0; i < big.length; i += 16_384) res.write(big.slice(i, i + 16_384));
      res.end();
    });
    const e = executor();

    const small = await e.execute(call(url));
    const large = await e.execute(call(`${url}/big`, { maxResponseBytes: 1_000_000 }));

    expect(small).toMatchObject({ type: 'response', body: '{}', headers: expect.objectContaining({ 'x-multi': 'a, b' }) });
    expect(large).toMatchObject({ type: 'response', headers: expect.objectContaining({ 'x-multi': 'a, b' }) });
    expect(large.type === 'response' && large.body === big).toBe(true);
  });

  it('leaves no abort listener behind, whatever the outcome', async () => {
    const { url } = await startHttp((req, res) => res.end(req.url === '/big' ? 'x'.repeat(5_000) : '{}'));
    const port = await refusedPort();
    const signal = new AbortController().signal;
    const e = executor();

    expect(await e.execute(call(url, { signal }))).toMatchObject({ type: 'response' });
    expect(await e.execute(call(`${url}/big`, { signal, maxResponseBytes: 1_000 }))).toMatchObject({ kind: 'too-large' });
    expect(await e.execute(call(`http://127.0.0.1:${port}/`, { signal }))).toMatchObject({ kind: 'connect' });

    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('a call aborted while queued behind a busy connection is not dispatched and is never written', async () => {
    let onFirst!: (arrived: { res: http.ServerResponse; socket: net.Socket }) => void;
    const firstArrived = new Promise<{ res: http.ServerResponse; socket: net.Socket }>((resolve) => (onFirst = resolve));
    const { seen, url } = await startHttp((req, res) => onFirst({ res, socket: req.socket }));
    const target = { endpointId: 'e1', url, headers: {}, maxConnections: 1 };
    const e = executor();

    const first = e.execute(call(url, { target }));
    const { res, socket } = await firstArrived;
    const controller = new AbortController();
    const queued = e.execute(call(url, { target, signal: controller.signal }));
    controller.abort();

    expect(expectError(await queued)).toMatchObject({ kind: 'aborted', dispatched: false });
    const socketClosed = whenClosed(socket);
    res.end('{}');
    expect(await first).toMatchObject({ type: 'response', status: 200 });
    // undici reaches the abandoned call on the freed socket; it must drop it, not write it.
    await socketClosed;
    expect(seen).toHaveLength(1);
  });

  it('close() closes kept-alive connections and later calls are refused without reaching the server', async () => {
    let serverSocketClosed: Promise<unknown> = Promise.resolve();
    const { server, seen, url } = await startHttp((req, res) => {
      serverSocketClosed = whenClosed(req.socket);
      res.end('{}');
    });
    // Neither side would close the idle connection on its own during the test.
    server.keepAliveTimeout = 60_000;
    const e = createUndiciExecutor({ keepAliveTimeoutMs: 60_000 });
    expect(await e.execute(call(url))).toMatchObject({ type: 'response' });

    await e.close();
    await serverSocketClosed;
    const after = expectError(await e.execute(call(url)));
    await e.close();

    expect(after).toMatchObject({ kind: 'other', dispatched: false });
    expect(seen).toHaveLength(1);
  });

  it('avoidStaleSockets calls never reuse a connection', async () => {
    const { seen, url } = await startHttp((_req, res) => res.end('{}'));
    const e = executor();

    for (let i = 0; i < 4; i++) await e.execute(call(url));
    for (let i = 0; i < 3; i++) await e.execute(call(url, { avoidStaleSockets: true }));

    const readPorts = new Set(seen.slice(0, 4).map((s) => s.remotePort));
    const sendPorts = seen.slice(4).map((s) => s.remotePort);
    expect(readPorts.size).toBeLessThan(4); // reads do reuse connections
    expect(new Set(sendPorts).size).toBe(3);
    expect(sendPorts.some((p) => readPorts.has(p))).toBe(false);
    expect(seen.slice(4).every((s) => s.headers.connection === 'close')).toBe(true);
  });
});

describe('the keep-alive race', () => {
  interface Tally {
    ok: number;
    ambiguous: number;
    notDispatched: number;
    /** Failures whose `dispatched` disagrees with whether undici wrote the request. */
    misreported: number;
    codes: Record<string, number>;
  }

  /** Runs `iterations` back-to-back calls; undici's own `sendHeaders` channel says what was written. */
  async function measure(e: HttpExecutor, url: string, avoidStaleSockets: boolean, iterations = 200): Promise<Tally> {
    let written = 0;
    const onWrite = (): void => void written++;
    diagnosticsChannel.subscribe('undici:client:sendHeaders', onWrite);
    const tally: Tally = { ok: 0, ambiguous: 0, notDispatched: 0, misreported: 0, codes: {} };
    try {
      for (let i = 0; i < iterations; i++) {
        const before = written;
        const outcome = await e.execute(call(url, { avoidStaleSockets }));
        if (outcome.type === 'response') {
          tally.ok++;
          continue;
        }
        if (outcome.dispatched !== written > before) tally.misreported++;
        if (outcome.dispatched) tally.ambiguous++;
        else tally.notDispatched++;
        const key = `${outcome.kind}/${outcome.code ?? '-'}`;
        tally.codes[key] = (tally.codes[key] ?? 0) + 1;
      }
    } finally {
      diagnosticsChannel.unsubscribe('undici:client:sendHeaders', onWrite);
    }
    return tally;
  }

  /** Answers the first request on each connection, and drops the connection when another arrives. */
  async function startClosesOnNextRequest() {
    const served = new WeakMap<net.Socket, number>();
    const { port } = await listen(
      http.createServer((req, res) => {
        const count = (served.get(req.socket) ?? 0) + 1;
        served.set(req.socket, count);
        if (count > 1) return void req.socket.destroy();
        req.resume();
        req.on('end', () => res.end('{"jsonrpc":"2.0","id":1,"result":1}'));
      }),
    );
    return `http://127.0.0.1:${port}`;
  }

  /** Answers without `connection: close`, then closes the connection 1 ms later. */
  async function startClosesShortlyAfterAnswering() {
    const { port } = await listen(
      http.createServer((req, res) => {
        req.resume();
        req.on('end', () =>
          res.end('{"jsonrpc":"2.0","id":1,"result":1}', () => setTimeout(() => req.socket.end(), 1)),
        );
      }),
    );
    return `http://127.0.0.1:${port}`;
  }

  it('avoidStaleSockets calls escape the race that reused sockets lose, and no failure is misreported as not dispatched', async () => {
    const worstCase = await startClosesOnNextRequest();
    const shortlyAfter = await startClosesShortlyAfterAnswering();
    const defaults = executor();
    const shortKeepAlive = executor({ avoidStaleSocketsKeepAliveMs: 1_000 });

    const results = {
      closesOnNextRequest: {
        reads: await measure(defaults, worstCase, false),
        sends: await measure(defaults, worstCase, true),
        sendsWithShortKeepAlive: await measure(shortKeepAlive, worstCase, true),
      },
      closes1msAfterAnswer: {
        reads: await measure(defaults, shortlyAfter, false),
        sends: await measure(defaults, shortlyAfter, true),
        sendsWithShortKeepAlive: await measure(shortKeepAlive, shortlyAfter, true),
      },
    };
    console.log('keep-alive race over 200 back-to-back calls each:', JSON.stringify(results, null, 2));

    for (const scenario of Object.values(results)) {
      for (const tally of Object.values(scenario)) {
        expect(tally.misreported).toBe(0);
        expect(Object.keys(tally.codes).every((k) => k.startsWith('socket/'))).toBe(true);
      }
      expect(scenario.sends).toMatchObject({ ok: 200, ambiguous: 0 });
      expect(scenario.sends.ambiguous).toBeLessThanOrEqual(scenario.reads.ambiguous);
    }
    expect(results.closesOnNextRequest.reads.ambiguous).toBeGreaterThan(0);
  });
});
