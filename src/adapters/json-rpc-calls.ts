/**
 * JSON-RPC payloads (one request or a batch) arriving through an adapter, run as pool calls.
 *
 * A batch goes to `pool.batch` and so stays a batch on the wire: one HTTP request per
 * endpoint (split above its `maxBatchSize`), each item with its own result or error,
 * retried alone when that is safe. A request holding any `never-after-dispatch` item (a
 * send, a filter poll, an unknown method) follows the send rule as a whole — the caller sent
 * the items as one unit, and it must not be half-replayed after a failure that may have
 * reached a node. A requester without `batch` (a stub) gets one call per item, with the
 * same rule applied through each item's retry class.
 */
import { classifyMethod, type MethodOverrides } from '../jsonrpc/method-table.js';
import type { JsonRpcErrorObject } from '../jsonrpc/envelope.js';
import type { RequestOptions, RpcRequester } from '../api/request-options.js';
import { toJsonRpcError } from './rpc-error.js';

/** A JSON-RPC id as the caller sent it (`bigint` when it exceeds 2^53). */
export type JsonRpcId = string | number | bigint | null;

/** One request of a payload, validated. */
export interface JsonRpcCall {
  readonly method: string;
  readonly params: readonly unknown[];
  readonly id: JsonRpcId;
  /** No `id` member: the caller expects no response entry. */
  readonly notification: boolean;
}

export type JsonRpcResponseObject =
  | { readonly jsonrpc: '2.0'; readonly id: JsonRpcId; readonly result: unknown }
  | { readonly jsonrpc: '2.0'; readonly id: JsonRpcId; readonly error: JsonRpcErrorObject };

/** A validated payload, or why it is not a JSON-RPC 2.0 request or batch. */
export type ReadPayloadResult =
  | { readonly ok: true; readonly batch: boolean; readonly calls: readonly JsonRpcCall[] }
  | { readonly ok: false; readonly reason: string };

/** Options shared by the adapters for the calls they make. */
export interface PoolCallOptions {
  /** Deadline of each call, in ms. @default the pool's (the smallest `requestTimeoutMs` of compatible roles) */
  readonly timeoutMs?: number;
  /**
   * Classifications for batch items, for requesters that cannot classify methods
   * themselves. An `HttpTransportPool` is asked directly (its table plus its `methods`).
   * @default {} — the built-in method table; unknown methods count as `never-after-dispatch`
   */
  readonly methods?: MethodOverrides;
}

/** How one call ended. */
export type CallOutcome = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: unknown };

function isId(value: unknown): value is JsonRpcId {
  return value === null || typeof value === 'string' || typeof value === 'bigint' || (typeof value === 'number' && Number.isFinite(value));
}

function readCall(value: unknown, where: string): JsonRpcCall | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${where} is not an object`;
  const item = value as Record<string, unknown>;
  if (item['jsonrpc'] !== '2.0') return `${where}: jsonrpc must be "2.0"`;
  const method = item['method'];
  if (typeof method !== 'string' || method.length === 0) return `${where}: method must be a non-empty string`;
  const params = item['params'];
  if (params !== undefined && !Array.isArray(params)) return `${where}: params must be an array (by-name params are not supported)`;
  const notification = !Object.hasOwn(item, 'id');
  const id = notification ? null : item['id'];
  if (!isId(id)) return `${where}: id must be a string, a number or null`;
  return { method, params: (params as readonly unknown[] | undefined) ?? [], id, notification };
}

/** Validates a parsed payload: one request object, or a non-empty array of them. */
export function readJsonRpcPayload(payload: unknown): ReadPayloadResult {
  if (!Array.isArray(payload)) {
    const call = readCall(payload, 'the request');
    return typeof call === 'string' ? { ok: false, reason: call } : { ok: true, batch: false, calls: [call] };
  }
  if (payload.length === 0) return { ok: false, reason: 'the batch is empty' };
  const calls: JsonRpcCall[] = [];
  for (const [index, item] of payload.entries()) {
    const call = readCall(item, `batch item ${index}`);
    if (typeof call === 'string') return { ok: false, reason: call };
    calls.push(call);
  }
  return { ok: true, batch: true, calls };
}

/**
 * Runs every call through the pool, concurrently, and settles each (never rejects).
 * In a batch holding any `never-after-dispatch` item, idempotent items are called as
 * `never-after-dispatch` too (`not-applicable` items stay never retried).
 */
export function callEach(
  pool: RpcRequester,
  calls: readonly JsonRpcCall[],
  options: PoolCallOptions & { readonly signal?: AbortSignal | undefined },
): Promise<CallOutcome[]> {
  if (calls.length > 1 && pool.batch !== undefined) return batchCalls(pool, calls, options);
  const classify = (method: string) => (options.methods === undefined ? pool.classifyMethod?.(method) : undefined) ?? classifyMethod(method, options.methods);
  const classes = calls.map((call) => classify(call.method).retryClass);
  const wholeBatchOnce = calls.length > 1 && classes.includes('never-after-dispatch');
  return Promise.all(
    calls.map((call, index) => {
      const requestOptions: RequestOptions = {
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        ...(wholeBatchOnce && classes[index] === 'idempotent' ? { retryClass: 'never-after-dispatch' as const } : {}),
      };
      return pool.request(call.method, call.params, requestOptions).then(
        (result): CallOutcome => ({ ok: true, result }),
        (error: unknown): CallOutcome => ({ ok: false, error }),
      );
    }),
  );
}

/** Runs the calls as one `pool.batch` (never rejects: a refused batch fails every item with the pool's error). */
function batchCalls(pool: RpcRequester, calls: readonly JsonRpcCall[], options: PoolCallOptions & { readonly signal?: AbortSignal | undefined }): Promise<CallOutcome[]> {
  const batchOptions = {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  };
  return pool.batch!(calls.map((call) => ({ method: call.method, params: call.params })), batchOptions).then(
    (results) => results.map((result): CallOutcome => (result.ok ? { ok: true, result: result.result } : { ok: false, error: result.error })),
    (error: unknown) => calls.map((): CallOutcome => ({ ok: false, error })),
  );
}

/** The response object of one call, with the caller's id. */
export function toResponseObject(call: JsonRpcCall, outcome: CallOutcome): JsonRpcResponseObject {
  return outcome.ok
    ? { jsonrpc: '2.0', id: call.id, result: outcome.result }
    : { jsonrpc: '2.0', id: call.id, error: toJsonRpcError(outcome.error) };
}

/** One response object per call that is not a notification, in request order. */
export function toResponseObjects(calls: readonly JsonRpcCall[], outcomes: readonly CallOutcome[]): JsonRpcResponseObject[] {
  const responses: JsonRpcResponseObject[] = [];
  calls.forEach((call, index) => {
    const outcome = outcomes[index];
    if (!call.notification && outcome !== undefined) responses.push(toResponseObject(call, outcome));
  });
  return responses;
}
