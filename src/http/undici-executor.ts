import { Buffer } from 'node:buffer';
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';
import { cancellationOf } from './attempt-abort.js';
import type {
  ExecuteRequest,
  ExecutorErrorKind,
  ExecutorTarget,
  HttpExecutor,
  RawOutcome,
} from './executor.js';
import { decodeResponse } from './decode-body.js';
import { basicAuthorizationOf } from './url-credentials.js';
import { CONNECT_CODES, errorCode, failure, SOCKET_CODES } from './error-codes.js';

/**
 * The default executor: undici `Pool`s driven through the low-level `dispatch()` API.
 * This file is the only place in `src/` that imports undici.
 */
export interface UndiciExecutorOptions {
  /**
   * Connections per origin when the target does not say (no endpoint on the origin sets
   * `maxConcurrentRequests`). The pool sizes each origin for every permit it can grant, so
   * by default no request ever queues inside undici, unseen by admission.
   * @default unlimited
   */
  readonly connections?: number;
  /** TCP + TLS connect timeout, in milliseconds (undici's own timer; connect only). @default 10000 */
  readonly connectTimeoutMs?: number;
  /** How long an idle keep-alive socket for ordinary calls is kept, in milliseconds. @default 4000 */
  readonly keepAliveTimeoutMs?: number;
  /** Negotiate HTTP/2 through ALPN for ordinary calls (`avoidStaleSockets` calls stay HTTP/1.1). @default false */
  readonly allowH2?: boolean;
  /**
   * Idle time, in milliseconds, for which a socket used by an `avoidStaleSockets` call may be
   * reused by the next such call. `0` opens a fresh connection for every such call (the
   * request carries `connection: close`), which makes the keep-alive race impossible at the
   * price of one handshake per call. A small positive value (≈1000, well under any server's
   * keep-alive timeout) trades back the handshake but still loses the race against servers
   * that close right after answering.
   * @default 0
   */
  readonly avoidStaleSocketsKeepAliveMs?: number;
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;


interface PreparedTarget {
  readonly origin: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  /** The per-origin pools, cached here so the hot path skips the key lookup. */
  shared?: Pool;
  staleSafe?: Pool;
}

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

type RawHeaders = Record<string, string | string[] | undefined>;

/**
 * Creates the undici executor.
 *
 * Dispatch tracking: `dispatched` is true exactly when undici ran `onRequestStart` for the
 * attempt and we let the write proceed; error codes never decide it (undici reports the same
 * `UND_ERR_SOCKET` for written and unwritten requests). An attempt aborted while still queued
 * or connecting resolves at once with `dispatched: false`; if undici later reaches
 * `onRequestStart` for it, the handler aborts there, before a byte is written.
 *
 * `avoidStaleSockets`: such calls use a separate per-origin HTTP/1.1 pool that never shares
 * sockets with other calls and, by default, opens a fresh connection per call. A reused
 * keep-alive socket may already be closing (server idle timeout, or a server that closes right
 * after answering without `connection: close`); a request written into it fails with
 * `UND_ERR_SOCKET` and cannot be told apart from one the server processed, and nothing visible
 * at write time predicts it. A short client keep-alive only avoids the idle-timeout half of
 * the race, so it is opt-in via {@link UndiciExecutorOptions.avoidStaleSocketsKeepAliveMs}.
 * Sends are rare next to reads and an ambiguous send costs a reconciliation, so one handshake
 * per send is the cheaper side of the trade.
 *
 * Timing belongs to the pool: undici's headers/body timeouts are disabled and `signal` ends
 * the attempt; only undici's connect timeout remains.
 *
 * `close()` refuses new calls at once, lets calls in flight end (their signals bound them),
 * then closes every socket; it is idempotent.
 */
export function createUndiciExecutor(options: UndiciExecutorOptions = {}): HttpExecutor {
  const pools = new Map<string, Pool>();
  const prepared = new WeakMap<ExecutorTarget, PreparedTarget>();
  const staleKeepAliveMs = options.avoidStaleSocketsKeepAliveMs ?? 0;
  let closing: Promise<void> | undefined;

  function poolFor(origin: string, target: ExecutorTarget, stale: boolean): Pool {
    const key = `${stale ? 'stale-safe' : 'shared'} ${origin}`;
    let pool = pools.get(key);
    if (pool === undefined) {
      // undici rejects a zero keep-alive; with 0 requested, `reset` closes each socket anyway.
      const keepAliveMs = stale ? Math.max(staleKeepAliveMs, 1) : (options.keepAliveTimeoutMs ?? 4_000);
      pool = new Pool(origin, {
        // Enough for every permit admission can grant on this origin (null = unlimited).
        connections: target.maxConnections ?? options.connections ?? null,
        connectTimeout: options.connectTimeoutMs ?? 10_000,
        headersTimeout: 0,
        bodyTimeout: 0,
        keepAliveTimeout: keepAliveMs,
        // Server keep-alive hints may shorten, never lengthen, the stale-safe pool's reuse window.
        ...(stale ? { keepAliveMaxTimeout: keepAliveMs, keepAliveTimeoutThreshold: keepAliveMs } : {}),
        allowH2: stale ? false : (options.allowH2 ?? false),
      });
      pools.set(key, pool);
    }
    return pool;
  }

  return {
    // Not async: the handler settles the returned promise itself, with no await hop between.
    execute(request: ExecuteRequest): Promise<RawOutcome> {
      if (closing !== undefined) return Promise.resolve(failure('other', false, undefined, undefined, new Error('executor closed')));
      const cancellation = request.cancellation ?? cancellationOf(request.signal);
      if (cancellation.aborted) return Promise.resolve(failure('aborted', false, undefined, undefined, new Error('aborted before dispatch')));
      let target = prepared.get(request.target); // parsed once per target object
      if (target === undefined) {
        try {
          target = prepareTarget(request.target);
        } catch (error) {
          return Promise.resolve(failure('other', false, undefined, undefined, error));
        }
        prepared.set(request.target, target);
      }
      const fresh = request.avoidStaleSockets && staleKeepAliveMs <= 0;
      let pool: Pool;
      try {
        pool = request.avoidStaleSockets
          ? (target.staleSafe ??= poolFor(target.origin, request.target, true))
          : (target.shared ??= poolFor(target.origin, request.target, false));
      } catch (error) {
        // As when this was async: a rejected promise, never a throw.
        return Promise.reject(error as Error);
      }
      const { path, headers } = target;
      return new Promise<RawOutcome>((resolve) => {
        const handler = new AttemptHandler(request.maxResponseBytes, resolve);
        handler.unsubscribe = cancellation.onAbort(handler.onAbort);
        pool.dispatch({ path, method: 'POST', headers, body: request.body, reset: fresh, headersTimeout: 0, bodyTimeout: 0 }, handler);
      });
    },

    close(): Promise<void> {
      closing ??= Promise.all([...pools.values()].map((pool) => pool.close())).then(() => {
        pools.clear();
      });
      return closing;
    },
  };
}

/** Follows one attempt through undici's callbacks and resolves exactly once. */
class AttemptHandler implements Dispatcher.DispatchHandler {
  private dispatched = false;
  private settled = false;
  private status: number | undefined;
  // Shared until the answer's headers replace it: no empty object per attempt.
  private headers: Record<string, string> = NO_HEADERS;
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private controller: Dispatcher.DispatchController | undefined;
  private aborted = false;
  /** Removes the abort subscription; set right after construction. */
  unsubscribe: () => void = () => {};

  constructor(
    private readonly maxBytes: number,
    private readonly resolve: (result: RawOutcome | Promise<RawOutcome>) => void,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Already answered (aborted while queued or connecting): stop before the write.
    if (this.settled) return controller.abort(new Error('attempt abandoned before dispatch'));
    this.dispatched = true;
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: RawHeaders): void {
    if (this.settled || statusCode < 200) return; // 1xx: the final response is still to come
    this.status = statusCode;
    this.headers = flattenHeaders(headers);
    const declared = Number(this.headers['content-length']);
    if (declared > this.maxBytes) this.tooLarge(controller);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) return this.tooLarge(controller);
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    const status = this.status;
    if (status === undefined) return this.onResponseError(undefined, new Error('response ended without headers'));
    // Most answers arrive in one chunk: use it as is rather than copying it into a new buffer.
    const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.bytes);
    this.settle(decodeResponse({ type: 'raw', status, headers: this.headers, body }, this.maxBytes));
  }

  /** undici passes no controller when the request fails before it was ever started. */
  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    if (this.aborted) return this.onAbort();
    const code = errorCode(error);
    this.settle(failure(errorKind(code, this.dispatched), this.dispatched, this.status, code, error));
  }

  readonly onAbort = (): void => {
    this.aborted = true;
    const reason = new Error('attempt aborted');
    this.settle(failure('aborted', this.dispatched, this.status, undefined, reason));
    // Cancels the request on its socket; without a controller, onRequestStart will do it.
    this.controller?.abort(reason);
  };

  private tooLarge(controller: Dispatcher.DispatchController): void {
    this.settle(failure('too-large', true, this.status, undefined));
    controller.abort(new Error('response body exceeds maxResponseBytes'));
  }

  private settle(result: RawOutcome | Promise<RawOutcome>): void {
    if (this.settled) return;
    this.settled = true;
    this.chunks.length = 0;
    this.unsubscribe();
    this.resolve(result);
  }
}

function prepareTarget(target: ExecutorTarget): PreparedTarget {
  const url = new URL(target.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('unsupported protocol');
  const headers: Record<string, string> = { 'content-type': 'application/json', 'accept-encoding': 'gzip, deflate, br' };
  const authorization = basicAuthorizationOf(url);
  if (authorization !== undefined) headers['authorization'] = authorization;
  // Configured headers win over the defaults and over URL credentials.
  for (const [name, value] of Object.entries(target.headers)) headers[name.toLowerCase()] = value;
  return { origin: url.origin, path: `${url.pathname}${url.search}`, headers };
}

function flattenHeaders(headers: RawHeaders): Record<string, string> {
  // undici already gives lower-case names and string values unless a header repeats: then
  // the object is used as it is, with no copy per answer.
  let plain = true;
  for (const name in headers) {
    if (typeof headers[name] !== 'string' || name !== name.toLowerCase()) {
      plain = false;
      break;
    }
  }
  if (plain) return headers as Record<string, string>;
  const flat: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function errorKind(code: string | undefined, dispatched: boolean): ExecutorErrorKind {
  if (code === undefined) return 'other';
  if (CONNECT_CODES.has(code)) return 'connect';
  if (code === 'ETIMEDOUT') return dispatched ? 'socket' : 'connect';
  if (SOCKET_CODES.has(code)) return 'socket';
  if (TLS_CODE.test(code)) return 'connect';
  return 'other';
}

