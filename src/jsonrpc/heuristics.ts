/**
 * Body and error-message heuristics (REFERENCE.md "Body heuristics", after the PATH
 * gateway's classifier). Pure predicates over text and JSON-RPC error objects; the
 * classifier (`src/http/classify.ts`) decides what each one means for retry and reputation.
 *
 * A code decides; wording and `data` fields only refine the few codes that are known to
 * be ambiguous (`-32005` is "limit exceeded" in EIP-1474, Infura's rate limit, and
 * Solana's node-unhealthy; `-32000`/`-32603` are catch-alls). Bodies without a JSON-RPC
 * code (plain text, HTML) and ambiguous HTTP statuses (403, 503) are read by wording too.
 */
import { rateLimitFieldsOf } from './provider-rate.js';
import { clampProviderDelayMs, parseRetryAfter } from '../retry/retry-after.js';
import type { JsonRpcErrorObject } from './envelope.js';

/** Only the head of a body is searched: wording sits at the start; bodies can be 16 MiB. */
const MAX_SCAN_CHARS = 2048;

const RATE_LIMIT =
  /rate[\s_-]?limit|too many requests?|quota exceeded|throttl|rate exceeded|request limit (?:reached|exceeded)|credits limited to|compute units per second/i;
const AUTH = /unauthori[sz]ed|forbidden|invalid api key|api key is not allowed|access denied|invalid project id/i;
const GATEWAY =
  /service unavailable|service temporarily unavailable|bad gateway|gateway time-?out|upstream connect error|upstream request timeout|connection refused|connection reset|no healthy upstream|proxy error/i;
const CAPABILITY = new RegExp(
  [
    'missing trie node',
    'state has been pruned',
    'is pruned',
    'state not available',
    'historical state',
    'not fully indexed',
    'block has been pruned',
    'height is not available',
    'metadata is not found',
    'lite fullnode',
    'api is not supported',
    'method not supported',
    'unsupported method',
    'header not found',
    'query returned more than',
    'block range',
    'excluded from account secondary indexes',
  ].join('|'),
  'i',
);
/** A contract's revert reason is user text: it may say anything, "rate limit" included. */
const REVERT = /^execution reverted|^reverted|vm execution error/i;
const SOLANA_UNHEALTHY = /node is (?:behind|unhealthy)/i;

function head(text: string): string {
  return text.length > MAX_SCAN_CHARS ? text.slice(0, MAX_SCAN_CHARS) : text;
}

export const hasRateLimitWording = (text: string): boolean => RATE_LIMIT.test(head(text));
export const hasAuthWording = (text: string): boolean => AUTH.test(head(text));
export const hasGatewayWording = (text: string): boolean => GATEWAY.test(head(text));
export const hasCapabilityWording = (text: string): boolean => CAPABILITY.test(head(text));

/** EVM execution errors (code 3, "execution reverted…"): always the application's answer. */
export function isExecutionRevert(error: JsonRpcErrorObject): boolean {
  return error.code === 3 || REVERT.test(head(error.message));
}

/**
 * Which JSON-RPC error codes wording may refine (docs/concepts.md "How outcomes are classified").
 * A code decides on its own unless it is one of these: an application error such as
 * Solana's `-32002` preflight failure keeps its code's meaning whatever its message says
 * ("…with unauthorized signer…" is no auth error, and it must never be sent again).
 */
/** Catch-all server errors (JSON-RPC's `-32603`, geth's `-32000`): their text is all that says what happened. */
export const GENERIC_ERROR_CODES: ReadonlySet<number> = new Set([-32000, -32603]);
/** Codes that mean "rate limited" on their own (QuickNode `429`, Helius `-32429`). */
const RATE_LIMIT_CODES: ReadonlySet<number> = new Set([429, -32429]);
/** EIP-1474 "limit exceeded": Infura's rate limit, a result-size limit, or Solana's node-unhealthy. */
const LIMIT_EXCEEDED = -32005;
/** QuickNode's documented rate-limit code, and Solana's "slot skipped": only the wording tells them apart. */
const QUICKNODE_RATE_LIMIT_OR_SLOT_SKIPPED = -32007;
/** Codes providers put on plan and size limits ("block range is too wide", "query returned more than 10000 results"). */
const CAPABILITY_WORDING_CODES: ReadonlySet<number> = new Set([...GENERIC_ERROR_CODES, LIMIT_EXCEEDED, -32600, -32602]);

/**
 * A provider rate limit carried in a JSON-RPC error: codes `429`/`-32429`; `-32005` unless
 * it is Solana's node-unhealthy or a size limit ("query returned more than 10000
 * results"); `-32007` and the catch-all codes only with rate-limit wording. Any other
 * code is the node's answer, whatever its message says. Execution reverts never count.
 */
export function isRateLimitError(error: JsonRpcErrorObject): boolean {
  if (isExecutionRevert(error)) return false;
  if (RATE_LIMIT_CODES.has(error.code)) return true;
  if (error.code === LIMIT_EXCEEDED) {
    if (readNodeUnhealthy(error) !== undefined) return false;
    return readDelayField(error.data) !== undefined || !hasCapabilityWording(error.message);
  }
  const refinable = error.code === QUICKNODE_RATE_LIMIT_OR_SLOT_SKIPPED || GENERIC_ERROR_CODES.has(error.code);
  return refinable && hasRateLimitWording(error.message);
}

/** Auth wording on a catch-all code (a key or plan problem, not a transient fault). */
export function isAuthError(error: JsonRpcErrorObject): boolean {
  return GENERIC_ERROR_CODES.has(error.code) && !isExecutionRevert(error) && hasAuthWording(error.message);
}

/**
 * A gateway in front of the node reporting that the node failed (`-32603`, or geth's
 * generic `-32000`, with gateway wording): the request may or may not have reached the
 * node, so it is a temporary HTTP-level failure, not the application's answer.
 */
export function isWrappedUpstreamFailure(error: JsonRpcErrorObject): boolean {
  return GENERIC_ERROR_CODES.has(error.code) && hasGatewayWording(error.message);
}

/**
 * `-32700` parse error. We only ever send bodies our own encoder wrote, so a parse
 * error was fabricated by something in between (a proxy that mangled or replaced the
 * request): a protocol violation of the endpoint, not an application error.
 */
export function isFabricatedParseError(error: JsonRpcErrorObject): boolean {
  return error.code === -32700;
}

/** Solana node-unhealthy (`-32005` "Node is behind by N slots" / "Node is unhealthy"). */
export interface NodeUnhealthy {
  /** `null` when the node does not know how far behind it is. */
  readonly numSlotsBehind: number | null;
}

export function readNodeUnhealthy(error: JsonRpcErrorObject): NodeUnhealthy | undefined {
  if (error.code !== -32005) return undefined;
  const data = error.data;
  const hasField = isRecord(data) && Object.hasOwn(data, 'numSlotsBehind');
  if (!hasField && !SOLANA_UNHEALTHY.test(error.message)) return undefined;
  const raw = hasField ? data['numSlotsBehind'] : undefined;
  if (typeof raw === 'number' && Number.isFinite(raw)) return { numSlotsBehind: raw };
  if (typeof raw === 'bigint') return { numSlotsBehind: Number(raw) };
  const fromMessage = /behind by (\d+) slot/i.exec(error.message)?.[1];
  return { numSlotsBehind: fromMessage === undefined ? null : Number(fromMessage) };
}

/**
 * Solana error codes that are limits of one node, not faults and not the chain's answer:
 * another node may well serve the request.
 */
export const SOLANA_CAPABILITY_CODES: ReadonlyMap<number, string> = new Map([
  [-32001, 'block-cleaned-up'],
  [-32004, 'block-not-available'],
  [-32008, 'no-snapshot'],
  [-32009, 'long-term-storage-slot-skipped'],
  [-32010, 'secondary-index-excluded'],
  [-32011, 'transaction-history-not-available'],
  [-32012, 'scan-error'],
  [-32014, 'block-status-not-yet-available'],
  [-32016, 'min-context-slot-not-reached'],
  [-32019, 'long-term-storage-unreachable'],
]);

/** A capability limit of this node: a Solana capability code, or capability wording on a code providers use for limits. */
export function isCapabilityLimit(error: JsonRpcErrorObject): boolean {
  if (isExecutionRevert(error)) return false;
  if (SOLANA_CAPABILITY_CODES.has(error.code)) return true;
  return CAPABILITY_WORDING_CODES.has(error.code) && hasCapabilityWording(error.message);
}

/** Delay fields providers put in JSON-RPC error `data`, in seconds (or an HTTP-date). */
const DELAY_FIELDS = ['backoff_seconds', 'retry_after', 'retryAfter'] as const;

function readDelayField(data: unknown): unknown {
  // Infura nests its fields under `rate` (`data.rate.backoff_seconds`) as often as not.
  for (const fields of rateLimitFieldsOf(data)) {
    for (const field of DELAY_FIELDS) {
      if (Object.hasOwn(fields, field) && fields[field] !== null && fields[field] !== undefined) return fields[field];
    }
  }
  return undefined;
}

/**
 * The delay a provider asked for in JSON-RPC error `data` (`backoff_seconds` from
 * Infura, `retry_after`, `retryAfter`), in ms, capped at 60 000. Numbers are seconds;
 * strings are read like a `Retry-After` header.
 */
export function providerDelayFromErrorData(data: unknown, nowMs: number): number | undefined {
  const raw = readDelayField(data);
  if (typeof raw === 'number') return Number.isFinite(raw) ? clampProviderDelayMs(raw * 1000) : undefined;
  if (typeof raw === 'bigint') return clampProviderDelayMs(Number(raw) * 1000);
  if (typeof raw === 'string') return parseRetryAfter(raw, nowMs);
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
