/**
 * JSON-RPC 2.0 envelopes: building one request body and reading one response body.
 * Reading is on the hot path, so the envelope is hand-checked; zod only validates the
 * error object, which is off the success path. Structural violations are reported by
 * name so the classifier can map each one (a PATH gateway heuristic list, REFERENCE.md).
 */
import * as z from 'zod/mini';
import { parseJsonExact, stringifyJson } from './exact-json.js';

/** Why a response body is not a usable JSON-RPC response to our single request. */
export type EnvelopeViolation =
  | 'empty'
  | 'html'
  | 'truncated'
  | 'not-json'
  | 'not-an-object'
  | 'batch-where-single'
  | 'both-result-and-error'
  | 'neither'
  | 'id-mismatch'
  | 'id-null'
  /** `error` present but not an object with an integer `code`. */
  | 'malformed-error';

export interface JsonRpcErrorObject {
  readonly code: number;
  /** `''` when the node sent none. */
  readonly message: string;
  readonly data?: unknown;
}

export type ResponseEnvelope =
  | { readonly type: 'result'; readonly result: unknown }
  | {
      readonly type: 'error';
      readonly error: JsonRpcErrorObject;
      /**
       * The error came with `id: null` (or none). JSON-RPC allows this when the server
       * could not read the id; gateways also answer rate limits this way.
       */
      readonly idNull: boolean;
    }
  | { readonly type: 'violation'; readonly reason: EnvelopeViolation };

/**
 * Serializes one request. `id` is the pool's monotonically increasing integer;
 * `params` may hold `bigint`s (written as JSON integers) and is omitted when undefined.
 *
 * @throws TypeError for a non-integer id or params that are not JSON-representable.
 */
export function buildRequestBody(id: number, method: string, params?: unknown): string {
  return createRequestBody(method, params)(id);
}

/**
 * Serializes method and params once and returns a writer of the body for a given id, so
 * retries (each with a fresh id) do not serialize the params again.
 *
 * @throws TypeError when params are not JSON-representable (at creation, before any send).
 */
export function createRequestBody(method: string, params?: unknown): RequestBodyWriter {
  const tail = `,"method":${JSON.stringify(method)}${params === undefined ? '' : `,"params":${stringifyJson(params)}`}}`;
  const write = (id: number) => {
    if (!Number.isSafeInteger(id) || id < 0) {
      throw new TypeError('JSON-RPC id must be a non-negative safe integer');
    }
    return `{"jsonrpc":"2.0","id":${id}${tail}`;
  };
  (write as { tail?: string }).tail = tail;
  return write as RequestBodyWriter;
}

/** Writes one request's body for a given id; `tail` is everything after the id (method and params), the same for every id. */
export interface RequestBodyWriter {
  (id: number): string;
  readonly tail: string;
}

const errorObjectSchema = z.object({
  code: z.int(),
  // A message that is not a string reads as none. Not `z.catch`: zod/mini reaches its util
  // namespace through it, which puts all of zod's util module in a browser bundle.
  message: z.optional(z.unknown()),
  data: z.optional(z.unknown()),
});

const violation = (reason: EnvelopeViolation): ResponseEnvelope => ({ type: 'violation', reason });

/**
 * Reads one response body for the request with id `expectedId`. Integers above 2^53 in
 * the result come back as exact `bigint`s.
 */
export function parseResponseEnvelope(text: string, expectedId: number): ResponseEnvelope {
  const start = firstNonWhitespace(text);
  if (start === text.length) return violation('empty');
  const first = text.charCodeAt(start);
  if (first === LT) return violation('html');

  let parsed: unknown;
  try {
    // A UTF-8 byte-order mark is not JSON whitespace; tolerate it.
    parsed = parseJsonExact(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return violation((first === LBRACE || first === LBRACKET) && isTruncated(text, start) ? 'truncated' : 'not-json');
  }
  if (Array.isArray(parsed)) return violation('batch-where-single');
  return readResponseObject(parsed, expectedId);
}

/**
 * Reads one parsed response object (a whole body, or one element of a batch answer) for
 * the request with id `expectedId`.
 */
export function readResponseObject(parsed: unknown, expectedId: number): ResponseEnvelope {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return violation('not-an-object');
  const body = parsed as Record<string, unknown>;

  // `error: null` next to a result is a common non-conformance, not an error.
  const hasError = Object.hasOwn(body, 'error') && body['error'] !== null;
  const hasResult = Object.hasOwn(body, 'result');
  const id = body['id'];
  const idIsNull = id === null || id === undefined;
  const idMatches = id === expectedId || id === String(expectedId);

  if (hasError) {
    // JSON-RPC 1.0 style `result: null` beside an error: read it as the error.
    if (hasResult && body['result'] !== null) return violation('both-result-and-error');
    if (!idIsNull && !idMatches) return violation('id-mismatch');
    const checked = errorObjectSchema.safeParse(body['error']);
    if (!checked.success) return violation('malformed-error');
    const { code, data } = checked.data;
    const message = typeof checked.data.message === 'string' ? checked.data.message : '';
    const error: JsonRpcErrorObject = data === undefined ? { code, message } : { code, message, data };
    return { type: 'error', error, idNull: idIsNull };
  }
  if (!hasResult) return violation('neither');
  if (idIsNull) return violation('id-null');
  if (!idMatches) return violation('id-mismatch');
  return { type: 'result', result: body['result'] };
}

const LT = 0x3c;
const LBRACE = 0x7b;
const LBRACKET = 0x5b;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function firstNonWhitespace(text: string): number {
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09 && c !== 0xfeff) break;
    i++;
  }
  return i;
}

/**
 * A body that failed to parse is "truncated" when it ends inside a string or with
 * brackets still open: the JSON was cut off (a dropped connection, a proxy limit), as
 * opposed to text that was never JSON.
 */
function isTruncated(text: string, start: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === LBRACE || c === LBRACKET) {
      depth++;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return inString || depth > 0;
}
