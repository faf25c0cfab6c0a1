/**
 * The classification table: every way an attempt can fail, as one row of cause × dispatch
 * state × reputation signal × breaker failure × protocol violation. `classify.ts` picks the
 * row; {@link failureOf} turns it into a failure.
 */
import type { DispatchState, FailureCause } from '../retry/causes.js';
import type { ReputationSignalKind } from '../reputation/signals.js';
import type { JsonRpcErrorObject } from '../jsonrpc/envelope.js';
import type { ClassifiedFailure } from './outcome.js';
import type { IntegrityCheckName } from '../integrity/types.js';

/** `as-written`: `dispatched-ambiguous` if the executor's flag says bytes may have left, else `not-dispatched`. */
type DispatchRule = DispatchState | 'as-written';

interface Rule {
  readonly cause: FailureCause;
  readonly dispatch: DispatchRule;
  readonly signal: ReputationSignalKind;
  readonly breaker: boolean;
  readonly violation: boolean;
}

const row = (cause: FailureCause, dispatch: DispatchRule, signal: ReputationSignalKind, breaker: boolean, violation = false): Rule => ({
  cause,
  dispatch,
  signal,
  breaker,
  violation,
});

export const AMBIGUOUS = 'dispatched-ambiguous';

/** Every outcome, keyed by its `detail` token. */
export const RULES = {
  // Transport (executor errors)
  'caller-abort': row('aborted', 'as-written', 'none', false),
  deadline: row('timeout', 'as-written', 'none', false),
  'attempt-timeout': row('timeout', 'as-written', 'critical', true),
  'abort-unexplained': row('connection', 'as-written', 'major', true),
  connect: row('connection', 'as-written', 'major', true),
  'socket-after-write': row('connection', 'as-written', 'major', true),
  // A keep-alive socket closed before our bytes went out: benign, and provably unsent.
  'socket-before-write': row('connection', 'as-written', 'minor', false),
  'transport-timeout': row('timeout', 'as-written', 'critical', true),
  'transport-error': row('connection', 'as-written', 'major', true),
  // Usually our query's size, not the host's health: no breaker.
  'too-large': row('invalid-response', AMBIGUOUS, 'major', false),
  decode: row('invalid-response', AMBIGUOUS, 'critical', true),
  // HTTP status
  'http-429': row('rate-limited', 'rejected', 'minor', false),
  'http-auth': row('endpoint-rejected', 'rejected', 'fatal', false),
  'http-denied-rate-limit': row('rate-limited', 'rejected', 'minor', false),
  'http-408': row('timeout', 'rejected', 'minor', false),
  'http-413': row('request', 'rejected', 'none', false),
  'http-not-found': row('endpoint-rejected', 'rejected', 'major', false),
  'http-4xx': row('endpoint-rejected', 'rejected', 'major', false),
  'http-unexpected': row('endpoint-rejected', 'rejected', 'major', false),
  'http-5xx': row('temporary-http', AMBIGUOUS, 'major', true),
  'http-503-retry-after': row('temporary-http', 'rejected', 'major', true),
  'http-503-rate-limit': row('rate-limited', 'rejected', 'minor', false),
  // 2xx bodies that are not a usable answer. An HTML error page (a CDN in front) or a
  // cut-off body is a gateway/transport failure, so not a protocol violation of the node.
  empty: row('invalid-response', AMBIGUOUS, 'critical', true, true),
  html: row('invalid-response', AMBIGUOUS, 'critical', true),
  truncated: row('invalid-response', AMBIGUOUS, 'critical', true),
  'not-json': row('invalid-response', AMBIGUOUS, 'critical', true, true),
  'not-an-object': row('invalid-response', AMBIGUOUS, 'critical', true, true),
  'batch-where-single': row('invalid-response', AMBIGUOUS, 'critical', true, true),
  'both-result-and-error': row('invalid-response', AMBIGUOUS, 'critical', true, true),
  neither: row('invalid-response', AMBIGUOUS, 'critical', true, true),
  'id-mismatch': row('invalid-response', AMBIGUOUS, 'critical', true, true),
  'id-null': row('invalid-response', AMBIGUOUS, 'critical', true, true),
  'malformed-error': row('invalid-response', AMBIGUOUS, 'critical', true, true),
  'empty-result': row('invalid-response', AMBIGUOUS, 'critical', true, true),
  // A send answered with another transaction's id (or none): it stays ambiguous.
  'send-result-mismatch': row('invalid-response', AMBIGUOUS, 'critical', true, true),
  // An answer that contradicts what was asked (src/integrity/): a lie, asked of another endpoint, fed to the invalid-rate detector.
  integrity: row('invalid-response', AMBIGUOUS, 'critical', true, true),
  'body-rate-limit': row('rate-limited', 'rejected', 'minor', false),
  'body-auth': row('endpoint-rejected', 'rejected', 'fatal', false),
  // JSON-RPC errors
  'rpc-error': row('rpc-application', 'completed', 'none', false),
  'rpc-rate-limit': row('rate-limited', 'rejected', 'minor', false),
  'rpc-auth': row('endpoint-rejected', 'rejected', 'fatal', false),
  'node-unhealthy': row('endpoint-rejected', 'rejected', 'major', true),
  'upstream-failure': row('temporary-http', AMBIGUOUS, 'major', true),
  'fabricated-parse-error': row('invalid-response', AMBIGUOUS, 'critical', true, true),
  'method-not-found': row('capability', 'rejected', 'none', false),
  'min-context-slot': row('capability', 'rejected', 'none', false),
  capability: row('capability', 'completed', 'none', false),
  // A provider's eth_getLogs range / result-count limit (src/jsonrpc/log-range-limit.ts): a narrower range will do.
  'log-range-limit': row('capability', 'completed', 'none', false),
  'invalid-request': row('request', 'rejected', 'none', false),
  // The chain guard's check got a well-formed JSON-RPC answer that is no chain id or hash at all
  'chain-check-invalid': row('invalid-response', 'completed', 'critical', true, true),
  // Batch answers (docs/reads.md "Batching and coalescing"): an item the answer leaves out, answers
  // twice, or an answer that is no array at all. The node read the batch, so each is ambiguous.
  'batch-missing-item': row('invalid-response', AMBIGUOUS, 'critical', true, true),
  'batch-duplicate-id': row('invalid-response', AMBIGUOUS, 'critical', true, true),
  'batch-not-array': row('invalid-response', AMBIGUOUS, 'critical', true, true),
} as const satisfies Record<string, Rule>;

export type OutcomeDetail = keyof typeof RULES;

interface FailureFields {
  readonly status?: number | undefined;
  readonly dispatched?: boolean;
  readonly rpc?: JsonRpcErrorObject | undefined;
  readonly providerDelayMs?: number | undefined;
  readonly check?: IntegrityCheckName | undefined;
}

/** The failure a row of {@link RULES} describes. */
export function failureOf(detail: OutcomeDetail, fields: FailureFields = {}): ClassifiedFailure {
  const rule: Rule = RULES[detail];
  const dispatch =
    rule.dispatch === 'as-written' ? (fields.dispatched === true ? AMBIGUOUS : 'not-dispatched') : rule.dispatch;
  return {
    ok: false,
    cause: rule.cause,
    dispatch,
    status: fields.status,
    rpcCode: fields.rpc?.code,
    rpcMessage: fields.rpc?.message,
    rpcData: fields.rpc?.data,
    providerDelayMs: fields.providerDelayMs,
    signal: rule.signal,
    protocolViolation: rule.violation,
    breakerFailure: rule.breaker,
    detail,
    check: fields.check,
  };
}
