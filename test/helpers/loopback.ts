import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import net from 'node:net';

/**
 * Real JSON-RPC servers on 127.0.0.1 for integration tests. Each server records every
 * request it read in full (so tests assert what the SERVER observed), hands the raw
 * req/res/socket to a handler that may misbehave, and `close()` destroys every open
 * socket so a hanging handler can never keep a test alive.
 */

/** One JSON-RPC request as the server read it. */
export interface ReceivedRequest {
  readonly method: string;
  readonly params: unknown;
  readonly id: unknown;
  /** Request path with query, e.g. `/v2/key?x=1`. */
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  /** The raw request body. */
  readonly body: string;
}

export interface RpcExchange {
  readonly req: http.IncomingMessage;
  readonly res: http.ServerResponse;
  readonly socket: Socket;
  /** The request's raw body (already read in full). */
  readonly body: string;
  /** 0-based index of this request among all the server received. */
  readonly index: number;
}

export type RpcHandler = (request: ReceivedRequest, exchange: RpcExchange) => unknown;

export interface RpcServer {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  readonly url: string;
  readonly port: number;
  readonly received: readonly ReceivedRequest[];
  /** Requests received in total, or of one method. */
  count(method?: string): number;
  /** Closes the listener and destroys every open socket. Idempotent. */
  close(): Promise<void>;
}

const open = new Set<RpcServer>();

/** Closes every server started by this module that is still open (for `afterEach`). */
export async function closeAllServers(): Promise<void> {
  await Promise.all([...open].map((server) => server.close()));
}

function parseRequest(body: string): { method: string; params: unknown; id: unknown } {
  try {
    const parsed = JSON.parse(body) as { method?: unknown; params?: unknown; id?: unknown };
    return { method: typeof parsed.method === 'string' ? parsed.method : '', params: parsed.params, id: parsed.id };
  } catch {
    return { method: '', params: undefined, id: undefined };
  }
}

/** Starts a JSON-RPC server on 127.0.0.1, port 0. */
export async function startRpcServer(handler: RpcHandler): Promise<RpcServer> {
  const received: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    // Resets and early closes are part of the scenarios: the server must survive them.
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const request: ReceivedRequest = { ...parseRequest(body), path: req.url ?? '', headers: req.headers, body };
      const index = received.push(request) - 1;
      // A handler that throws answers 599, so a broken test fails loudly instead of hanging.
      const failed = () => {
        if (!res.headersSent) res.writeHead(599);
        res.end();
      };
      try {
        Promise.resolve(handler(request, { req, res, socket: req.socket, body, index })).catch(failed);
      } catch {
        failed();
      }
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  const rpcServer: RpcServer = {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    count: (method) => (method === undefined ? received.length : received.filter((r) => r.method === method).length),
    close() {
      closing ??= new Promise<void>((resolve) => {
        open.delete(rpcServer);
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
  open.add(rpcServer);
  return rpcServer;
}

/** A loopback port that was opened and closed again: connecting to it is refused. */
export async function refusedPort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Writes a JSON-RPC body (already serialized) with status 200 unless told otherwise. */
export function sendBody(res: http.ServerResponse, body: string, status = 200, headers: http.OutgoingHttpHeaders = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** Answers `{"jsonrpc":"2.0","id":<id>,"result":<resultJson>}`; `resultJson` is raw JSON text (keeps big integers exact). */
export function sendResult(res: http.ServerResponse, id: unknown, resultJson: string, headers: http.OutgoingHttpHeaders = {}): void {
  sendBody(res, `{"jsonrpc":"2.0","id":${JSON.stringify(id ?? null)},"result":${resultJson}}`, 200, headers);
}

/** A handler answering `resultJson` to every request, with the request's id. */
export function answer(resultJson: string): RpcHandler {
  return (request, { res }) => sendResult(res, request.id, resultJson);
}

/** A handler that never answers (the socket stays open until the client or `close()` ends it). */
export const hang: RpcHandler = () => undefined;

/** The shape of a file in `fixtures/` (see fixtures/README.md). */
export interface Fixture {
  readonly name: string;
  readonly chain: 'solana' | 'evm';
  readonly request: { readonly method: string; readonly params: readonly unknown[] };
  readonly response: { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: string };
  readonly expect?: Readonly<Record<string, unknown>>;
}

/**
 * A fixture body with its `"id":1` replaced by `id` (fixture bodies always answer id 1).
 * Only a top-level-looking `"id":1` followed by `,` or `}` is replaced; non-JSON bodies pass unchanged.
 */
export function withRequestId(body: string, id: unknown): string {
  return body.replace(/"id":1(?=[,}])/, `"id":${JSON.stringify(id ?? null)}`);
}

/** A handler replaying `fixture` (status, headers, body) with the request's id substituted. */
export function serveFixture(fixture: Fixture): RpcHandler {
  return (request, { res }) => {
    const body = withRequestId(fixture.response.body, request.id);
    res.writeHead(fixture.response.status, { ...fixture.response.headers, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
}

const FIXTURES_DIR = new URL('../../fixtures/', import.meta.url);

/** Every fixture in `fixtures/`, sorted by name. */
export function loadFixtures(): Fixture[] {
  return readdirSync(FIXTURES_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => JSON.parse(readFileSync(new URL(file, FIXTURES_DIR), 'utf8')) as Fixture);
}

/** One fixture by name (the file name without `.json`). */
export function loadFixture(name: string): Fixture {
  return JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES_DIR), 'utf8')) as Fixture;
}

/** `{ "$bigint": "…" }` (the fixtures' encoding of exact integers) → `bigint`, recursively. */
export function reviveBigints(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reviveBigints);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value);
  if (entries.length === 1 && entries[0]?.[0] === '$bigint' && typeof entries[0][1] === 'string') return BigInt(entries[0][1]);
  return Object.fromEntries(entries.map(([key, item]) => [key, reviveBigints(item)]));
}
