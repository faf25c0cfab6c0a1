import { Buffer, constants as bufferConstants } from 'node:buffer';
import { promisify } from 'node:util';
import * as zlib from 'node:zlib';
import type { RawOutcome } from './executor.js';
import { errorCode, failure } from './error-codes.js';

/**
 * Decoding of a fully read response body: content codings (gzip, deflate, br) undone
 * within the size bound, then UTF-8 text. Node-only (zlib); used by the undici executor.
 */

const MAX_BUFFER = bufferConstants.MAX_LENGTH;
const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);
const brotliDecompress = promisify(zlib.brotliDecompress);

/** A response whose raw body has been read in full, before decoding. */
export interface RawResponse {
  readonly type: 'raw';
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

export function decodeResponse(raw: RawResponse, maxBytes: number): RawOutcome | Promise<RawOutcome> {
  const encoding = raw.headers['content-encoding'];
  // The common case: no content coding, no await, no decoder object.
  if (encoding === undefined || encoding === 'identity') {
    return { type: 'response', status: raw.status, headers: raw.headers, body: utf8(raw.body) };
  }
  return decodeEncodedResponse(raw, encoding, maxBytes);
}

async function decodeEncodedResponse(raw: RawResponse, encoding: string, maxBytes: number): Promise<RawOutcome> {
  let body = raw.body;
  const codings = encoding
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (body.length > 0) {
    const maxOutputLength = Math.max(1, Math.min(maxBytes, MAX_BUFFER));
    try {
      // Codings are listed in the order applied, so undo them from the last.
      for (const coding of codings.reverse()) body = await decodeOne(coding, body, maxOutputLength);
    } catch (error) {
      const code = errorCode(error);
      const kind = code === 'ERR_BUFFER_TOO_LARGE' ? 'too-large' : 'decode';
      return failure(kind, true, raw.status, code, error);
    }
    if (body.length > maxBytes) return failure('too-large', true, raw.status, undefined);
  }
  return { type: 'response', status: raw.status, headers: raw.headers, body: utf8(body) };
}

/** UTF-8 text without a byte-order mark (as TextDecoder would give, without creating one per call). */
function utf8(body: Buffer): string {
  const bom = body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf;
  return body.toString('utf8', bom ? 3 : 0);
}

function decodeOne(coding: string, body: Buffer, maxOutputLength: number): Promise<Buffer> {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return gunzip(body, { maxOutputLength });
    case 'deflate':
      // Some servers send raw deflate instead of the zlib wrapper (low nibble 8 = zlib header).
      return ((body[0] ?? 0) & 0x0f) === 8 ? inflate(body, { maxOutputLength }) : inflateRaw(body, { maxOutputLength });
    case 'br':
      return brotliDecompress(body, { maxOutputLength });
    default:
      return Promise.reject(new Error('unsupported content-encoding'));
  }
}
