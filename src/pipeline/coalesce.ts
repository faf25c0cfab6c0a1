/**
 * The coalesce stage (docs/reads.md "Batching and coalescing"): identical idempotent reads in flight
 * together share one request. Sends, unknown methods and filter polls never share: each is
 * its own request. Absent with `coalesce: false`; a call may opt out with `coalesce: false`.
 */
import { abortedError } from '../admission/admitter.js';
import type { RequestOptions } from '../api/request-options.js';
import { Coalescer, type CoalesceHost, type InFlight } from '../coalesce/coalescer.js';
import { isTransportError, type TransportError } from '../errors/transport-error.js';
import type { Clock } from '../clock.js';
import { failWhileWaiting } from './call-errors.js';
import type { CallContext } from './call-context.js';
import type { CallHandler, Stage } from './stage.js';

/** A call waiting to share a request. */
interface Sharing {
  readonly call: CallContext;
  readonly options: RequestOptions;
  /** Its coalescing scope (kind, pin, `timeoutMs`), kept when it goes on alone with less time. */
  readonly scope: string;
  readonly common: boolean;
  /** Set once it went on alone: its own deadline, from when it made the call. */
  readonly deadlineMs?: number;
}

/** What the coalesce stage needs to give a joiner its own deadline. */
export interface CoalesceParts {
  readonly clock: Clock;
  /** The call's time budget when it does not set `timeoutMs` (its kind's, or its pinned endpoint's). */
  timeoutMsOf(call: CallContext, options: RequestOptions): number;
  closedError(): TransportError | undefined;
}

/** The error of a caller that left a shared request on its own signal. */
export function leftSharedRequest(call: CallContext, signal: AbortSignal): TransportError {
  return failWhileWaiting(abortedError(signal), call, undefined);
}

export function coalesceStage(parts: CoalesceParts): Stage<CallHandler> {
  return (next) => {
    const coalescer = new Coalescer();
    const host: CoalesceHost<Sharing> = {
      /**
       * A caller joined a request in flight. It keeps its own deadline: the shared request runs
       * under its first caller's, which (same scope, same `timeoutMs`) ends no later than this
       * caller's, so the joiner can never be held past its own deadline — only failed before
       * it. When the shared request runs out of its time, this caller goes on with the time it
       * has left (sharing again with the other joiners that do): never `DEADLINE_EXCEEDED` early.
       */
      joined: (sharing, joined) => {
        const { call, options } = sharing;
        const now = parts.clock.now();
        const deadlineMs = sharing.deadlineMs ?? now + parts.timeoutMsOf(call, options);
        // Its deadline errors name its own budget, counted from when it made the call.
        call.startedAtMs ??= now;
        return joined.catch((error: unknown) => {
          const leftMs = deadlineMs - parts.clock.now();
          if (!(leftMs > 0) || !isTransportError(error) || error.code !== 'DEADLINE_EXCEEDED' || options.signal?.aborted || parts.closedError()) throw error;
          const alone: Sharing = { ...sharing, deadlineMs, options: { ...options, timeoutMs: leftMs } };
          return coalescer.run(sharing.scope, sharing.common, call.body.tail, options.signal, host, alone);
        });
      },
      start: (sharing, signal, entry: InFlight) => {
        const { call, options } = sharing;
        // Told when the request below ends: the key is free again (no promise reaction on the hot path).
        call.onSettled = entry;
        return next(call, signal === options.signal ? options : { ...options, signal });
      },
      leaveError: (sharing, signal) => leftSharedRequest(sharing.call, signal),
    };
    return (call, options) => {
      if (call.retryClass !== 'idempotent' || options.coalesce === false) return next(call, options);
      // Same kind, pin and deadline (the scope), same request text after the id: the same request.
      // The common scope is the kind itself: no string is built per call.
      const common = options.endpoint === undefined && options.timeoutMs === undefined;
      const scope = common ? call.kind : `${call.kind}\n${options.endpoint ?? ''}\n${options.timeoutMs ?? ''}`;
      return coalescer.run(scope, common, call.body.tail, options.signal, host, { call, options, scope, common });
    };
  };
}
