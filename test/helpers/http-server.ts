import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterEach } from 'vitest';
import type { ExecuteRequest, HttpExecutor, RawOutcome } from '../../src/http/executor.js';

/**
 * Plain HTTP and raw TCP servers on 127.0.0.1 for the executor tests, which assert what the
 * server saw at the HTTP level (method, path, headers, client port) rather than as JSON-RPC.
 * Every server started here is closed by {@link closeHttpServers} (call it in `afterEach`).
 */

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  readonly remotePort: number;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

const servers: (http.Server | net.Server)[] = [];

/** Closes every server started by this module (dropping open connections). */
export function closeHttpServers(): void {
  for (const server of servers.splice(0)) {
    if (server instanceof http.Server) server.closeAllConnections();
    server.close();
  }
}

/** Listens on 127.0.0.1, port 0; the server is closed by {@link closeHttpServers}. */
export async function listen<T extends http.Server | net.Server>(server: T): Promise<{ server: T; port: number }> {
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

/** An HTTP server that records every request it read in full, then calls `handler`. */
export async function startHttp(handler: Handler) {
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

/** A server that answers 200 and the first bytes of a JSON body, then stalls; `socket()` is the server side of the last request's connection. */
export async function startStallingBody() {
  let serverSocket: net.Socket | undefined;
  const server = await startHttp((req, res) => {
    serverSocket = req.socket;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"jsonrpc":"2.0",');
  });
  return { ...server, socket: () => serverSocket };
}

/** A TCP server that reads one whole HTTP request per connection, then calls `onRequest`. */
export async function startRaw(onRequest: (socket: net.Socket) => void) {
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

/** Resolves when the server side of a connection closes (a reset also emits 'error' first). */
export function whenClosed(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => socket.once('close', () => resolve()));
}

/** An executor call for `getSlot` to `url`, with a fresh signal and a 1 MB response cap unless overridden. */
export function call(url: string, overrides: Partial<ExecuteRequest> = {}): ExecuteRequest {
  return {
    target: { endpointId: 'e1', url, headers: {}, maxConnections: undefined },
    body: '{"jsonrpc":"2.0","id":1,"method":"getSlot"}',
    signal: new AbortController().signal,
    maxResponseBytes: 1_000_000,
    avoidStaleSockets: false,
    ...overrides,
  };
}

/** The outcome narrowed to an error (throws on a response). */
export function expectError(outcome: RawOutcome) {
  if (outcome.type !== 'error') throw new Error(`expected an error outcome, got status ${outcome.status}`);
  return outcome;
}

/**
 * `create`, wrapped so that every executor it makes is closed after each test of the enclosing
 * scope — after the servers, since a graceful close waits for calls a failed test left hanging.
 */
export function closedAfterEach<O>(create: (options?: O) => HttpExecutor): (options?: O) => HttpExecutor {
  const executors: HttpExecutor[] = [];
  afterEach(async () => {
    closeHttpServers();
    await Promise.all(executors.splice(0).map((e) => e.close()));
  });
  return (options) => {
    const e = create(options);
    executors.push(e);
    return e;
  };
}
