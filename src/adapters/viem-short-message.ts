/**
 * viem's `ProviderDisconnectedError` (code 4900, the code of every pool failure) always reads
 * "The Provider is disconnected from all chains." in its `shortMessage`, which is what viem
 * users log and show; the pool's reason would only be in `details`. The transport made by
 * `sturdyTransport` rewrites that short message to the pool's code and reason, keeping the
 * class and code 4900 so viem still never retries it. This module imports nothing from viem.
 */
import { POOL_FAILURE_RPC_CODE, PoolRpcError } from './rpc-error.js';

/** The part of viem's `BaseError` the rewrite touches. */
interface ViemErrorLike {
  code?: unknown;
  shortMessage?: unknown;
  message: string;
  cause?: unknown;
}

/**
 * The short message for a viem error whose cause is a pool failure: the pool's own message
 * (led by its `TransportError` code, ids only, never a URL); `undefined` for anything else.
 */
export function poolShortMessage(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const viemError = error as ViemErrorLike;
  if (viemError.code !== POOL_FAILURE_RPC_CODE || typeof viemError.shortMessage !== 'string') return undefined;
  const cause = viemError.cause;
  return cause instanceof PoolRpcError && cause.code === POOL_FAILURE_RPC_CODE ? cause.message : undefined;
}

/** Rewrites, in place, the short message (and the first line of `message`) of a pool failure. */
export function withPoolShortMessage(error: unknown): unknown {
  const shortMessage = poolShortMessage(error);
  if (shortMessage === undefined) return error;
  const viemError = error as ViemErrorLike & { shortMessage: string };
  const { message } = viemError;
  const previous = viemError.shortMessage;
  viemError.message = message.startsWith(previous) ? shortMessage + message.slice(previous.length) : message;
  viemError.shortMessage = shortMessage;
  return error;
}

/** viem's transport instance, as far as the rewrite needs it (`createTransport`'s result). */
interface ViemTransportInstance {
  readonly request: (...args: never[]) => Promise<unknown>;
}

/**
 * Wraps a transport made by viem's `custom` (a function of viem's client parameters) so the
 * errors its `request` throws carry the pool's short message. Anything that is not such a
 * function is returned as it is.
 */
export function withPoolShortMessages<T>(transport: T): T {
  if (typeof transport !== 'function') return transport;
  const create = transport as unknown as (...args: unknown[]) => unknown;
  const wrapped = (...args: unknown[]): unknown => {
    const instance = create(...args);
    if (typeof instance !== 'object' || instance === null || typeof (instance as ViemTransportInstance).request !== 'function') return instance;
    const { request } = instance as ViemTransportInstance;
    return {
      ...instance,
      request: async (...requestArgs: never[]) => {
        try {
          return await request(...requestArgs);
        } catch (error) {
          throw withPoolShortMessage(error);
        }
      },
    };
  };
  return wrapped as unknown as T;
}
