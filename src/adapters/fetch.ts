/**
 * `sturdy-rpc/fetch`: a `fetch`-compatible function that answers JSON-RPC POSTs through
 * an `HttpTransportPool` — for libraries that accept a custom `fetch` (web3.js v1
 * `Connection`'s `fetch` option, viem `http(url, { fetchFn })`) and for backends replacing a
 * hand-written `fetch(rpcUrl, …)`.
 *
 * With viem's `http(url, { fetchFn })`, set `retryCount: 0`: viem retries some node error
 * codes (-32603, -32005, unknown ones) on its own, and for `eth_sendTransaction` (the node
 * picks the nonce) a resend can create a second transaction. The pool already retries what
 * is safe to retry. `sturdy-rpc/viem` sets this for you.
 *
 * @module sturdy-rpc/fetch
 */
import { parseJsonExact, stringifyJson } from '../jsonrpc/exact-json.js';
import type { RpcRequester } from '../api/request-options.js';
import { callEach, readJsonRpcPayload, toResponseObjects, type PoolCallOptions } from './json-rpc-calls.js';

export { findTransportError, INVALID_PARAMS_RPC_CODE, POOL_FAILURE_RPC_CODE, type PoolFailureData } from './rpc-error.js';
export type { JsonRpcId, JsonRpcResponseObject, PoolCallOptions } from './json-rpc-calls.js';

/** Options of {@link createPoolFetch}. */
export type CreatePoolFetchOptions = PoolCallOptions;

/** The function {@link createPoolFetch} returns: the signature of the global `fetch`. */
export type PoolFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** JSON-RPC "Parse error": the body is not JSON. */
export const PARSE_ERROR_CODE = -32700;
/** JSON-RPC "Invalid Request": not a POST, or JSON that is not a JSON-RPC 2.0 request or batch. */
export const INVALID_REQUEST_CODE = -32600;

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

/** A 400 answer; the request was not sent anywhere. */
function badRequest(code: number, message: string): Response {
  return new Response(stringifyJson({ jsonrpc: '2.0', id: null, error: { code, message } }), { status: 400, headers: JSON_HEADERS });
}

async function bodyText(request: Request | undefined, init: RequestInit | undefined): Promise<string> {
  const body = init?.body;
  // `new Response(body).text()` reads every BodyInit (string, bytes, Blob, stream, …) the way fetch would.
  if (body !== undefined && body !== null) return new Response(body).text();
  return request === undefined ? '' : request.text();
}

/**
 * Creates a `fetch` that routes JSON-RPC through `pool`. The URL and headers of each
 * request are ignored: the pool's endpoints (with their own URLs and keys) serve it.
 *
 * - A POST with one request: one pool call. A batch: one `pool.batch`, so one JSON-RPC
 *   batch on the wire per endpoint (split above its `maxBatchSize`), each item with its
 *   own result or error; a batch holding any `never-after-dispatch` item follows the send
 *   rule as a whole (never resent after it may have reached a node). The answer
 *   is status 200 with one response object per request, in order, each with the caller's
 *   id (integers above 2^53 written exactly); notifications get no entry, and a payload of
 *   notifications only gets 204.
 * - A node's JSON-RPC error comes back as the node sent it (`code`, `message`, `data`).
 *   Any other pool failure is code {@link POOL_FAILURE_RPC_CODE} (4900) with
 *   `data: { sturdyCode, signature? }` — `sturdyCode: 'AMBIGUOUS_DISPATCH'` means the call
 *   may have reached a node and was not sent again.
 * - Not a POST, not JSON, or not JSON-RPC 2.0 (including by-name params): status 400 with
 *   a JSON-RPC error (-32600 / -32700); nothing is sent.
 * - `init.signal` (or the `Request`'s signal) cancels the pool calls; the promise then
 *   rejects with the signal's reason, as `fetch` does.
 */
export function createPoolFetch(pool: RpcRequester, options: CreatePoolFetchOptions = {}): PoolFetch {
  return async (input, init) => {
    const request = input instanceof Request ? input : undefined;
    const signal = init?.signal ?? request?.signal ?? undefined;
    signal?.throwIfAborted();
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    if (method !== 'POST') return badRequest(INVALID_REQUEST_CODE, `Invalid Request: JSON-RPC is sent with POST, not ${method}`);

    let payload: unknown;
    try {
      payload = parseJsonExact(await bodyText(request, init));
    } catch {
      signal?.throwIfAborted();
      return badRequest(PARSE_ERROR_CODE, 'Parse error: the body is not JSON');
    }
    const read = readJsonRpcPayload(payload);
    if (!read.ok) return badRequest(INVALID_REQUEST_CODE, `Invalid Request: ${read.reason}`);

    const outcomes = await callEach(pool, read.calls, { ...options, signal });
    signal?.throwIfAborted();
    const responses = toResponseObjects(read.calls, outcomes);
    if (responses.length === 0) return new Response(null, { status: 204 });
    return new Response(stringifyJson(read.batch ? responses : responses[0]), { status: 200, headers: JSON_HEADERS });
  };
}
