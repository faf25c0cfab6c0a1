/**
 * Two operators' word on one question: what every negative proof (a transaction expired, a
 * nonce was used by another, a signature is in no history) is made of. One node's answer is
 * never enough — a node with no history says null, a node ahead of the chain says the block
 * height passed — so the same call is asked of an endpoint of a second operator too, and a
 * proof holds only where both answers carry it.
 */
import { isTransportError } from '../errors/transport-error.js';
import type { RequestOptions, RpcRequester } from '../pool/request-options.js';

/** One parsed answer and who gave it. */
export interface Witness<T> {
  readonly value: T;
  readonly endpointId: string;
  readonly operator: string;
}

/**
 * Asks `method` of two endpoints of different operators and parses both answers (a parse
 * failure throws, as any failed call). Undefined when the requester cannot say who answered
 * (no `requestWithOrigin`) or no second operator serves the call: nothing can be proven then.
 * `options` is read before each call, so each gets what is left of the caller's deadline.
 */
export async function askTwoOperators<T>(
  requester: RpcRequester,
  method: string,
  params: readonly unknown[],
  parse: (value: unknown) => T,
  options: () => RequestOptions,
): Promise<readonly [Witness<T>, Witness<T>] | undefined> {
  if (requester.requestWithOrigin === undefined) return undefined;
  const first = await requester.requestWithOrigin(method, params, options());
  const firstWitness = { value: parse(first.value), endpointId: first.endpointId, operator: first.operator };
  let second;
  try {
    second = await requester.requestWithOrigin(method, params, { ...options(), excludeOperators: [first.operator] });
  } catch (error) {
    if (isTransportError(error, 'NO_ENDPOINT')) return undefined;
    throw error;
  }
  if (second.operator === first.operator) return undefined;
  return [firstWitness, { value: parse(second.value), endpointId: second.endpointId, operator: second.operator }];
}
