import { describe, expect, it } from 'vitest';
import type { JsonRpcErrorObject } from '../../src/jsonrpc/envelope.js';
import {
  hasAuthWording,
  hasCapabilityWording,
  hasGatewayWording,
  hasRateLimitWording,
  isAuthError,
  isCapabilityLimit,
  isExecutionRevert,
  isFabricatedParseError,
  isRateLimitError,
  isWrappedUpstreamFailure,
  providerDelayFromErrorData,
  readNodeUnhealthy,
} from '../../src/jsonrpc/heuristics.js';

const NOW = Date.UTC(2025, 0, 1, 0, 0, 0);
const err = (code: number, message: string, data?: unknown): JsonRpcErrorObject =>
  data === undefined ? { code, message } : { code, message, data };

describe('wording', () => {
  it.each([
    'Rate limit exceeded', 'rate-limited', 'RateLimit', 'too many requests', 'Too Many Request',
    'daily quota exceeded', 'request throttled', 'project ID request rate exceeded',
    '15/second request limit reached - reduce calls per second', 'credits limited to 50/sec',
    'Your app has exceeded its compute units per second capacity',
  ])('reads %j as a rate limit', (text) => {
    expect(hasRateLimitWording(text)).toBe(true);
  });

  it.each(['invalid params', 'header not found', 'limit must be positive', 'execution timeout'])(
    'does not read %j as a rate limit',
    (text) => {
      expect(hasRateLimitWording(text)).toBe(false);
    },
  );

  it.each(['Unauthorized', 'forbidden', 'invalid api key', 'api key is not allowed to access blockchain', 'Access denied', 'invalid project id'])(
    'reads %j as an auth failure',
    (text) => {
      expect(hasAuthWording(text)).toBe(true);
    },
  );

  it.each([
    'service unavailable', 'Bad Gateway', 'gateway timeout', 'Gateway Time-out',
    'upstream connect error or disconnect/reset before headers', 'dial tcp: connection refused',
    'read: connection reset by peer', 'no healthy upstream', 'proxy error',
  ])('reads %j as gateway wording', (text) => {
    expect(hasGatewayWording(text)).toBe(true);
  });

  it.each([
    'missing trie node 5d3f… (path )', 'state has been pruned', 'block #123 is pruned',
    'state not available', 'historical state not available', 'not fully indexed yet',
    'block has been pruned', 'height is not available', 'metadata is not found', 'lite fullnode',
    'this api is not supported', 'header not found', 'query returned more than 10000 results',
    'exceed maximum block range: 5000',
    'getTokenAccountsByOwner excluded from account secondary indexes; this RPC method unavailable for key',
  ])('reads %j as a capability limit', (text) => {
    expect(hasCapabilityWording(text)).toBe(true);
  });

  it('only searches the head of very large bodies', () => {
    expect(hasRateLimitWording(`${'x'.repeat(10_000)} rate limit`)).toBe(false);
    expect(hasRateLimitWording(`rate limit ${'x'.repeat(10_000)}`)).toBe(true);
  });
});

describe('isRateLimitError', () => {
  it.each([
    ['Infura -32005 with backoff_seconds', err(-32005, 'project ID request rate exceeded', { backoff_seconds: 30 })],
    ['QuickNode code 429 without a message', err(429, '')],
    ['code -32429', err(-32429, 'whatever')],
    ['-32005 with rate-limit wording', err(-32005, 'Rate limit exceeded. Please retry after 1 second.')],
    ['any code with rate-limit wording', err(-32000, 'too many requests')],
    ['bare EIP-1474 -32005 limit exceeded', err(-32005, 'limit exceeded')],
    ['-32005 with retry_after data', err(-32005, 'slow down', { retry_after: 2 })],
  ])('recognises %s', (_name, error) => {
    expect(isRateLimitError(error)).toBe(true);
  });

  it.each([
    ['Solana node behind', err(-32005, 'Node is behind by 42 slots', { numSlotsBehind: 42 })],
    ['Solana node unhealthy', err(-32005, 'Node is unhealthy', { numSlotsBehind: null })],
    ['Infura log-size limit', err(-32005, 'query returned more than 10000 results')],
    ['a revert that mentions rate limits', err(3, 'execution reverted: rate limit', '0x08c379a0')],
    ['a -32000 revert message', err(-32000, 'execution reverted: too many requests')],
    ['invalid params', err(-32602, 'invalid params')],
  ])('does not mistake %s for a rate limit', (_name, error) => {
    expect(isRateLimitError(error)).toBe(false);
  });
});

describe('error predicates', () => {
  it('recognises auth errors but not reverts that say "unauthorized"', () => {
    expect(isAuthError(err(-32000, 'invalid api key'))).toBe(true);
    expect(isAuthError(err(3, 'execution reverted: Unauthorized'))).toBe(false);
  });

  it('reads execution reverts by code 3 or message', () => {
    expect(isExecutionRevert(err(3, 'x'))).toBe(true);
    expect(isExecutionRevert(err(-32000, 'execution reverted'))).toBe(true);
    expect(isExecutionRevert(err(-32000, 'nonce too low'))).toBe(false);
  });

  it.each([
    [err(-32603, 'upstream connect error or disconnect/reset before headers'), true],
    [err(-32603, 'Bad Gateway'), true],
    [err(-32000, 'no healthy upstream'), true],
    [err(-32603, 'internal error'), false],
    [err(-32602, 'connection refused'), false],
  ])('wrapped upstream failure %j → %s', (error, expected) => {
    expect(isWrappedUpstreamFailure(error)).toBe(expected);
  });

  it('treats every -32700 as fabricated: we only send bodies our encoder wrote', () => {
    expect(isFabricatedParseError(err(-32700, 'Parse error'))).toBe(true);
    expect(isFabricatedParseError(err(-32600, 'Invalid request'))).toBe(false);
  });

  it.each([
    [err(-32010, 'excluded from account secondary indexes; this RPC method unavailable for key'), true],
    [err(-32004, 'Block not available for slot 123'), true],
    [err(-32009, 'Slot 123 was skipped, or missing in long-term storage'), true],
    [err(-32016, 'Minimum context slot has not been reached', { contextSlot: 5 }), true],
    [err(-32000, 'missing trie node abc'), true],
    [err(-32000, 'header not found'), true],
    [err(-32007, 'Slot 123 was skipped, or missing due to ledger jump to recent snapshot'), false],
    [err(-32002, 'Transaction simulation failed: Blockhash not found'), false],
    [err(3, 'execution reverted: header not found'), false],
  ])('capability limit %j → %s', (error, expected) => {
    expect(isCapabilityLimit(error)).toBe(expected);
  });
});

describe('readNodeUnhealthy', () => {
  it('reads Solana "Node is behind by N slots" with data.numSlotsBehind', () => {
    expect(readNodeUnhealthy(err(-32005, 'Node is behind by 42 slots', { numSlotsBehind: 42 }))).toEqual({ numSlotsBehind: 42 });
  });

  it('reads "Node is unhealthy" with a null numSlotsBehind', () => {
    expect(readNodeUnhealthy(err(-32005, 'Node is unhealthy', { numSlotsBehind: null }))).toEqual({ numSlotsBehind: null });
  });

  it('falls back to the message when data is missing', () => {
    expect(readNodeUnhealthy(err(-32005, 'Node is behind by 7 slots'))).toEqual({ numSlotsBehind: 7 });
    expect(readNodeUnhealthy(err(-32005, 'Node is unhealthy'))).toEqual({ numSlotsBehind: null });
  });

  it.each([
    err(-32005, 'project ID request rate exceeded', { backoff_seconds: 30 }),
    err(-32000, 'Node is behind by 42 slots'),
  ])('ignores %j', (error) => {
    expect(readNodeUnhealthy(error)).toBeUndefined();
  });
});

describe('providerDelayFromErrorData', () => {
  it.each([
    [{ backoff_seconds: 30 }, 30_000],
    [{ backoff_seconds: 1.5 }, 1_500],
    [{ retry_after: 2 }, 2_000],
    [{ retryAfter: 3 }, 3_000],
    [{ retry_after: '4' }, 4_000],
    [{ retryAfter: 'Wed, 01 Jan 2025 00:00:05 GMT' }, 5_000],
    [{ backoff_seconds: 3600 }, 60_000],
    [{ backoff_seconds: -1 }, 0],
    [{ backoff_seconds: null, retry_after: 6 }, 6_000],
  ])('reads %j as %d ms', (data, expected) => {
    expect(providerDelayFromErrorData(data, NOW)).toBe(expected);
  });

  it.each([[undefined], [null], ['30'], [[30]], [{}], [{ backoff_seconds: 'soon' }], [{ other: 5 }]])(
    'finds no delay in %j',
    (data) => {
      expect(providerDelayFromErrorData(data, NOW)).toBeUndefined();
    },
  );
});
