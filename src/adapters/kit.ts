/**
 * `sturdy-rpc/kit`: an @solana/kit `RpcTransport` over an `HttpTransportPool`, for
 * `createSolanaRpcFromTransport(kitTransport(pool))`.
 *
 * kit's contract (`@solana/rpc-spec` `rpc-transport.ts`) is just
 * `({ payload, signal }) => Promise<response>`, where the response is the parsed JSON-RPC
 * response object; kit's response transformer then throws a `SolanaError` for an `error`
 * member, takes `result` and upcasts integers to `bigint` (a `bigint` stays exact). The pool
 * already parses integers above 2^53 as `bigint`, so u64 values (lamports, slots) arrive
 * exact. This module imports nothing from kit.
 *
 * @module sturdy-rpc/kit
 */
import { TransportError } from '../errors/transport-error.js';
import type { RpcRequester } from '../api/request-options.js';
import { callEach, readJsonRpcPayload, toResponseObject, toResponseObjects, type PoolCallOptions } from './json-rpc-calls.js';

export { findTransportError, INVALID_PARAMS_RPC_CODE, POOL_FAILURE_RPC_CODE, type PoolFailureData } from './rpc-error.js';
export type { JsonRpcResponseObject, PoolCallOptions } from './json-rpc-calls.js';

/** Options of {@link kitTransport}. */
export type KitTransportOptions = PoolCallOptions;

/** The argument kit passes to a transport. */
export type KitTransportConfig = Readonly<{ payload: unknown; signal?: AbortSignal }>;

/** Structurally kit's `RpcTransport`. */
export type KitRpcTransport = <TResponse>(config: KitTransportConfig) => Promise<TResponse>;

/**
 * Creates a kit transport over `pool`.
 *
 * - One request: resolves with `{ jsonrpc, id, result }`, or `{ jsonrpc, id, error }` for
 *   the node's own JSON-RPC error (kit throws its `SolanaError` for it, as with its HTTP
 *   transport). Any other pool failure rejects with the `TransportError` itself, as kit's
 *   HTTP transport rejects on transport failures: `isTransportError(e, 'AMBIGUOUS_DISPATCH')`
 *   tells an ambiguous `sendTransaction` apart, and `e.signature` names the transaction.
 * - A batch (array payload): sent as one JSON-RPC batch through `pool.batch`; one response
 *   object per request, in order, with each id;
 *   pool failures are error objects with code `POOL_FAILURE_RPC_CODE` and `data.sturdyCode`.
 * - `signal` cancels the pool call (the error is `ABORTED`, or `AMBIGUOUS_DISPATCH` when
 *   the request had already been written).
 */
export function kitTransport(pool: RpcRequester, options: KitTransportOptions = {}): KitRpcTransport {
  return async <TResponse>({ payload, signal }: KitTransportConfig): Promise<TResponse> => {
    const read = readJsonRpcPayload(payload);
    if (!read.ok) {
      throw new TransportError('INVALID_INPUT', `The payload is not a JSON-RPC 2.0 request: ${read.reason}`, { context: { field: 'payload' } });
    }
    const outcomes = await callEach(pool, read.calls, { ...options, signal });
    if (read.batch) return toResponseObjects(read.calls, outcomes) as TResponse;
    const [call] = read.calls;
    const [outcome] = outcomes;
    if (call === undefined || outcome === undefined) throw new TransportError('INVALID_INPUT', 'The payload is empty', { context: { field: 'payload' } });
    if (!outcome.ok && !(outcome.error instanceof TransportError && outcome.error.code === 'RPC_ERROR')) throw outcome.error;
    return toResponseObject(call, outcome) as TResponse;
  };
}
