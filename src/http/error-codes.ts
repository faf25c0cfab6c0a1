import type { ExecutorErrorKind, RawOutcome } from './executor.js';

/**
 * Node/undici error codes that executors map to failure kinds. Only connect-phase codes
 * prove that a request never left; socket codes say nothing about it on their own.
 */
export const CONNECT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'ENETUNREACH',
  'EHOSTUNREACH',
]);
/**
 * The connect-phase codes that prove nothing was written even without a dispatch flag (what
 * the fetch executor relies on). `ENETUNREACH`/`EHOSTUNREACH` are not among them: Linux also
 * reports them on an established socket whose path died after a request was written.
 */
export const PROVEN_UNSENT_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);
export const SOCKET_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE', 'ETIMEDOUT']);

export type ErrorOutcome = Extract<RawOutcome, { type: 'error' }>;

/** The `code` string of an error-like value, if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code: unknown = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** An executor error outcome (exactOptionalPropertyTypes: absent fields are left out, never set to undefined). */
export function failure(kind: ExecutorErrorKind, dispatched: boolean, status?: number, code?: string, error?: unknown): ErrorOutcome {
  return {
    type: 'error', kind, dispatched,
    ...(status !== undefined ? { status } : {}),
    ...(code !== undefined ? { code } : {}),
    ...(error !== undefined ? { error } : {}),
  };
}
