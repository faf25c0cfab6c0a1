/**
 * `sturdy-rpc/ethers`: an ethers v6 provider whose JSON-RPC goes through an
 * `HttpTransportPool`.
 *
 * The one adapter that imports its host library at runtime: an ethers provider has to
 * extend ethers' `JsonRpcApiProvider`. It is loaded only through this sub-path, and
 * `ethers` (v6) is an optional peer dependency of sturdy-rpc.
 *
 * @module sturdy-rpc/ethers
 */
import {
  JsonRpcApiProvider,
  type JsonRpcApiProviderOptions,
  type JsonRpcError,
  type JsonRpcPayload,
  type JsonRpcResult,
  type Networkish,
} from 'ethers';
import { TransportError } from '../errors/transport-error.js';
import type { RpcRequester } from '../api/request-options.js';
import { callEach, readJsonRpcPayload, toResponseObject, type PoolCallOptions } from './json-rpc-calls.js';

export { findTransportError, INVALID_PARAMS_RPC_CODE, POOL_FAILURE_RPC_CODE, type PoolFailureData } from './rpc-error.js';
export type { PoolCallOptions } from './json-rpc-calls.js';

/** ethers' provider options plus the pool call options. */
export interface SturdyProviderOptions extends JsonRpcApiProviderOptions, PoolCallOptions {}

/**
 * An ethers v6 `JsonRpcApiProvider` over `pool`:
 *
 * ```ts
 * const provider = new SturdyProvider(pool, 'mainnet');
 * await provider.getBalance(address);
 * ```
 *
 * - ethers' batches (calls within its `batchStallTime`, up to `batchMaxCount`) go to
 *   `pool.batch`: one JSON-RPC batch on the wire, results in order, each item its own result
 *   or error; a batch holding a send follows the send rule as a whole.
 * - A node's JSON-RPC error goes through ethers' own `getRpcError` (`NONCE_EXPIRED`,
 *   `CALL_EXCEPTION`, …). Any other pool failure rejects with the pool's `TransportError`
 *   itself: `isTransportError(e, 'AMBIGUOUS_DISPATCH')` means the transaction may have been
 *   broadcast and was not sent again — check the receipt.
 * - Event polling is on by default (`polling: true`): filters are server state on one node,
 *   and a pool spreads calls over several.
 * - `destroy()` stops the provider, not the pool (which may be shared): close the pool yourself.
 * - Without a static network, ethers detects it with `eth_chainId` and, if every endpoint
 *   fails, retries each second and logs to the console (ethers' behaviour). Pass
 *   `{ staticNetwork: true }` with a network to skip detection.
 */
export class SturdyProvider extends JsonRpcApiProvider {
  readonly #pool: RpcRequester;
  readonly #callOptions: PoolCallOptions;
  /** The pool's error behind each error object `_send` returned, for `getRpcError`. */
  readonly #failures = new WeakMap<object, TransportError>();

  constructor(pool: RpcRequester, network?: Networkish, options: SturdyProviderOptions = {}) {
    const { timeoutMs, methods, ...providerOptions } = options;
    super(network, { polling: true, ...providerOptions });
    this.#pool = pool;
    this.#callOptions = {
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(methods === undefined ? {} : { methods }),
    };
  }

  // Like ethers' JsonRpcProvider: nothing is sent (not even eth_chainId) before the first call.
  override async send(method: string, params: unknown[] | Record<string, unknown>): Promise<unknown> {
    this._start();
    return super.send(method, params);
  }

  override async _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<(JsonRpcResult | JsonRpcError)[]> {
    const read = readJsonRpcPayload(payload);
    if (!read.ok) {
      throw new TransportError('INVALID_INPUT', `Not a JSON-RPC 2.0 request: ${read.reason}`, { context: { field: 'payload' } });
    }
    const outcomes = await callEach(this.#pool, read.calls, this.#callOptions);
    return read.calls.map((call, index) => {
      const outcome = outcomes[index] ?? { ok: false, error: undefined };
      const response = toResponseObject(call, outcome);
      const failure = outcome.ok ? undefined : outcome.error;
      if ('error' in response && failure instanceof TransportError && failure.code !== 'RPC_ERROR') this.#failures.set(response.error, failure);
      return response as JsonRpcResult | JsonRpcError;
    });
  }

  override getRpcError(payload: JsonRpcPayload, error: JsonRpcError): Error {
    return this.#failures.get(error.error) ?? super.getRpcError(payload, error);
  }
}
