import { expect } from 'vitest';
import { TransportError } from '../../src/errors/transport-error.js';
import type { RequestOptions, RpcRequester } from '../../src/api/request-options.js';

/** One call a {@link stub} requester received. */
export interface Call {
  readonly method: string;
  readonly params: readonly unknown[];
  readonly options: RequestOptions | undefined;
}

/** A requester that records every call and answers with `respond` (`null` by default). */
export function stub(respond: (method: string, params: readonly unknown[]) => unknown = () => null) {
  const calls: Call[] = [];
  const requester: RpcRequester = {
    async request(method, params, options) {
      calls.push({ method, params, options });
      return respond(method, params);
    },
  };
  return { requester, calls };
}

/** A stub answering `result` to every call. */
export function answering(result: unknown) {
  return stub(() => result);
}

/** The `TransportError` a promise rejects with (fails the test if it resolves or rejects with anything else). */
export async function rejection(promise: Promise<unknown>): Promise<TransportError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TransportError);
  return error as TransportError;
}
