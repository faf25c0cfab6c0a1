/**
 * `sturdy-rpc/viem`: a viem transport over an `HttpTransportPool`.
 *
 * viem turns a thrown `{ code, message, data }` into its `RpcError` subclasses inside the
 * request wrapper that `custom()` builds (viem `utils/buildRequest.ts`), so the transport is
 * made by viem's own `custom`, passed in by the caller: this module imports nothing from
 * viem, at runtime or in its types, and works with whichever viem the application has.
 *
 * @module sturdy-rpc/viem
 */
import { TransportError } from '../errors/transport-error.js';
import type { RpcRequester } from '../api/request-options.js';
import type { PoolCallOptions } from './json-rpc-calls.js';
import { PoolRpcError } from './rpc-error.js';
import { withPoolShortMessages } from './viem-short-message.js';

export { findTransportError, INVALID_PARAMS_RPC_CODE, POOL_FAILURE_RPC_CODE, PoolRpcError, type PoolFailureData } from './rpc-error.js';
export type { PoolCallOptions } from './json-rpc-calls.js';

/** The argument of an EIP-1193 `request`. */
export interface Eip1193RequestArguments {
  readonly method: string;
  readonly params?: unknown;
}

/** An EIP-1193 provider (`request` only) whose calls go through the pool. */
export interface PoolEip1193Provider {
  request(args: Eip1193RequestArguments, options?: { readonly signal?: AbortSignal | undefined }): Promise<unknown>;
}

/**
 * An EIP-1193 provider over `pool` — for viem's `custom()` or any consumer of EIP-1193.
 * Resolves with the JSON-RPC result; rejects with a {@link PoolRpcError} whose `code`,
 * `message` and `data` are the node's own for a node error, else `POOL_FAILURE_RPC_CODE`
 * (4900) with `data.sturdyCode` (`-32602` for `INVALID_INPUT`); the `TransportError` with
 * every attempt is its `cause`.
 */
export function createEip1193Provider(pool: RpcRequester, options: PoolCallOptions = {}): PoolEip1193Provider {
  return {
    async request(args, requestOptions) {
      const params = args.params ?? [];
      if (!Array.isArray(params)) {
        throw new PoolRpcError(new TransportError('INVALID_INPUT', 'params must be an array (by-name params are not supported)', { context: { field: 'params' } }));
      }
      const signal = requestOptions?.signal;
      try {
        return await pool.request(args.method, params, {
          ...(signal === undefined ? {} : { signal }),
          ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        });
      } catch (error) {
        throw new PoolRpcError(error);
      }
    },
  };
}

/** The transport config handed to viem's `custom` (a subset of its `CustomTransportConfig`). */
export interface ViemCustomTransportConfig {
  readonly key: string;
  readonly name: string;
  readonly retryCount: number;
  readonly retryDelay?: number;
}

/** The shape of viem's `custom` function; `T` is what it returns (`CustomTransport`). */
export type ViemCustomFunction<T> = (provider: PoolEip1193Provider, config: ViemCustomTransportConfig) => T;

/** Config of {@link sturdyTransport}. */
export interface SturdyTransportConfig<T> extends PoolCallOptions {
  /** viem's `custom` (`import { custom } from 'viem'`). */
  readonly custom: ViemCustomFunction<T>;
  /** @default 'sturdy' */
  readonly key?: string;
  /** @default 'sturdy-rpc pool' */
  readonly name?: string;
  /**
   * viem's own retries, on top of the pool's. Keep 0: the pool already retried what was
   * safe to retry, on another endpoint, within one deadline. @default 0
   */
  readonly retryCount?: number;
  /** Base delay of viem's own retries, in ms (viem's default applies when unset). */
  readonly retryDelay?: number;
}

/**
 * A viem transport whose requests go through `pool`:
 *
 * ```ts
 * import { createPublicClient, custom } from 'viem';
 * const client = createPublicClient({ chain: mainnet, transport: sturdyTransport(pool, { custom }) });
 * ```
 *
 * Node errors become viem's `RpcError` subclasses by their code, as with `http()`. Pool
 * failures are viem `ProviderDisconnectedError`s (code 4900), which viem never retries, so an
 * ambiguous send is not resent even with `retryCount` raised; their `shortMessage` is the
 * pool's code and reason (`AMBIGUOUS_DISPATCH (transactionHash 0x…): …`). Find the pool's error with
 * `findTransportError(error, 'AMBIGUOUS_DISPATCH')` (or `error.walk()`).
 */
export function sturdyTransport<T>(pool: RpcRequester, config: SturdyTransportConfig<T>): T {
  const { custom, key = 'sturdy', name = 'sturdy-rpc pool', retryCount = 0, retryDelay, ...callOptions } = config;
  return withPoolShortMessages(
    custom(createEip1193Provider(pool, callOptions), {
      key,
      name,
      retryCount,
      ...(retryDelay === undefined ? {} : { retryDelay }),
    }),
  );
}
