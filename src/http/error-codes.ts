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
export const SOCKET_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE', 'ETIMEDOUT']);
