/**
 * Two operators' word on one question: what every negative proof (a transaction expired, a
 * nonce was used by another, a signature is in no history) is made of. One node's answer is
 * never enough — a node with no history says null, a node ahead of the chain says the block
 * height passed — so the same call is asked of an endpoint of a second operator too, and a
 * proof holds only where both answers carry it.
 */
import { isTransportError } from '../errors/transport-error.js';
import type { RequestOptions, RpcRequester } from '../api/request-options.js';

/** One parsed answer and who gave it. */
export interface Witness<T> {
  readonly value: T;
  readonly endpointId: string;
  readonly operator: string;
}

/**
 * Asks `method` of endpoints of two different operators and parses both answers. An
 * operator whose answer does not parse (`INVALID_RESPONSE`) is passed over for the next one,
 * so one node answering garbage cannot block a proof. Undefined when the requester cannot
 * say who answered (no `requestWithOrigin`) or no second operator with a valid answer is
 * left (`NO_ENDPOINT`; the last refused answer's error when there was one): nothing can be
 * proven then. Other failures throw, as any failed call. `options` is read before each
 * call, so each gets what is left of the deadline.
 */
export async function askTwoOperators<T>(
  requester: RpcRequester,
  method: string,
  params: readonly unknown[],
  parse: (value: unknown) => T,
  options: () => RequestOptions,
): Promise<readonly [Witness<T>, Witness<T>] | undefined> {
  if (requester.requestWithOrigin === undefined) return undefined;
  const witnesses: Witness<T>[] = [];
  const asked: string[] = [];
  let lastInvalid: unknown;
  // Bounded: every turn excludes one more operator, and the requester runs out of them.
  while (witnesses.length < 2) {
    let answer;
    try {
      answer = await requester.requestWithOrigin(method, params, { ...options(), excludeOperators: [...asked] });
    } catch (error) {
      // No operator left: say why when answers were refused, else nothing can be proven.
      if (isTransportError(error, 'NO_ENDPOINT') && lastInvalid === undefined) return undefined;
      throw isTransportError(error, 'NO_ENDPOINT') ? lastInvalid : error;
    }
    if (asked.includes(answer.operator)) return undefined;
    asked.push(answer.operator);
    try {
      witnesses.push({ value: parse(answer.value), endpointId: answer.endpointId, operator: answer.operator });
    } catch (error) {
      if (!isTransportError(error, 'INVALID_RESPONSE')) throw error;
      lastInvalid = error;
    }
  }
  return [witnesses[0]!, witnesses[1]!];
}
