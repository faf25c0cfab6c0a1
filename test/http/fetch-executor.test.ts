import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ExecuteRequest, HttpExecutor, RawOutcome } from '../../src/http/executor.js';
import { createFetchExecutor } from '../../src/http/fetch-executor.js';

interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

const servers: (http.Server | net.Server)[] = [];
const executors: HttpExecutor[] = [];

afterEach(async () => {
  vi.unstubAllGlobals();
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
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
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

function whenClosed(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => socket.once('close', () => resolve()));
}

function executor(options?: Parameters<typeof createFetchExecutor>[0]): HttpExecutor {
  const e = createFetchExecutor(options);
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

function expectError(outcome: RawOutcome) {
  if (outcome.type !== 'error') throw new Error(`expected an error outcome, got status ${outcome.status}`);
  return outcome;
}

describe('createFetchExecutor', () => {
  it('posts the body as JSON to the target path and query with configured headers, and returns the response', async () => {
    const { seen, url } = await startHttp((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'X-Served-By': 'node-1' });
      res.end('{"jsonrpc":"2.0","id":1,"result":42}');
    });
    const target = { endpointId: 'e1', url: `${url}/v2/secret-key?api-key=abc`, headers: { 'X-Api-Key': 'k1' }, maxConnections: 2 };
    const request = call(target.url, { target });

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
      headers: expect.objectContaining({ 'content-type': 'application/json', 'x-api-key': 'k1' }),
    });
  });

  it('sends URL credentials as a Basic authorization header (fetch refuses them in the URL)', async () => {
    const { seen, url } = await startHttp((_req, res) => res.end('{}'));
    const withCredentials = url.replace('http://', 'http://alice:p%40ss@');

    expect(await executor().execute(call(`${withCredentials}/rpc`))).toMatchObject({ type: 'response' });

    expect(seen[0]?.url).toBe('/rpc');
    expect(seen[0]?.headers.authorization).toBe(`Basic ${Buffer.from('alice:p@ss').toString('base64')}`);
  });

  it('looks up globalThis.fetch at call time, so interceptors installed later see the call', async () => {
    const e = executor();
    const intercepted = vi.fn(async () => new Response('{"result":1}', { status: 200 }));
    vi.stubGlobal('fetch', intercepted);

    const outcome = await e.execute(call('http://rpc.invalid/'));

    expect(outcome).toMatchObject({ type: 'response', status: 200, body: '{"result":1}' });
    expect(intercepted).toHaveBeenCalledTimes(1);
  });

  it('reports a refused connection as connect and not dispatched', async () => {
    const { server, port } = await listen(net.createServer());
    server.close();
    await once(server, 'close');

    const outcome = expectError(await executor().execute(call(`http://127.0.0.1:${port}/`)));

    expect(outcome).toMatchObject({ kind: 'connect', dispatched: false, code: 'ECONNREFUSED' });
  });

  it('reports a reset after the server read the request as socket and dispatched, sent once', async () => {
    const raw = await startRaw((socket) => socket.resetAndDestroy());

    const outcome = expectError(await executor().execute(call(raw.url)));

    expect(outcome).toMatchObject({ kind: 'socket', dispatched: true });
    expect(raw.requests()).toBe(1);
  });

  it('reports a close (FIN) after the server read the request as socket and dispatched', async () => {
    const raw = await startRaw((socket) => socket.end());

    const outcome = expectError(await executor().execute(call(raw.url)));

    expect(outcome).toMatchObject({ kind: 'socket', dispatched: true });
    expect(raw.requests()).toBe(1);
  });

  it('an unproven failure (no connect code) is conservatively dispatched', async () => {
    const failing = vi.fn(async () => Promise.reject(new TypeError('Failed to fetch')));

    const outcome = expectError(await executor({ fetch: failing }).execute(call('http://rpc.invalid/')));

    expect(outcome).toMatchObject({ kind: 'other', dispatched: true });
  });

  it('aborting while the body stalls reports aborted and dispatched with the status, and closes the connection', async () => {
    let serverSocketClosed: Promise<void> = Promise.resolve();
    const { url } = await startHttp((req, res) => {
      serverSocketClosed = whenClosed(req.socket);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"jsonrpc":"2.0",');
    });
    let headersArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (headersArrived = resolve));
    const observed: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      setImmediate(headersArrived); // after the executor has the response
      return response;
    };
    const controller = new AbortController();

    const pending = executor({ fetch: observed }).execute(call(url, { signal: controller.signal }));
    await arrived;
    controller.abort();
    const outcome = expectError(await pending);

    expect(outcome).toMatchObject({ kind: 'aborted', dispatched: true, status: 200 });
    await serverSocketClosed;
  });

  it('aborting before response headers reports aborted and dispatched (fetch cannot prove otherwise)', async () => {
    let received!: () => void;
    const requestReceived = new Promise<void>((resolve) => (received = resolve));
    let serverSocketClosed: Promise<void> = Promise.resolve();
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
    const resetOnceHeadersArrived: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      serverSocket?.resetAndDestroy();
      return response;
    };

    const outcome = expectError(await executor({ fetch: resetOnceHeadersArrived }).execute(call(url)));

    expect(outcome).toMatchObject({ kind: 'socket', dispatched: true, status: 200, code: 'ECONNRESET' });
  });

  it('sends nothing when the signal is already aborted', async () => {
    const { seen, url } = await startHttp((_req, res) => res.end('{}'));

    const outcome = expectError(await executor().execute(call(url, { signal: AbortSignal.abort() })));

    expect(outcome).toMatchObject({ kind: 'aborted', dispatched: false });
    expect(seen).toHaveLength(0);
  });

  it('a declared content-length over maxResponseBytes is too-large', async () => {
    const { url } = await startHttp((_req, res) => res.end('x'.repeat(2_000)));

    const outcome = expectError(await executor().execute(call(url, { maxResponseBytes: 1_000 })));

    expect(outcome).toMatchObject({ kind: 'too-large', dispatched: true, status: 200 });
  });

  it('an undeclared (chunked) body stops being read as soon as it passes maxResponseBytes', async () => {
    let chunksWritten = 0;
    let serverSocketClosed: Promise<void> = Promise.resolve();
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
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': bomb.length });
      res.end(bomb);
    });

    const outcome = expectError(await executor().execute(call(url, { maxResponseBytes: 1_000_000 })));

    expect(bomb.length).toBeLessThan(1_000_000);
    expect(outcome).toMatchObject({ kind: 'too-large', dispatched: true, status: 200 });
  });

  it.each([
    ['gzip', (b: Buffer) => zlib.gzipSync(b)],
    ['br', (b: Buffer) => zlib.brotliCompressSync(b)],
  ])('returns a %s body decoded', async (encoding, compress) => {
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

  it('after close() calls are refused without reaching the server', async () => {
    const { seen, url } = await startHttp((_req, res) => res.end('{}'));
    const e = createFetchExecutor();
    expect(await e.execute(call(url))).toMatchObject({ type: 'response' });

    await e.close();
    await e.close();
    const after = expectError(await e.execute(call(url)));

    expect(after).toMatchObject({ kind: 'other', dispatched: false });
    expect(seen).toHaveLength(1);
  });
});
