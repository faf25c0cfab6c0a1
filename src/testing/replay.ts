/**
 * Answering JSON-RPC request bodies from fixtures: choosing the fixture, substituting the
 * request id, batches, notifications and the standard errors. Pure (no Node APIs), shared
 * by the fixture server and the msw handlers so both answer identically.
 */
import { parseJsonExact, stringifyJson } from '../jsonrpc/exact-json.js';
import type { Fixture } from './fixtures.js';
import { replaceTopLevelId } from './json-id.js';

/** One JSON-RPC call read from a request body. */
export interface JsonRpcCall {
  /** `''` when the body was not JSON or the item had no string `method`. */
  readonly method: string;
  readonly params: unknown;
  /** The request id (`undefined` for a notification or an unreadable body). */
  readonly id: unknown;
  /** False for notifications (no `id` member): they get no answer. */
  readonly hasId: boolean;
  /** False when the item is not a valid JSON-RPC request object. */
  readonly valid: boolean;
}

/** A request body, read. */
export type ParsedRequestBody =
  | { readonly type: 'single'; readonly call: JsonRpcCall }
  | { readonly type: 'batch'; readonly calls: readonly JsonRpcCall[] }
  | { readonly type: 'parse-error' };

/** What to send back: status, headers (lower-case names) and the exact body text. */
export interface ReplayAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The fixture the answer came from, if any. */
  readonly fixture?: Fixture;
}

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' });
/** Headers describing the recorded transfer, not the body we send now. */
const TRANSFER_HEADERS = new Set(['content-length', 'transfer-encoding', 'content-encoding', 'connection', 'keep-alive']);

function toCall(item: unknown): JsonRpcCall {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    return { method: '', params: undefined, id: undefined, hasId: true, valid: false };
  }
  const record = item as Record<string, unknown>;
  const method = typeof record['method'] === 'string' ? record['method'] : '';
  return { method, params: record['params'], id: record['id'], hasId: 'id' in record, valid: method !== '' };
}

/** Reads a request body (exact integers kept). */
export function parseRequestBody(text: string): ParsedRequestBody {
  let value: unknown;
  try {
    value = parseJsonExact(text);
  } catch {
    return { type: 'parse-error' };
  }
  if (Array.isArray(value)) return { type: 'batch', calls: value.map(toCall) };
  return { type: 'single', call: toCall(value) };
}

/** Structural equality for parsed JSON values (`bigint`s included; object key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]));
}

/**
 * The fixture that answers `method`: among fixtures of that method, the first whose params
 * deep-equal `params`, else the first of that method; `undefined` when none has the method.
 */
export function selectFixture(fixtures: readonly Fixture[], method: string, params: unknown): Fixture | undefined {
  let first: Fixture | undefined;
  for (const fixture of fixtures) {
    if (fixture.request.method !== method) continue;
    if (jsonEqual(fixture.request.params, params ?? [])) return fixture;
    first ??= fixture;
  }
  return first;
}

/** The JSON text of a request id (`null` when absent). */
export function idJson(id: unknown): string {
  return id === undefined ? 'null' : stringifyJson(id);
}

/**
 * A fixture body with its top-level `"id": 1` replaced by the request's id. Bodies that are
 * not JSON objects or answer another id (a deliberate id-mismatch case) pass unchanged.
 */
export function withRequestId(body: string, id: unknown): string {
  return replaceTopLevelId(body, idJson(id), (current) => current === '1');
}

/** A JSON-RPC error body `{ jsonrpc, id, error: { code, message, data? } }`. */
export function errorBody(id: unknown, code: number, message: string, data?: unknown): string {
  const error = data === undefined ? { code, message } : { code, message, data };
  return `{"jsonrpc":"2.0","id":${idJson(id)},"error":${stringifyJson(error)}}`;
}

/** A JSON-RPC result body; `resultJson` is raw JSON text (keeps big integers exact). */
export function resultBody(id: unknown, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${idJson(id)},"result":${resultJson}}`;
}

/** An HTTP 200 JSON answer. */
export function jsonAnswer(body: string, status = 200): ReplayAnswer {
  return { status, headers: JSON_HEADERS, body };
}

/**
 * The answer to one call: the selected fixture's status, headers and body (id substituted),
 * or JSON-RPC -32601 "Method not found" (-32600 for an invalid request object).
 */
export function answerCall(fixtures: readonly Fixture[], call: JsonRpcCall): ReplayAnswer {
  if (!call.valid) return jsonAnswer(errorBody(call.id ?? null, -32600, 'Invalid Request'));
  const fixture = selectFixture(fixtures, call.method, call.params);
  if (fixture === undefined) return jsonAnswer(errorBody(call.id, -32601, 'Method not found'));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(fixture.response.headers)) {
    if (!TRANSFER_HEADERS.has(name)) headers[name] = value;
  }
  return { status: fixture.response.status, headers, body: withRequestId(fixture.response.body, call.id), fixture };
}

/** Whether `body` is one complete JSON object (usable as a batch item). */
function isJsonObjectText(body: string): boolean {
  if (!body.trimStart().startsWith('{')) return false;
  try {
    parseJsonExact(body);
    return true;
  } catch {
    return false;
  }
}

/**
 * The answer to a whole request body. Batches are answered per item with HTTP 200 and an
 * array of the items' bodies, in request order; an item whose fixture body is not a JSON
 * object (HTML, truncated, empty) becomes a -32603 item error naming the fixture.
 * Notifications get no item; a body of notifications only gets HTTP 204 with no body.
 *
 * @param answer answers one call (default: {@link answerCall} over `fixtures`); the
 *   fixture server passes one that applies its transforming behaviours.
 */
export function answerBody(
  parsed: ParsedRequestBody,
  answer: (call: JsonRpcCall) => ReplayAnswer,
): ReplayAnswer {
  if (parsed.type === 'parse-error') return jsonAnswer(errorBody(null, -32700, 'Parse error'));
  if (parsed.type === 'single') {
    if (!parsed.call.hasId && parsed.call.valid) return { status: 204, headers: {}, body: '' };
    return answer(parsed.call);
  }
  if (parsed.calls.length === 0) return jsonAnswer(errorBody(null, -32600, 'Invalid Request'));
  const items: string[] = [];
  for (const call of parsed.calls) {
    if (!call.hasId && call.valid) continue;
    const item = answer(call);
    if (isJsonObjectText(item.body)) items.push(item.body);
    else items.push(errorBody(call.id, -32603, `fixture ${item.fixture?.name ?? '(none)'} has no JSON-RPC body (HTTP ${item.status})`));
  }
  if (items.length === 0) return { status: 204, headers: {}, body: '' };
  return jsonAnswer(`[${items.join(',')}]`);
}

/** Every call of a parsed body (one for a single request, none for a parse error). */
export function callsOf(parsed: ParsedRequestBody): readonly JsonRpcCall[] {
  if (parsed.type === 'single') return [parsed.call];
  if (parsed.type === 'batch') return parsed.calls;
  return [];
}
