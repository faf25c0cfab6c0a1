/** Why one attempt failed. */
export type FailureCause =
  | 'connection'
  | 'timeout'
  | 'rate-limited'
  | 'temporary-http'
  | 'endpoint-rejected'
  | 'request'
  | 'rpc-application'
  | 'invalid-response'
  | 'capability'
  | 'aborted';

/**
 * What the server may have seen of one attempt.
 * - `not-dispatched`: provably never written to a socket.
 * - `rejected`: the server answered that it did not process it (429, 401/403, 408, unhealthy).
 * - `dispatched-ambiguous`: bytes may have reached a server and no definitive answer came.
 * - `completed`: a definitive answer (a result, or an ordinary JSON-RPC error).
 */
export type DispatchState = 'not-dispatched' | 'rejected' | 'dispatched-ambiguous' | 'completed';

/**
 * How a method may be retried.
 * - `idempotent`: safe to send again after any failure.
 * - `never-after-dispatch`: may be sent again only when the previous attempt was provably
 *   not dispatched or was rejected by the server (sends, filter polls, unknown methods).
 * - `not-applicable`: never retried.
 */
export type RetryClass = 'idempotent' | 'never-after-dispatch' | 'not-applicable';

/** Built-in request kinds; a pool may define more through endpoint `kinds`/`roles`. */
export type RequestKind = 'read' | 'submit' | (string & {});

export const FAILURE_CAUSES: readonly FailureCause[] = [
  'connection',
  'timeout',
  'rate-limited',
  'temporary-http',
  'endpoint-rejected',
  'request',
  'rpc-application',
  'invalid-response',
  'capability',
  'aborted',
];

export const DISPATCH_STATES: readonly DispatchState[] = [
  'not-dispatched',
  'rejected',
  'dispatched-ambiguous',
  'completed',
];
