import type { Clock } from '../clock.js';
import type { RpcRequester } from '../api/request-options.js';

/** What every family of typed EVM calls shares. */
export interface EvmMethodContext {
  readonly requester: RpcRequester;
  readonly clock: Clock;
}
