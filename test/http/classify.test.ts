import { describe, expect, it } from 'vitest';
import { classifyOutcome, RULES } from '../../src/http/classify.js';
import type { RawOutcome } from '../../src/http/executor.js';
import type { AbortReason, ClassifiedFailure, ClassifyContext } from '../../src/http/outcome.js';

const NOW = Date.UTC(2025, 0, 1, 0, 0, 0);
const ctx = (over: Partial<ClassifyContext> = {}): ClassifyContext => ({
  method: 'getBalance',
  id: 1,
  abortReason: undefined,
  wallNowMs: NOW,
  ...over,
});

const response = (status: number, body: string, headers: Record<string, string> = {}): RawOutcome => ({
  type: 'response',
  status,
  headers,
  body,
});
const transport = (kind: Extract<RawOutcome, { type: 'error' }>['kind'], dispatched: boolean, code?: string): RawOutcome =>
  code === undefined ? { type: 'error', kind, dispatched } : { type: 'error', kind, dispatched, code };
const rpcError = (code: number, message: string, data?: unknown, id: number | null = 1): string =>
  JSON.stringify({ jsonrpc: '2.0', error: data === undefined ? { code, message } : { code, message, data }, id });
const result = (value: unknown, id = 1): string => JSON.stringify({ jsonrpc: '2.0', result: value, id });

type Expected = Pick<ClassifiedFailure, 'cause' | 'dispatch' | 'signal' | 'breakerFailure'> &
  Partial<Pick<ClassifiedFailure, 'protocolViolation' | 'providerDelayMs' | 'rpcCode' | 'detail'>>;

interface Row {
  readonly name: string;
  readonly raw: RawOutcome;
  readonly ctx?: Partial<ClassifyContext>;
  readonly expected: Expected;
}

const abort = (reason: AbortReason): Partial<ClassifyContext> => ({ abortReason: reason });

const ROWS: readonly Row[] = [
  // ── transport errors ────────────────────────────────────────────────────────
  { name: 'connect error (refused/DNS/TLS) is a connection failure never written',
    raw: transport('connect', false, 'ECONNREFUSED'),
    expected: { cause: 'connection', dispatch: 'not-dispatched', signal: 'major', breakerFailure: true } },
  { name: 'socket reset after the request was written is ambiguous',
    raw: transport('socket', true, 'ECONNRESET'),
    expected: { cause: 'connection', dispatch: 'dispatched-ambiguous', signal: 'major', breakerFailure: true } },
  { name: 'socket closed before our bytes went out (keep-alive race) is not dispatched and benign',
    raw: transport('socket', false, 'UND_ERR_SOCKET'),
    expected: { cause: 'connection', dispatch: 'not-dispatched', signal: 'minor', breakerFailure: false } },
  { name: 'caller abort after write is aborted, no fault',
    raw: transport('aborted', true), ctx: abort('caller'),
    expected: { cause: 'aborted', dispatch: 'dispatched-ambiguous', signal: 'none', breakerFailure: false } },
  { name: 'caller abort before write is aborted, not dispatched',
    raw: transport('aborted', false), ctx: abort('caller'),
    expected: { cause: 'aborted', dispatch: 'not-dispatched', signal: 'none', breakerFailure: false } },
  { name: 'caller abort wins over the socket error it caused',
    raw: transport('socket', true, 'UND_ERR_ABORTED'), ctx: abort('caller'),
    expected: { cause: 'aborted', dispatch: 'dispatched-ambiguous', signal: 'none', breakerFailure: false } },
  { name: 'our overall deadline cutting a written attempt is a no-fault timeout',
    raw: transport('aborted', true), ctx: abort('deadline'),
    expected: { cause: 'timeout', dispatch: 'dispatched-ambiguous', signal: 'none', breakerFailure: false } },
  { name: 'our overall deadline cutting a connect is a no-fault timeout, not dispatched',
    raw: transport('aborted', false), ctx: abort('deadline'),
    expected: { cause: 'timeout', dispatch: 'not-dispatched', signal: 'none', breakerFailure: false } },
  { name: "the endpoint's own requestTimeoutMs passing is a critical timeout",
    raw: transport('aborted', true), ctx: abort('attempt-timeout'),
    expected: { cause: 'timeout', dispatch: 'dispatched-ambiguous', signal: 'critical', breakerFailure: true } },
  { name: 'an abort the pool did not ask for is a connection failure',
    raw: transport('aborted', true),
    expected: { cause: 'connection', dispatch: 'dispatched-ambiguous', signal: 'major', breakerFailure: true } },
  { name: 'headers timeout (undici) is a critical, ambiguous timeout',
    raw: transport('other', true, 'UND_ERR_HEADERS_TIMEOUT'),
    expected: { cause: 'timeout', dispatch: 'dispatched-ambiguous', signal: 'critical', breakerFailure: true } },
  { name: 'an unknown executor error keeps the dispatched flag',
    raw: transport('other', false, 'EPIPE'),
    expected: { cause: 'connection', dispatch: 'not-dispatched', signal: 'major', breakerFailure: true } },
  { name: 'a body over maxResponseBytes is an ambiguous invalid response',
    raw: transport('too-large', true),
    expected: { cause: 'invalid-response', dispatch: 'dispatched-ambiguous', signal: 'major', breakerFailure: false } },
  { name: 'an undecodable body is an ambiguous invalid response',
    raw: transport('decode', true),
    expected: { cause: 'invalid-response', dispatch: 'dispatched-ambiguous', signal: 'critical', breakerFailure: true } },

  // ── HTTP status ─────────────────────────────────────────────────────────────
  { name: 'HTTP 429 without body or Retry-After is a rejected rate limit',
    raw: response(429, ''),
    expected: { cause: 'rate-limited', dispatch: 'rejected', signal: 'minor', breakerFailure: false, providerDelayMs: undefined } },
  { name: 'HTTP 429 with Retry-After seconds carries the delay',
    raw: response(429, 'Too Many Requests', { 'retry-after': '7' }),
    expected: { cause: 'rate-limited', dispatch: 'rejected', signal: 'minor', breakerFailure: false, providerDelayMs: 7_000 } },
  { name: 'HTTP 429 with a Retry-After HTTP-date carries the delay',
    raw: response(429, '', { 'retry-after': 'Wed, 01 Jan 2025 00:00:12 GMT' }),
    expected: { cause: 'rate-limited', dispatch: 'rejected', signal: 'minor', breakerFailure: false, providerDelayMs: 12_000 } },
  { name: 'HTTP 429 Retry-After is capped at 60 s',
    raw: response(429, '', { 'retry-after': '86400' }),
    expected: { cause: 'rate-limited', dispatch: 'rejected', signal: 'minor', breakerFailure: false, providerDelayMs: 60_000 } },
  { name: 'QuickNode HTTP 429 with a {code:429} JSON-RPC body',
    raw: response(429, rpcError(429, 'Too Many Requests')),
    expected: { cause: 'rate-limited', dispatch: 'rejected', signal: 'minor', breakerFailure: false, rpcCode: 429, providerDelayMs: undefined } },
  { name: 'Infura HTTP 429 with -32005 and data.backoff_seconds',
    raw: response(429, rpcError(-32005, 'project ID request rate exceeded', { see: 'https://infura.io/dashboard', current_rps: 13.3, allowed_rps: 10, backoff_seconds: 30 })),
    expected: { cause: 'rate-limited', dispatch: 'rejected', signal: 'minor', breakerFailure: false, rpcCode: -32005, providerDelayMs: 30_000 } },
  { name: 'HTTP 429 prefers Retry-After over body data',
    raw: response(429, rpcError(-32005, 'rate exceeded', { backoff_seconds: 30 }), { 'retry-after': '2' }),
    expected: { cause: 'rate-limited', dispatch: 'rejected', signal: 'minor', breakerFailure: false, providerDelayMs: 2_000 } },
  { name: 'HTTP 401 is a fatal endpoint rejection that never trips the breaker',
    raw: response(401, 'Unauthorized'),
    expected: { cause: 'endpoint-rejected', dispatch: 'rejected', signal: 'fatal', breakerFailure: false } },
  { name: 'HTTP 403 (public RPC blocking the IP) is a fatal endpoint rejection',
    raw: response(403, '<html>Forbidden</html>'),
    expected: { cause: 'endpoint-rejected', dispatch: 'rejected', signal: 'fatal', breakerFailure: false } },
  { name: 'HTTP 403 for one method outside the plan is a capability limit',
    raw: response(403, rpcError(-32601, 'method not available on your plan')),
    expected: { cause: 'capability', dispatch: 'rejected', signal: 'none', breakerFailure: false } },
  { name: 'HTTP 403 with a capability-limit JSON-RPC body is a capability limit',
    raw: response(403, rpcError(-32000, 'this api is not supported on your plan')),
    expected: { cause: 'capability', dispatch: 'completed', signal: 'none', breakerFailure: false } },
  { name: 'HTTP 403 whose body says rate limit is a rate limit',
    raw: response(403, rpcError(-32005, 'daily request count exceeded, request rate limited'), { 'retry-after': '5' }),
    expected: { cause: 'rate-limited', dispatch: 'rejected', signal: 'minor', breakerFailure: false, providerDelayMs: 5_000 } },
  { name: 'HTTP 408 is a rejected timeout',
    raw: response(408, ''),
    expected: { cause: 'timeout', dispatch: 'rejected', signal: 'minor', breakerFailure: false } },
  { name: 'HTTP 404 is a rejected endpoint',
    raw: response(404, 'Not Found'),
    expected: { cause: 'endpoint-rejected', dispatch: 'rejected', signal: 'major', breakerFailure: false } },
  { name: 'HTTP 405 is a rejected endpoint',
    raw: response(405, ''),
    expected: { cause: 'endpoint-rejected', dispatch: 'rejected', signal: 'major', breakerFailure: false } },
  { name: 'HTTP 413 is our request being too large: no penalty',
    raw: response(413, 'Payload Too Large'),
    expected: { cause: 'request', dispatch: 'rejected', signal: 'none', breakerFailure: false } },
  { name: 'HTTP 400 with a JSON-RPC invalid-params error is that error',
    raw: response(400, rpcError(-32602, 'invalid params')),
    expected: { cause: 'rpc-application', dispatch: 'completed', signal: 'none', breakerFailure: false, rpcCode: -32602 } },
  { name: 'HTTP 400 without a JSON-RPC body is a rejected endpoint',
    raw: response(400, 'Bad Request'),
    expected: { cause: 'endpoint-rejected', dispatch: 'rejected', signal: 'major', breakerFailure: false } },
  { name: 'HTTP 500 is an ambiguous temporary failure',
    raw: response(500, 'Internal Server Error'),
    expected: { cause: 'temporary-http', dispatch: 'dispatched-ambiguous', signal: 'major', breakerFailure: true } },
  { name: 'HTTP 500 echoing our id with a JSON-RPC error is that error',
    raw: response(500, rpcError(-32000, 'nonce too low')),
    expected: { cause: 'rpc-application', dispatch: 'completed', signal: 'none', breakerFailure: false } },
  { name: 'HTTP 500 with an id-less JSON-RPC error stays an ambiguous temporary failure',
    raw: response(500, rpcError(-32603, 'internal error', undefined, null)),
    expected: { cause: 'temporary-http', dispatch: 'dispatched-ambiguous', signal: 'major', breakerFailure: true } },
  { name: 'HTML 502 page is an ambiguous temporary failure',
    raw: response(502, '<html><head><title>502 Bad Gateway</title></head></html>'),
    expected: { cause: 'temporary-http', dispatch: 'dispatched-ambiguous', signal: 'major', breakerFailure: true, detail: 'http-5xx' } },
  { name: 'HTTP 504 is an ambiguous temporary failure',
    raw: response(504, ''),
    expected: { cause: 'temporary-http', dispatch: 'dispatched-ambiguous', signal: 'major', breakerFailure: true } },
  { name: 'HTTP 503 without Retry-After is ambiguous',
    raw: response(503, 'Service Unavailable'),
    expected: { cause: 'temporary-http', dispatch: 'dispatched-ambiguous', signal: 'major', breakerFailure: true, providerDelayMs: undefined } },
  { name: 'HTTP 503 with Retry-After was refused, and carries the delay',
    raw: response(503, '', { 'retry-after': '3' }),
    expected: { cause: 'temporary-http', dispatch: 'rejected', signal: 'major', breakerFailure: true, providerDelayMs: 3_000 } },
  { name: 'HTTP 503 saying "too many requests" is a rate limit',
    raw: response(503, 'Too many requests, slow down'),
    expected: { cause: 'rate-limited', dispatch: 'rejected', signal: 'minor', breakerFailure: false } },
  { name: 'HTTP 302 redirect is a rejected endpoint',
    raw: response(302, '', { location: 'elsewhere' }),
    expected: { cause: 'endpoint-rejected', dispatch: 'rejected', signal: 'major', breakerFailure: false } },

  // ── 2xx bodies that are not an answer ───────────────────────────────────────
  { name: 'HTML 502 page served with status 200 (CDN)',
    raw: response(200, '<!DOCTYPE html><html><title>502 Bad Gateway</title></html>'),
    expected: { cause: 'invalid-response', dispatch: 'dispatched-ambiguous', signal: 'critical', breakerFailure: true, protocolViolation: false, detail: 'html' } },
  { name: 'empty 200 body is a protocol violation',
    raw: response(200, ''),
    expected: { cause: 'invalid-response', dispatch: 'dispatched-ambiguous', signal: 'critical', breakerFailure: true, protocolViolation: true, detail: 'empty' } },
  { name: 'truncated JSON',
    raw: response(200, '{"jsonrpc":"2.0","result":{"context":{"slot":1},"val'),
    expected: { cause: 'invalid-response', dispatch: 'dispatched-ambiguous', signal: 'critical', breakerFailure: true, protocolViolation: false, detail: 'truncated' } },
  { name: 'plain text that is not JSON',
    raw: response(200, 'upstream returned garbage'),
    expected: { cause: 'invalid-response', dispatch: 'dispatched-ambiguous', signal: 'critical', breakerFailure: true, protocolViolation: true, detail: 'not-json' } },
  { name: 'plain-text "invalid api key" with 200 is a fatal endpoint rejection',
    raw: response(200, 'invalid api key'),
    expected: { cause: 'endpoint-rejected', dispatch: 'rejected', signal: 'fatal', breakerFailure: false } },
  { name: 'plain-text rate limit with 200 is a rate limit',
    raw: response(200, 'Rate limit exceeded'),
    expected: { cause: 'rate-limited', dispatch: 'rejected', signal: 'minor', breakerFailure: false } },
  { name: 'both result and error',
    raw: response(200, '{"jsonrpc":"2.0","result":1,"error":{"code":-32000,"message":"x"},"id":1}'),
    expected: { cause: 'invalid-response', dispatch: 'dispatched-ambiguous', signal: 'critical', breakerFailure: true, protocolViolation: true } },
  { name: 'neither result nor error',
    raw: response(200, '{"jsonrpc":"2.0","id":1}'),
    expected: { cause: 'invalid-response', dispatch: 'dispatched-ambiguous', signal: 'critical', breakerFailure: true, protocolViolation: true } },
  { name: 'id mismatch (a response meant for another request)',
    raw: response(200, result(5, 2)),
    expected: { cause: 'invalid-response', dispatch: 'dispatched-ambiguous', signal: 'critical', breakerFailure: true, protocolViolation: true, detail: 'id-mismatch' } },
  { name: 'result with id null',
    raw: response(200, '{"jsonrpc":"2.0","result":5,"id":null}'),
    expected: { cause: 'invalid-response', dispatch: 'dispatched-ambiguous', signal: 'critical', breakerFailure: true, protocolViolation: true } },
  { name: 'a batch answer to a single request',
    raw: response(200, `[${result(5)}]`),
    expected: { cause: 'invalid-response', dispatch: 'dispatched-ambiguous', signal: 'critical', breakerFailure: true, protocolViolation: true } },
  { name: '`result: {}` for getBalance, which never answers empty',
    raw: response(200, result({})),
    expected: { cause: 'invalid-response', dispatch: 'dispatched-ambiguous', signal: 'critical', breakerFailure: true, protocolViolation: true, detail: 'empty-result' } },
  { name: '`result: null` for eth_blockNumber',
    raw: response(200, result(null)), ctx: { method: 'eth_blockNumber' },
    expected: { cause: 'invalid-response', dispatch: 'dispatched-ambiguous', signal: 'critical', breakerFailure: true, protocolViolation: true } },
  { name: '`result: []` for eth_chainId',
    raw: response(200, result([])), ctx: { method: 'eth_chainId' },
    expected: { cause: 'invalid-response', dispatch: 'dispatched-ambiguous', signal: 'critical', breakerFailure: true, protocolViolation: true } },

  // ── JSON-RPC errors ─────────────────────────────────────────────────────────
  { name: 'invalid params is the application\'s answer',
    raw: response(200, rpcError(-32602, 'Invalid params: invalid type')),
    expected: { cause: 'rpc-application', dispatch: 'completed', signal: 'none', breakerFailure: false, rpcCode: -32602, providerDelayMs: undefined } },
  { name: 'execution reverted is the application\'s answer, whatever the reason says',
    raw: response(200, rpcError(3, 'execution reverted: rate limit', '0x08c379a0')), ctx: { method: 'eth_call' },
    expected: { cause: 'rpc-application', dispatch: 'completed', signal: 'none', breakerFailure: false, rpcCode: 3 } },
  { name: 'Solana preflight failure is the application\'s answer',
    raw: response(200, rpcError(-32002, 'Transaction simulation failed: Blockhash not found', { err: 'BlockhashNotFound' })), ctx: { method: 'sendTransaction' },
    expected: { cause: 'rpc-application', dispatch: 'completed', signal: 'none', breakerFailure: false } },
  { name: 'method not found is a capability limit the node refused',
    raw: response(200, rpcError(-32601, 'the method debug_traceCall does not exist/is not available')), ctx: { method: 'debug_traceCall' },
    expected: { cause: 'capability', dispatch: 'rejected', signal: 'none', breakerFailure: false } },
  { name: 'invalid request is our request, refused',
    raw: response(200, rpcError(-32600, 'Invalid request', undefined, null)),
    expected: { cause: 'request', dispatch: 'rejected', signal: 'none', breakerFailure: false } },
  { name: 'Infura -32005 rate limit with backoff_seconds in a 200',
    raw: response(200, rpcError(-32005, 'project ID request rate exceeded', { backoff_seconds: 30 })),
    expected: { cause: 'rate-limited', dispatch: 'rejected', signal: 'minor', breakerFailure: false, providerDelayMs: 30_000 } },
  { name: 'code -32429 rate limit',
    raw: response(200, rpcError(-32429, 'slow down')),
    expected: { cause: 'rate-limited', dispatch: 'rejected', signal: 'minor', breakerFailure: false, providerDelayMs: undefined } },
  { name: 'any code with rate-limit wording, id null, retry_after data',
    raw: response(200, rpcError(-32000, 'Too many requests', { retry_after: 4 }, null)),
    expected: { cause: 'rate-limited', dispatch: 'rejected', signal: 'minor', breakerFailure: false, providerDelayMs: 4_000 } },
  { name: 'a JSON-RPC rate limit in a 200 still honours a Retry-After header',
    raw: response(200, rpcError(429, 'rate limited'), { 'retry-after': '9' }),
    expected: { cause: 'rate-limited', dispatch: 'rejected', signal: 'minor', breakerFailure: false, providerDelayMs: 9_000 } },
  { name: 'Solana node behind by 42 slots refuses the request',
    raw: response(200, rpcError(-32005, 'Node is behind by 42 slots', { numSlotsBehind: 42 })),
    expected: { cause: 'endpoint-rejected', dispatch: 'rejected', signal: 'major', breakerFailure: true, rpcCode: -32005, providerDelayMs: undefined } },
  { name: 'Solana node unhealthy (numSlotsBehind null) refuses the request',
    raw: response(200, rpcError(-32005, 'Node is unhealthy', { numSlotsBehind: null })), ctx: { method: 'getHealth' },
    expected: { cause: 'endpoint-rejected', dispatch: 'rejected', signal: 'major', breakerFailure: true } },
  { name: 'Solana -32010 secondary index exclusion is a capability limit',
    raw: response(200, rpcError(-32010, 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA excluded from account secondary indexes; this RPC method unavailable for key')),
    ctx: { method: 'getTokenAccountsByOwner' },
    expected: { cause: 'capability', dispatch: 'completed', signal: 'none', breakerFailure: false, rpcCode: -32010 } },
  { name: 'Solana -32004 block not available is a capability limit',
    raw: response(200, rpcError(-32004, 'Block not available for slot 1234')), ctx: { method: 'getBlock' },
    expected: { cause: 'capability', dispatch: 'completed', signal: 'none', breakerFailure: false } },
  { name: 'Solana -32009 missing in long-term storage is a capability limit',
    raw: response(200, rpcError(-32009, 'Slot 1234 was skipped, or missing in long-term storage')), ctx: { method: 'getBlock' },
    expected: { cause: 'capability', dispatch: 'completed', signal: 'none', breakerFailure: false } },
  { name: 'Solana -32007 slot skipped is the chain\'s answer',
    raw: response(200, rpcError(-32007, 'Slot 1234 was skipped, or missing due to ledger jump to recent snapshot')), ctx: { method: 'getBlock' },
    expected: { cause: 'rpc-application', dispatch: 'completed', signal: 'none', breakerFailure: false } },
  { name: 'Solana -32016 min context slot not reached: refused, try a node further ahead',
    raw: response(200, rpcError(-32016, 'Minimum context slot has not been reached', { contextSlot: 100 })),
    expected: { cause: 'capability', dispatch: 'rejected', signal: 'none', breakerFailure: false } },
  { name: 'geth missing trie node is a capability limit',
    raw: response(200, rpcError(-32000, 'missing trie node 1b2c3d (path ) state 0x… is not available')), ctx: { method: 'eth_getBalance' },
    expected: { cause: 'capability', dispatch: 'completed', signal: 'none', breakerFailure: false } },
  { name: 'header not found is a capability limit',
    raw: response(200, rpcError(-32000, 'header not found')), ctx: { method: 'eth_getBalance' },
    expected: { cause: 'capability', dispatch: 'completed', signal: 'none', breakerFailure: false } },
  { name: 'Infura -32005 log limit is a capability limit, not a rate limit',
    raw: response(200, rpcError(-32005, 'query returned more than 10000 results')), ctx: { method: 'eth_getLogs' },
    expected: { cause: 'capability', dispatch: 'completed', signal: 'none', breakerFailure: false } },
  { name: 'fabricated -32700 parse error is a protocol violation',
    raw: response(200, rpcError(-32700, 'Parse error', undefined, null)),
    expected: { cause: 'invalid-response', dispatch: 'dispatched-ambiguous', signal: 'critical', breakerFailure: true, protocolViolation: true } },
  { name: '-32603 wrapping an upstream failure is an ambiguous temporary failure',
    raw: response(200, rpcError(-32603, 'upstream connect error or disconnect/reset before headers. reset reason: connection failure')),
    expected: { cause: 'temporary-http', dispatch: 'dispatched-ambiguous', signal: 'major', breakerFailure: true } },
  { name: 'plain -32603 internal error is the node\'s answer',
    raw: response(200, rpcError(-32603, 'Internal error')),
    expected: { cause: 'rpc-application', dispatch: 'completed', signal: 'none', breakerFailure: false } },
  { name: 'auth wording in a JSON-RPC error is a fatal endpoint rejection',
    raw: response(200, rpcError(-32000, 'invalid api key')),
    expected: { cause: 'endpoint-rejected', dispatch: 'rejected', signal: 'fatal', breakerFailure: false } },
];

describe('classifyOutcome', () => {
  it.each(ROWS)('$name', ({ raw, ctx: over, expected }) => {
    const outcome = classifyOutcome(raw, ctx(over));
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect({
      cause: outcome.cause,
      dispatch: outcome.dispatch,
      signal: outcome.signal,
      breakerFailure: outcome.breakerFailure,
    }).toEqual({
      cause: expected.cause,
      dispatch: expected.dispatch,
      signal: expected.signal,
      breakerFailure: expected.breakerFailure,
    });
    if ('protocolViolation' in expected) expect(outcome.protocolViolation).toBe(expected.protocolViolation);
    if ('providerDelayMs' in expected) expect(outcome.providerDelayMs).toBe(expected.providerDelayMs);
    if ('rpcCode' in expected) expect(outcome.rpcCode).toBe(expected.rpcCode);
    if ('detail' in expected) expect(outcome.detail).toBe(expected.detail);
  });

  it('returns the result of a good response, u64 exact', () => {
    const raw = response(200, '{"jsonrpc":"2.0","result":{"context":{"slot":341197053},"value":18446744073709551615},"id":1}');
    expect(classifyOutcome(raw, ctx())).toEqual({
      ok: true,
      dispatch: 'completed',
      status: 200,
      result: { context: { slot: 341197053 }, value: 18446744073709551615n },
    });
  });

  it.each([
    ['eth_getLogs', []],
    ['eth_getTransactionReceipt', null],
    ['eth_getBlockByNumber', null],
    ['getSignaturesForAddress', []],
    ['getTransaction', null],
    ['myCustomMethod', null],
  ])('accepts an empty result from %s', (method, value) => {
    expect(classifyOutcome(response(200, result(value)), ctx({ method }))).toEqual({
      ok: true,
      dispatch: 'completed',
      status: 200,
      result: value,
    });
  });

  it('classifies a complete response even if the pool aborted just after it arrived', () => {
    expect(classifyOutcome(response(200, result('ok')), ctx({ method: 'getHealth', abortReason: 'deadline' })).ok).toBe(true);
  });

  it('returns the JSON-RPC error fields of an application error', () => {
    const outcome = classifyOutcome(response(200, rpcError(-32602, 'bad', { at: 0 })), ctx());
    expect(outcome).toMatchObject({ ok: false, status: 200, rpcCode: -32602, rpcMessage: 'bad', rpcData: { at: 0 } });
  });

  it('carries the HTTP status seen before a transport failure', () => {
    const raw: RawOutcome = { type: 'error', kind: 'other', dispatched: true, status: 200, code: 'UND_ERR_BODY_TIMEOUT' };
    expect(classifyOutcome(raw, ctx())).toMatchObject({ ok: false, cause: 'timeout', status: 200 });
  });

  it('never puts URLs, header values or body text in the detail', () => {
    const secret = 'https://mainnet.example.com/v2/SECRET-KEY';
    const raws: RawOutcome[] = [
      response(502, `<html>${secret}</html>`, { 'retry-after': '1', 'x-api-key': 'SECRET-KEY' }),
      response(200, `not json ${secret}`),
      response(200, rpcError(-32603, `bad gateway ${secret}`)),
      { type: 'error', kind: 'connect', dispatched: false, code: 'ENOTFOUND', error: new Error(secret) },
    ];
    for (const raw of raws) {
      const outcome = classifyOutcome(raw, ctx());
      if (outcome.ok) throw new Error('expected a failure');
      expect(outcome.detail).toMatch(/^[a-z0-9-]+$/);
      expect(outcome.detail).not.toContain('SECRET');
      expect(Object.keys(RULES)).toContain(outcome.detail);
    }
  });

  it('gives no-fault outcomes no signal and no breaker failure', () => {
    for (const [detail, rule] of Object.entries(RULES)) {
      if (rule.cause === 'aborted' || rule.cause === 'capability' || rule.cause === 'rpc-application') {
        expect({ detail, signal: rule.signal, breaker: rule.breaker }).toEqual({ detail, signal: 'none', breaker: false });
      }
    }
  });
});
