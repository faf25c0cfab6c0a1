/**
 * Outcome classification: every raw outcome of one attempt becomes a result,
 * or a failure with cause × dispatch state × reputation signal × breaker failure ×
 * protocol violation × provider delay. The decisions live in one table, `RULES` in `outcome-rules.ts`;
 * the functions below only pick a row.
 *
 * Two principles drive the table:
 * - Dispatch is never guessed from error codes: transport errors take it from the
 *   executor's per-attempt `dispatched` flag; HTTP answers take it from what the status
 *   says the server did.
 * - Fault follows the endpoint: our caller's abort, our own deadline, our oversized
 *   request, capability limits and the application's own errors cost it nothing; 4xx,
 *   capability limits and cancellations never count against the host breaker.
 */
import { parseRetryAfter } from '../retry/retry-after.js';
import { rateLimitResetDelayMs } from './rate-limit-headers.js';
import { parseResponseEnvelope, readResponseObject, type JsonRpcErrorObject, type ResponseEnvelope } from '../jsonrpc/envelope.js';
import { stringifyJson } from '../jsonrpc/exact-json.js';
import {
  hasAuthWording,
  hasRateLimitWording,
  isAuthError,
  isCapabilityLimit,
  isExecutionRevert,
  isFabricatedParseError,
  isRateLimitError,
  isWrappedUpstreamFailure,
  providerDelayFromErrorData,
  readNodeUnhealthy,
} from '../jsonrpc/heuristics.js';
import { readLogRangeLimit } from '../jsonrpc/log-range-limit.js';
import { isUnexpectedEmptyResult } from '../jsonrpc/method-table.js';
import { isSentTransactionId } from '../jsonrpc/answer-ids.js';
import type { RawOutcome } from './executor.js';
import { failureOf } from './outcome-rules.js';
import type { ClassifiedFailure, ClassifiedOutcome, ClassifyContext } from './outcome.js';

export { failureOf, RULES, type OutcomeDetail } from './outcome-rules.js';

/** Maps one raw outcome to a result or a classified failure. Pure. */
export function classifyOutcome(raw: RawOutcome, ctx: ClassifyContext): ClassifiedOutcome {
  return raw.type === 'error' ? classifyTransportError(raw, ctx) : classifyResponse(raw, ctx);
}

type RawError = Extract<RawOutcome, { type: 'error' }>;
export type RawResponse = Extract<RawOutcome, { type: 'response' }>;

function classifyTransportError(raw: RawError, ctx: ClassifyContext): ClassifiedFailure {
  const fields = { status: raw.status, dispatched: raw.dispatched };
  // Once the pool aborted the signal, whatever error the executor saw is that abort's echo.
  switch (ctx.abortReason) {
    case 'caller':
      return failureOf('caller-abort', fields);
    case 'deadline':
      return failureOf('deadline', fields);
    case 'attempt-timeout':
      return failureOf('attempt-timeout', fields);
    case undefined:
      break;
  }
  switch (raw.kind) {
    case 'aborted':
      return failureOf('abort-unexplained', fields);
    case 'connect':
      return failureOf('connect', fields);
    case 'socket':
      return failureOf(raw.dispatched ? 'socket-after-write' : 'socket-before-write', fields);
    case 'too-large':
      return failureOf('too-large', fields);
    case 'decode':
      return failureOf('decode', fields);
    case 'other':
      // The code only names the cause (headers/body timeout); dispatch still comes from the flag.
      return failureOf(raw.code?.includes('TIMEOUT') === true ? 'transport-timeout' : 'transport-error', fields);
  }
}

/** Statuses some nodes put on a definitive JSON-RPC error (e.g. invalid params as 400). */
const RPC_ERROR_STATUSES: ReadonlySet<number> = new Set([400, 404, 422, 500]);

function classifyResponse(raw: RawResponse, ctx: ClassifyContext): ClassifiedOutcome {
  const { status } = raw;
  if (status >= 200 && status < 300) return classifySuccessStatus(raw, ctx);

  // Retry-After first; `X-RateLimit-Remaining: 0` with its reset is the same request in other words.
  const headerDelayMs = parseRetryAfter(raw.headers['retry-after'], ctx.wallNowMs) ?? rateLimitResetDelayMs(raw.headers, ctx.wallNowMs);
  const envelope = parseResponseEnvelope(raw.body, ctx.id);
  const rpc = envelope.type === 'error' ? envelope.error : undefined;
  // The header wins; a JSON-RPC body may carry its own delay (Infura's `backoff_seconds`).
  const providerDelayMs = headerDelayMs ?? (rpc === undefined ? undefined : providerDelayFromErrorData(rpc.data, ctx.wallNowMs));
  const fields = { status, rpc, providerDelayMs };

  if (status === 429) return failureOf('http-429', fields);
  if (status === 401 || status === 403) {
    // Some gateways throttle with 403; the body says so.
    if (hasRateLimitWording(raw.body) || (rpc !== undefined && isRateLimitError(rpc))) {
      return failureOf('http-denied-rate-limit', fields);
    }
    // A plan that excludes one method is a capability limit, not a dead key.
    if (rpc?.code === -32601) return failureOf('method-not-found', fields);
    if (rpc !== undefined && isCapabilityLimit(rpc)) return failureOf('capability', fields);
    return failureOf('http-auth', fields);
  }
  if (status === 408) return failureOf('http-408', fields);
  // QuickNode answers its eth_getLogs range limit with 413 and a JSON-RPC body: the range, not the request body, is too big.
  if (rpc !== undefined && readLogRangeLimit(rpc) !== undefined) return failureOf('log-range-limit', fields);
  if (status === 413) return failureOf('http-413', fields);
  if (rpc !== undefined && envelope.type === 'error' && RPC_ERROR_STATUSES.has(status)) {
    // A 500 must echo our id to prove the node itself answered; a 4xx node answer may not.
    if (status < 500 || !envelope.idNull) return classifyRpcError(rpc, status, headerDelayMs, ctx);
  }
  if (status === 404 || status === 405) return failureOf('http-not-found', fields);
  if (status === 503) {
    if (hasRateLimitWording(raw.body)) return failureOf('http-503-rate-limit', fields);
    if (headerDelayMs !== undefined) return failureOf('http-503-retry-after', fields);
  }
  if (status >= 500) return failureOf('http-5xx', fields);
  if (status >= 400) return failureOf('http-4xx', fields);
  return failureOf('http-unexpected', fields);
}

function classifySuccessStatus(raw: RawResponse, ctx: ClassifyContext): ClassifiedOutcome {
  return classifyEnvelope(parseResponseEnvelope(raw.body, ctx.id), raw, NO_ELEMENT, ctx);
}

/**
 * Classifies one element of a 2xx batch answer as if it were the whole answer to the item
 * with id `ctx.id` (same rules as a single call: empty results, a send's id, rate-limit and
 * capability errors). `raw` is the HTTP answer the element came in.
 */
export function classifyBatchElement(element: unknown, raw: RawResponse, ctx: ClassifyContext): ClassifiedOutcome {
  return classifyEnvelope(readResponseObject(element, ctx.id), raw, element, ctx);
}

/** Marks a whole-body answer (no batch element): its text is the body itself. */
const NO_ELEMENT: unique symbol = Symbol('no batch element');

/** `element`: the batch element classified, or {@link NO_ELEMENT} for a whole body (wording is read from its text only when needed). */
function classifyEnvelope(envelope: ResponseEnvelope, raw: RawResponse, element: unknown, ctx: ClassifyContext): ClassifiedOutcome {
  const { status } = raw;
  switch (envelope.type) {
    case 'result':
      if (isUnexpectedEmptyResult(ctx.method, envelope.result)) return failureOf('empty-result', { status });
      if (ctx.sentTransactionId !== undefined && !isSentTransactionId(ctx.sentTransactionId, envelope.result)) return failureOf('send-result-mismatch', { status });
      if (ctx.integrity !== undefined) {
        const check = ctx.integrity.verify(envelope.result, ctx.chainVerified !== false);
        if (check !== undefined) return failureOf('integrity', { status, check });
      }
      return { ok: true, dispatch: 'completed', status, result: envelope.result };
    case 'error':
      return classifyRpcError(envelope.error, status, parseRetryAfter(raw.headers['retry-after'], ctx.wallNowMs) ?? rateLimitResetDelayMs(raw.headers, ctx.wallNowMs), ctx);
    case 'violation': {
      // Plain-text and odd-shaped bodies still say what happened ("invalid api key").
      if (envelope.reason === 'not-json' || envelope.reason === 'malformed-error') {
        const body = element === NO_ELEMENT ? raw.body : stringifyJson(element);
        if (hasRateLimitWording(body)) return failureOf('body-rate-limit', { status });
        if (hasAuthWording(body)) return failureOf('body-auth', { status });
      }
      return failureOf(envelope.reason, { status });
    }
  }
}

/** Solana `-32016`: the node refused before processing because it is behind the requested slot. */
const MIN_CONTEXT_SLOT_NOT_REACHED = -32016;

/**
 * Maps a JSON-RPC error object, in priority order (first match wins). The code decides;
 * wording refines only the codes known to be ambiguous (docs/concepts.md "How outcomes are classified"):
 *
 * | code                                   | outcome                                                     |
 * |----------------------------------------|-------------------------------------------------------------|
 * | 3, or "execution reverted…"            | the application's answer (contract text may say anything)   |
 * | -32005 + numSlotsBehind / "node is…"   | node-unhealthy (rejected)                                   |
 * | eth_getLogs range / result-count limit | log-range-limit: capability (completed), any HTTP status    |
 * |   wording on -32000/-32005/-32600/     |   (QuickNode's 413 too); carries the suggested range        |
 * |   -32602/-32603/-32614                 |   (`readLogRangeLimit`)                                     |
 * | 429, -32429; -32005 (not a size limit) | rate limit (rejected)                                       |
 * | -32007, -32000, -32603 + rate wording  | rate limit (rejected); -32007 otherwise: the chain's answer |
 * | -32000, -32603 + auth wording          | dead key (rejected)                                         |
 * | -32000, -32603 + gateway wording       | upstream failure (ambiguous)                                |
 * | -32700                                 | fabricated by a proxy (ambiguous, a violation)              |
 * | -32601; -32016                         | capability (rejected: never processed)                      |
 * | Solana node-limit codes; capability    | capability (completed: no penalty, reads go elsewhere)      |
 * |   wording on -32000/-32603/-32005/     |                                                             |
 * |   -32600/-32602                        |                                                             |
 * | -32600                                 | our request (never retried)                                 |
 * | anything else (-32002 preflight, …)    | the application's answer: `RPC_ERROR`, never sent again     |
 */
function classifyRpcError(
  rpc: JsonRpcErrorObject,
  status: number,
  headerDelayMs: number | undefined,
  ctx: ClassifyContext,
): ClassifiedFailure {
  const fields = { status, rpc };
  // A revert reason is contract text and may contain any wording: always the app's answer.
  if (isExecutionRevert(rpc)) return failureOf('rpc-error', fields);
  if (readNodeUnhealthy(rpc) !== undefined) return failureOf('node-unhealthy', fields);
  if (readLogRangeLimit(rpc) !== undefined) return failureOf('log-range-limit', fields);
  if (isRateLimitError(rpc)) {
    const providerDelayMs = headerDelayMs ?? providerDelayFromErrorData(rpc.data, ctx.wallNowMs);
    return failureOf('rpc-rate-limit', { ...fields, providerDelayMs });
  }
  if (isAuthError(rpc)) return failureOf('rpc-auth', fields);
  if (isWrappedUpstreamFailure(rpc)) return failureOf('upstream-failure', fields);
  if (isFabricatedParseError(rpc)) return failureOf('fabricated-parse-error', fields);
  if (rpc.code === -32601) return failureOf('method-not-found', fields);
  if (rpc.code === MIN_CONTEXT_SLOT_NOT_REACHED) return failureOf('min-context-slot', fields);
  if (isCapabilityLimit(rpc)) return failureOf('capability', fields);
  if (rpc.code === -32600) return failureOf('invalid-request', fields);
  return failureOf('rpc-error', fields);
}
