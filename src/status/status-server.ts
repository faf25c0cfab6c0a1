/**
 * `pool.serveStatus()`: the pool's snapshot and recent activity as JSON over HTTP, on
 * loopback only, for `sturdy-rpc top` and for people with curl. Loaded on demand (the
 * pool imports this file dynamically), so the main entry needs no `node:http`.
 */
import { stringifyJson } from '../jsonrpc/exact-json.js';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../clock.js';
import type { PoolEventListener, PoolEventName } from '../api/events.js';
import type { PoolSnapshot } from '../pool/snapshot.js';
import { RecentActivity, type RecentEndpointActivity } from './recent-activity.js';

/** Options of `pool.serveStatus()`. */
export interface ServeStatusOptions {
  /** TCP port on 127.0.0.1; 0 picks a free one (read it from the result). @default 0 */
  readonly port?: number;
  /** How far back `recent` looks, in ms. @default 10000 */
  readonly windowMs?: number;
}

/** A running status server. `pool.close()` closes it too. */
export interface StatusServer extends AsyncDisposable {
  readonly port: number;
  /** `http://127.0.0.1:<port>/status` */
  readonly url: string;
  /** Stops listening and closes open connections. Idempotent. */
  close(): Promise<void>;
}

/** The JSON document served at `/status`. Endpoint ids and operators only — never a URL, header or key. */
export interface StatusDocument {
  readonly version: 1;
  /** Wall-clock time of the document (epoch ms). */
  readonly atWallMs: number;
  readonly windowMs: number;
  readonly snapshot: PoolSnapshot;
  /** Per endpoint: attempts, share of traffic and latency quantiles over the last `windowMs`. */
  readonly recent: readonly RecentEndpointActivity[];
}

/** What the status server needs from the pool. */
export interface StatusSource {
  snapshot(): PoolSnapshot;
  on<E extends PoolEventName>(name: E, listener: PoolEventListener<E>): () => void;
}

export const DEFAULT_STATUS_WINDOW_MS = 10_000;

function reply(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

/** Starts the server; resolves once it listens. */
export async function startStatusServer(pool: StatusSource, clock: Clock, options: ServeStatusOptions): Promise<StatusServer> {
  const windowMs = options.windowMs ?? DEFAULT_STATUS_WINDOW_MS;
  const activity = new RecentActivity(
    pool.snapshot().endpoints.map((e) => e.endpointId),
    windowMs,
  );
  const stops = [
    pool.on('success', (e) => activity.record(e.endpointId, e.atMs, e.latencyMs)),
    pool.on('failure', (e) => activity.record(e.endpointId, e.atMs, e.latencyMs)),
  ];
  let port = 0;
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    // Loopback names only: a page on another origin reaching us through DNS rebinding is refused.
    const host = request.headers.host ?? '';
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) return reply(response, 403, '{"error":"forbidden host"}');
    if (request.method !== 'GET') return reply(response, 405, '{"error":"method not allowed"}');
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/' && path !== '/status') return reply(response, 404, '{"error":"not found"}');
    const document: StatusDocument = { version: 1, atWallMs: clock.wallNow(), windowMs, snapshot: pool.snapshot(), recent: activity.summarize(clock.now()) };
    reply(response, 200, stringifyJson(document)); // exact bigints (an endpoint's head)
  };
  const server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port ?? 0, host: '127.0.0.1' }, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: unknown) => {
    for (const stop of stops) stop();
    throw error;
  });
  // Background: it never keeps a process alive on its own.
  server.unref();
  port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      for (const stop of stops) stop();
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  };
  return { port, url: `http://127.0.0.1:${port}/status`, close, [Symbol.asyncDispose]: close };
}
