/**
 * Stable error codes. Codes are only ever added — never renamed or removed — and a
 * snapshot test guards this list.
 */
export const TRANSPORT_ERROR_CODES = [
  'INVALID_CONFIG',
  'INVALID_INPUT',
  'NO_ENDPOINT',
  'DEADLINE_EXCEEDED',
  'ABORTED',
  'RATE_LIMITED',
  'RETRIES_EXHAUSTED',
  'AMBIGUOUS_DISPATCH',
  'RPC_ERROR',
  'INVALID_RESPONSE',
  'HTTP_ERROR',
  'POOL_CLOSED',
  'CHAIN_MISMATCH',
  'SUBSCRIPTION_FAILED',
  'SUBSCRIPTION_CLOSED',
  'SUBSCRIPTION_OVERFLOW',
  'LOG_RANGE_LIMIT',
  'LOAD_FAILED',
  'CONSENSUS_FAILED',
  'BUDGET_EXHAUSTED',
] as const;

export type TransportErrorCode = (typeof TRANSPORT_ERROR_CODES)[number];
