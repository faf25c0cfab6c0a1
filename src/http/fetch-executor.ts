import type {
  ExecuteRequest,
  ExecutorErrorKind,
  ExecutorTarget,
  HttpExecutor,
  RawOutcome,
} from './executor.js';
import { basicAuthorizationOf } from './url-credentials.js';
import { failure, PROVEN_UNSENT_CODES, SOCKET_CODES, type ErrorOutcome } from './error-codes.js';

/**
 * An executor over the WHATWG `fetch`, for runtimes without undici (browsers, edge) and for
 * tests that intercept `fetch` (msw).
 */
export interface FetchExecutorOptions {
  /**
   * The `fetch` to call. When omitted, `globalThis.fetch` is looked up on every call, so an
   * interceptor installed after the executor was created (msw) still sees the requests.
   * @default globalThis.fetch
   */
  readonly fetch?: typeof fetch;
}


/** zlib / brotli failures surface as the cause of fetch's body error. */
const DECODE_CODE = /^(Z_|ERR_BROTLI|ERR__ERROR_FORMAT|ERR_ZLIB)/;

/**
 * Creates the fetch executor.
 *
 * Differences from the undici executor (which is the default and should be preferred):
 * - `fetch` does not say whether the request was written, so **every failure after the call
 *   started is `dispatched: true`** (including aborts), except connect failures proven by the
 *   error's `cause.code` (`ECONNREFUSED`, `ENOTFOUND`, `EAI_AGAIN`, `UND_ERR_CONNECT_TIMEOUT`).
 *   Failures of never-after-dispatch calls are therefore more often ambiguous.
 * - No stale-socket avoidance: `avoidStaleSockets` is ignored because `fetch` offers no
 *   control over connection reuse.
 * - `fetch` decompresses the body itself (its own `accept-encoding`), so `maxResponseBytes`
 *   bounds the decoded bytes as they stream in; reading stops and the stream is cancelled
 *   as soon as the bound is passed.
 * - Redirects are not followed (`redirect: 'manual'`), as with undici.
 * - `close()` only refuses further calls; the connections belong to the runtime's `fetch`.
 */
export function createFetchExecutor(options: FetchExecutorOptions = {}): HttpExecutor {
  let closed = false;

  return {
    async execute(request: ExecuteRequest): Promise<RawOutcome> {
      const { signal } = request;
      if (closed) return failure('other', false, undefined, undefined, new Error('executor closed'));
      if (signal.aborted) return failure('aborted', false, undefined, undefined, signal.reason);
      let url: string;
      let headers: Record<string, string>;
      try {
        ({ url, headers } = prepareTarget(request.target));
      } catch (error) {
        return failure('other', false, undefined, undefined, error);
      }

      let response: Response;
      try {
        const fetchImpl = options.fetch ?? globalThis.fetch;
        response = await fetchImpl(url, { method: 'POST', headers, body: request.body, signal, redirect: 'manual' });
      } catch (error) {
        return fromError(error, signal, undefined);
      }
      return readBounded(response, request.maxResponseBytes, signal);
    },

    close(): Promise<void> {
      closed = true;
      return Promise.resolve();
    },
  };
}

async function readBounded(response: Response, maxBytes: number, signal: AbortSignal): Promise<RawOutcome> {
  const status = response.status;
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name.toLowerCase()] = value;
  });
  const body = response.body;
  // A declared length is only the decoded length when nothing was compressed.
  const declared = headers['content-encoding'] === undefined ? Number(headers['content-length']) : NaN;
  if (declared > maxBytes) {
    cancelQuietly(body?.cancel());
    return failure('too-large', true, status, undefined);
  }
  if (body === null) return { type: 'response', status, headers, body: '' };

  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > maxBytes) {
        cancelQuietly(reader.cancel());
        return failure('too-large', true, status, undefined);
      }
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    return fromError(error, signal, status);
  }
  return { type: 'response', status, headers, body: text + decoder.decode() };
}

function fromError(error: unknown, signal: AbortSignal, status: number | undefined): ErrorOutcome {
  // Conservative: an abort may land after the bytes left, and fetch cannot tell us.
  if (signal.aborted || nameOf(error) === 'AbortError') return failure('aborted', true, status, undefined, error);
  const code = causeCode(error);
  if (code !== undefined && status === undefined && PROVEN_UNSENT_CODES.has(code)) {
    return failure('connect', false, status, code, error);
  }
  return failure(errorKind(code), true, status, code, error);
}

function errorKind(code: string | undefined): ExecutorErrorKind {
  if (code === undefined) return 'other';
  if (SOCKET_CODES.has(code)) return 'socket';
  if (DECODE_CODE.test(code)) return 'decode';
  return 'other';
}

/** fetch wraps network errors in `TypeError('fetch failed')`; the code sits on a cause. */
function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code: unknown = Reflect.get(current, 'code');
    if (typeof code === 'string') return code;
    current = Reflect.get(current, 'cause');
  }
  return undefined;
}

function nameOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? Reflect.get(error, 'name') : undefined;
}

function cancelQuietly(cancelled: Promise<void> | undefined): void {
  cancelled?.catch(() => undefined);
}

function prepareTarget(target: ExecutorTarget): { url: string; headers: Record<string, string> } {
  const url = new URL(target.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('unsupported protocol');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  // fetch refuses URLs with credentials: move them to a Basic authorization header.
  const authorization = basicAuthorizationOf(url);
  if (authorization !== undefined) {
    headers['authorization'] = authorization;
    url.username = '';
    url.password = '';
  }
  for (const [name, value] of Object.entries(target.headers)) headers[name.toLowerCase()] = value;
  return { url: url.href, headers };
}

