import { isTransportError } from '../errors/transport-error.js';

/** A failed call, described for a person. */
export interface CallFailure {
  /** The node gave a JSON-RPC answer (an error object): it is reachable. */
  readonly answered: boolean;
  /** Nothing listens there or the name does not resolve: asking again is pointless. */
  readonly dead: boolean;
  /** One line, never containing a URL: built from codes, causes and statuses only. */
  readonly text: string;
}

const MAX_CAUSE_DEPTH = 8;

/** Well-known system/undici error codes in the cause chain (fixed strings, safe to print). */
function systemCodeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null; depth++) {
    const code: unknown = Reflect.get(current, 'code');
    if (typeof code === 'string' && /^(E[A-Z_]+|UND_ERR_[A-Z_]+)$/.test(code)) return code;
    current = Reflect.get(current, 'cause');
  }
  return undefined;
}

function oneLine(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * Describes why a call failed without formatting any underlying error message (those of
 * sockets and DNS name the host): connection refused, DNS lookup failed, timed out, HTTP
 * status, rate limited, not a JSON-RPC answer, or the node's JSON-RPC error (already
 * redacted by the pool).
 */
export function describeCallFailure(error: unknown): CallFailure {
  if (!isTransportError(error)) return { answered: false, dead: false, text: 'unexpected failure' };
  if (error.code === 'RPC_ERROR') {
    const message = error.rpcMessage === undefined || error.rpcMessage === '' ? '' : ` (${oneLine(error.rpcMessage)})`;
    return { answered: true, dead: false, text: `JSON-RPC error ${error.rpcCode ?? '?'}${message}` };
  }
  const last = error.attempts.at(-1);
  const status = last?.status;
  const system = systemCodeOf(error);
  if (error.code === 'DEADLINE_EXCEEDED' || last?.cause === 'timeout') {
    return { answered: false, dead: true, text: 'timed out' };
  }
  switch (last?.cause) {
    case 'connection':
      if (system === 'ECONNREFUSED') return { answered: false, dead: true, text: 'connection refused (ECONNREFUSED)' };
      if (system === 'ENOTFOUND' || system === 'EAI_AGAIN') return { answered: false, dead: true, text: `DNS lookup failed (${system})` };
      // Not written: refused, DNS or connect timeout. Written and then lost: a reset.
      return last.dispatch === 'not-dispatched'
        ? { answered: false, dead: true, text: `could not connect${system === undefined ? '' : ` (${system})`}` }
        : { answered: false, dead: false, text: `connection lost${system === undefined ? '' : ` (${system})`}` };
    case 'rate-limited':
      return { answered: false, dead: false, text: `rate limited${status === undefined ? '' : ` (HTTP ${status})`}` };
    case 'temporary-http':
    case 'endpoint-rejected':
      return { answered: false, dead: false, text: `HTTP ${status ?? 'error'}` };
    case 'invalid-response':
      return { answered: false, dead: false, text: `not a valid JSON-RPC answer${status === undefined ? '' : ` (HTTP ${status})`}` };
    default:
      break;
  }
  if (error.code === 'INVALID_RESPONSE') return { answered: false, dead: false, text: 'not a valid JSON-RPC answer' };
  if (error.code === 'HTTP_ERROR') return { answered: false, dead: false, text: `HTTP ${status ?? 'error'}` };
  return { answered: false, dead: false, text: `${error.code}${last?.cause === undefined ? '' : ` (${last.cause})`}` };
}
