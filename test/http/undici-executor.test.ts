import diagnosticsChannel from 'node:diagnostics_channel';
import { getEventListeners, once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExecuteRequest, HttpExecutor, RawOutcome } from '../../src/http/executor.js';
import { createUndiciExecutor } from '../../src/http/undici-executor.js';

interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  readonly remotePort: number;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

const servers: (http.Server | net.Server)[] = [];
const executors: HttpExecutor[] = [];

afterEach(async () => {
  // Servers first: a graceful executor close waits for calls a failed test left hanging.
  for (const server of servers.splice(0)) {
    if (server instanceof http.Server) server.closeAllConnections();
    server.close();
  }
  await Promise.all(executors.splice(0).map((e) => e.close()));
});

async function listen<T extends http.Server | net.Server>(server: T): Promise<{ server: T; port: number }> {
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

/** An HTTP server that records every request it read in full, then calls `handler`. */
async function startHttp(handler: Handler) {
  const seen: SeenRequest[] = [];
  const { server, port } = await listen(
    http.createServer((req, res) => {
      // Resets are part of the scenarios; the server must survive them.
      req.on('error', () => undefined);
      res.on('error', () => undefined);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, remotePort: req.socket.remotePort ?? 0 });
        handler(req, res, body);
      });
    }),
  );
  return { server, seen, url: `http://127.0.0.1:${port}` };
}

/** A TCP server that reads one whole HTTP request per connection, then calls `onRequest`. */
async function startRaw(onRequest: (socket: net.Socket) => void) {
  let requests = 0;
  const { port } = await listen(
    net.createServer((socket) => {
      let buffered = '';
      socket.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('latin1');
        const end = buffered.indexOf('\r\n\r\n');
        const length = /content-length: (\d+)/i.exec(buffered);
        if (end >= 0 && length !== null && buffered.length >= end + 4 + Number(length[1])) {
          buffered = '';
          requests++;
          onRequest(socket);
        }
      });
      socket.on('error', () => undefined);
    }),
  );
  return { url: `http://127.0.0.1:${port}`, requests: () => requests };
}

function executor(options?: Parameters<typeof createUndiciExecutor>[0]): HttpExecutor {
  const e = createUndiciExecutor(options);
  executors.push(e);
  return e;
}

function call(url: string, overrides: Partial<ExecuteRequest> = {}): ExecuteRequest {
  return {
    target: { endpointId: 'e1', url, headers: {}, maxConnections: undefined },
    body: '{"jsonrpc":"2.0","id":1,"method":"getSlot"}',
    signal: new AbortController().signal,
    maxResponseBytes: 1_000_000,
    avoidStaleSockets: false,
    ...overrides,
  };
}

/** Resolves when the server side of a connection closes (a reset also emits 'error' first). */
function whenClosed(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => socket.once('close', () => resolve()));
}

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

function expectError(outcome: RawOutcome) {
  if (outcome.type !== 'error') throw new Error(`expected an error outcome, got status ${outcome.status}`);
  return outcome;
}

describe('createUndiciExecutor', () => {
  it('posts the body as JSON to the target path and query with configured headers, and returns the response', async () => {
    const { seen, url } = await startHttp((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'X-Served-By': 'node-1' });
      res.end('{"jsonrpc":"2.0","id":1,"result":42}');
    });
    const request = call(`${url}/v2/secret-key?api-key=abc`, {
      target: { endpointId: 'e1', url: `${url}/v2/secret-key?api-key=abc`, headers: { 'X-Api-Key': 'k1' }, maxConnections: 2 },
    });

    const outcome = await executor().execute(request);

    expect(outcome).toEqual({
      type: 'response',
      status: 200,
      headers: expect.objectContaining({ 'content-type': 'application/json', 'x-served-by': 'node-1' }),
      body: '{"jsonrpc":"2.0","id":1,"result":42}',
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/v2/secret-key?api-key=abc',
      body: request.body,
      headers: expect.objectContaining({
        'content-type': 'application/json',
        'accept-encoding': 'gzip, deflate, br',
        'x-api-key': 'k1',
      }),
    });
  });

  it('sends URL credentials as a Basic authorization header, not in the request line', async () => {
    const { seen, url } = await startHttp((_req, res) => res.end('{}'));
    const withCredentials = url.replace('http://', 'http://alice:p%40ss@');

    await executor().execute(call(`${withCredentials}/rpc`));

    expect(seen[0]?.url).toBe('/rpc');
    expect(seen[0]?.headers.authorization).toBe(`Basic ${Buffer.from('alice:p@ss').toString('base64')}`);
  });

  it('reports a refused connection as connect and not dispatched', async () => {
    const { server, port } = await listen(net.createServer());
    server.close();
    await once(server, 'close');

    const outcome = expectError(await executor().execute(call(`http://127.0.0.1:${port}/`)));

    expect(outcome).toMatchObject({ kind: 'connect', dispatched: false, code: 'ECONNREFUSED' });
  });

  it('reports a reset after the server read the request as socket and dispatched, and does not resend it', async () => {
    const raw = await startRaw((socket) => socket.resetAndDestroy());

    const outcome = expectError(await executor().execute(call(raw.url)));

    expect(outcome).toMatchObject({ kind: 'socket', dispatched: true, code: 'ECONNRESET' });
    expect(outcome.status).toBeUndefined();
    expect(raw.requests()).toBe(1);
  });

  it('reports a close (FIN) after the server read the request as socket and dispatched', async () => {
    const raw = await startRaw((socket) => socket.end());

    const outcome = expectError(await executor().execute(call(raw.url)));

    expect(outcome).toMatchObject({ kind: 'socket', dispatched: true, code: 'UND_ERR_SOCKET' });
    expect(raw.requests()).toBe(1);
  });

  it('aborting while the body stalls reports aborted and dispatched with the status, and closes the connection', async () => {
    let serverSocketClosed: Promise<unknown> = Promise.resolve();
    const { url } = await startHttp((req, res) => {
      serverSocketClosed = whenClosed(req.socket);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"jsonrpc":"2.0",');
    });
    const controller = new AbortController();
    const headersArrived = nextOnChannel('undici:request:headers');

    const pending = executor().execute(call(url, { signal: controller.signal }));
    await headersArrived;
    controller.abort();
    const outcome = expectError(await pending);

    expect(outcome).toMatchObject({ kind: 'aborted', dispatched: true, status: 200 });
    await serverSocketClosed;
  });

  it('aborting before response headers reports aborted and dispatched, and closes the connection', async () => {
    let received!: () => void;
    const requestReceived = new Promise<void>((resolve) => (received = resolve));
    let serverSocketClosed: Promise<unknown> = Promise.resolve();
    const { url } = await startHttp((req) => {
      serverSocketClosed = whenClosed(req.socket);
      received();
    });
    const controller = new AbortController();

    const pending = executor().execute(call(url, { signal: controller.signal }));
    await requestReceived;
    controller.abort();
    const outcome = expectError(await pending);

    expect(outcome).toMatchObject({ kind: 'aborted', dispatched: true });
    expect(outcome.status).toBeUndefined();
    await serverSocketClosed;
  });

  it('a reset in the middle of the body keeps the status that had arrived', async () => {
    let serverSocket: net.Socket | undefined;
    const { url } = await startHttp((req, res) => {
      serverSocket = req.socket;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"jsonrpc":"2.0",');
    });
    const headersArrived = nextOnChannel('undici:request:headers');

    const pending = executor().execute(call(url));
    await headersArrived;
    serverSocket?.resetAndDestroy();
    const outcome = expectError(await pending);

    expect(outcome).toMatchObject({ kind: 'socket', dispatched: true, status: 200, code: 'ECONNRESET' });
  });

  it('leaves no abort listener behind, whatever the outcome', async () => {
    const { url } = await startHttp((req, res) => res.end(req.url === '/big' ? 'x'.repeat(5_000) : '{}'));
    const { server, port } = await listen(net.createServer());
    server.close();
    await once(server, 'close');
    const signal = new AbortController().signal;
    const e = executor();

    expect(await e.execute(call(url, { signal }))).toMatchObject({ type: 'response' });
    expect(await e.execute(call(`${url}/big`, { signal, maxResponseBytes: 1_000 }))).toMatchObject({ kind: 'too-large' });
    expect(await e.execute(call(`http://127.0.0.1:${port}/`, { signal }))).toMatchObject({ kind: 'connect' });

    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const { seen, url } = await startHttp((_req, res) => res.end('{}'));

    const outcome = expectError(await executor().execute(call(url, { signal: AbortSignal.abort() })));

    expect(outcome).toMatchObject({ kind: 'aborted', dispatched: false });
    expect(seen).toHaveLength(0);
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

  it('a declared content-length over maxResponseBytes is too-large', async () => {
    const { url } = await startHttp((_req, res) => res.end('x'.repeat(2_000)));

    const outcome = expectError(await executor().execute(call(url, { maxResponseBytes: 1_000 })));

    expect(outcome).toMatchObject({ kind: 'too-large', dispatched: true, status: 200 });
  });

  it('an undeclared (chunked) body stops being read as soon as it passes maxResponseBytes', async () => {
    let chunksWritten = 0;
    let serverSocketClosed: Promise<unknown> = Promise.resolve();
    const { url } = await startHttp((req, res) => {
      serverSocketClosed = whenClosed(req.socket);
      res.writeHead(200, { 'content-type': 'application/json' });
      const writeMore = (): void => {
        if (res.destroyed || chunksWritten >= 1_000) return void res.end();
        chunksWritten++;
        res.write('y'.repeat(16_384), writeMore);
      };
      writeMore();
    });

    const outcome = expectError(await executor().execute(call(url, { maxResponseBytes: 50_000 })));

    expect(outcome).toMatchObject({ kind: 'too-large', dispatched: true, status: 200 });
    await serverSocketClosed;
    expect(chunksWritten).toBeLessThan(1_000);
  });

  it('a gzip bomb is too-large once decoded, though its compressed size is small', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(10_000_000));
    const { url } = await startHttp((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(bomb);
    });

    const outcome = expectError(await executor().execute(call(url, { maxResponseBytes: 1_000_000 })));

    expect(bomb.length).toBeLessThan(1_000_000);
    expect(outcome).toMatchObject({ kind: 'too-large', dispatched: true, status: 200 });
  });

  it.each([
    ['gzip', (b: Buffer) => zlib.gzipSync(b)],
    ['deflate', (b: Buffer) => zlib.deflateSync(b)],
    ['br', (b: Buffer) => zlib.brotliCompressSync(b)],
  ])('decodes a %s body', async (encoding, compress) => {
    const json = '{"jsonrpc":"2.0","id":1,"result":"ünïcode"}';
    const { url } = await startHttp((_req, res) => {
      res.writeHead(200, { 'content-encoding': encoding });
      res.end(compress(Buffer.from(json)));
    });

    const outcome = await executor().execute(call(url));

    expect(outcome).toMatchObject({ type: 'response', status: 200, body: json });
  });

  it('a corrupted gzip body is a decode failure', async () => {
    const gz = zlib.gzipSync(Buffer.from('{"jsonrpc":"2.0","id":1,"result":1}'));
    const corrupted = Buffer.concat([gz.subarray(0, 10), Buffer.from('this is not a deflate stream')]);
    const { url } = await startHttp((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(corrupted);
    });

    const outcome = expectError(await executor().execute(call(url)));

    expect(outcome).toMatchObject({ kind: 'decode', dispatched: true, status: 200 });
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
