/**
 * The errors a subscribe call ends with when no node confirmed it: built here so the
 * manager only decides which one. Endpoint ids only, never a URL; a node's own message is
 * redacted and cut by the caller.
 */
import { TransportError } from '../errors/transport-error.js';

/** No endpoint can take `method`: none has a WebSocket URL, or every one is on another chain (`anyMore`: it had been live). */
export function noEndpointError(method: string, why: 'no-url' | 'wrong-chain' | 'wrong-chain-any-more'): TransportError<'SUBSCRIPTION_FAILED'> {
  const text =
    why === 'no-url'
      ? `No endpoint has a WebSocket URL (set wsUrl, or subscriptions.deriveWsUrl)`
      : why === 'wrong-chain'
        ? `No endpoint can take '${method}' (every endpoint with a WebSocket URL is on another chain)`
        : `No endpoint can take '${method}' any more (every one is on another chain)`;
  return new TransportError('SUBSCRIPTION_FAILED', text, { context: { method, reason: 'no-ws-endpoint' }, method });
}

export function abortedError(method: string, cause: unknown): TransportError<'ABORTED'> {
  return new TransportError('ABORTED', 'The subscription was aborted before it opened', { context: {}, method, cause });
}

/** The node refused the first subscribe call itself (bad params, unknown method). */
export function refusalError(method: string, endpointId: string, rpcCode: number, message: string): TransportError<'SUBSCRIPTION_FAILED'> {
  return new TransportError('SUBSCRIPTION_FAILED', `Endpoint '${endpointId}' refused '${method}': ${rpcCode} ${message}`, {
    context: { method, reason: 'rpc-error', rpcCode, rpcMessage: message },
    method,
    endpointId,
  });
}

/** No node confirmed within the caller's `timeoutMs`; `lastFailure` says what the last try met. */
export function timeoutError(method: string, timeoutMs: number, lastFailure: string | undefined, endpointId: string | undefined): TransportError<'SUBSCRIPTION_FAILED'> {
  const last = lastFailure === undefined ? '' : ` (last: ${lastFailure})`;
  return new TransportError('SUBSCRIPTION_FAILED', `No endpoint confirmed '${method}' within ${timeoutMs} ms${last}`, {
    context: { method, reason: 'timeout', ...(lastFailure === undefined ? {} : { lastFailure }) },
    method,
    endpointId,
  });
}

export function noSocketError(method: string): TransportError<'SUBSCRIPTION_FAILED'> {
  return new TransportError('SUBSCRIPTION_FAILED', "No WebSocket implementation: install the 'ws' package or pass subscriptions.socketFactory", {
    context: { method, reason: 'no-socket' },
    method,
  });
}
