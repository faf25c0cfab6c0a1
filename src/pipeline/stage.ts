/**
 * The request path's contract: a call runs through stages, each a function that wraps the
 * rest of the path and returns a handler of the same type — as undici's `(dispatch) =>
 * dispatch` interceptors and @solana/kit's transport decorators do. The order is stated
 * once, in `pool/assemble.ts`; a stage that is off is not in the chain, so a call pays
 * nothing for it.
 */
import type { HttpRequestPermit } from '../admission/permit.js';
import type { RequestOptions } from '../api/request-options.js';
import type { CallContext, RoundResult } from './call-context.js';
import type { CallObservation } from './call-observer.js';

/** A call as the caller made it: the level exporters watch (invalid calls included). */
export type RequestHandler = (method: string, params: readonly unknown[], options: RequestOptions, observation?: CallObservation) => Promise<unknown>;

/** A validated, classified call on its way to the request loop. */
export type CallHandler = (call: CallContext, options: RequestOptions) => Promise<unknown>;

/** One round of a call on an admitted permit: its attempt and, for a late read, a hedge. */
export type AttemptRunner = (permit: HttpRequestPermit, call: CallContext, attempt: number, signal: AbortSignal | undefined) => Promise<RoundResult>;

/** A stage: wraps the rest of the path. */
export type Stage<H> = (next: H) => H;

/** `compose([a, b], end)` runs `a`, then `b`, then `end`; an `undefined` stage (off) is left out. */
export function compose<H>(stages: readonly (Stage<H> | undefined)[], end: H): H {
  let handler = end;
  for (let i = stages.length - 1; i >= 0; i--) {
    const stage = stages[i];
    if (stage !== undefined) handler = stage(handler);
  }
  return handler;
}
