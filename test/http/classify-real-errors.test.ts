import { describe, expect, it } from 'vitest';
import { classifyOutcome } from '../../src/http/classify.js';
import type { RawOutcome } from '../../src/http/executor.js';
import type { ClassifyContext } from '../../src/http/outcome.js';
import { readLogRangeLimit, type LogRangeLimit } from '../../src/jsonrpc/log-range-limit.js';

/**
 * The classification table against error texts real nodes and providers send. The rule:
 * an HTTP status or a JSON-RPC code decides; wording only refines a code known to be
 * ambiguous (`-32005`, `-32007`, the catch-alls `-32000`/`-32603`) or a body with no code.
 * An application error is never read as a rejection because of its words.
 */

const NOW = Date.UTC(2025, 0, 1);
const ctx = (method: string): ClassifyContext => ({ method, id: 7, abortReason: undefined, wallNowMs: NOW });
const rpcBody = (code: number, message: string, data?: unknown): string =>
  JSON.stringify({ jsonrpc: '2.0', id: 7, error: data === undefined ? { code, message } : { code, message, data } });
const answer = (status: number, body: string, headers: Record<string, string> = {}): RawOutcome => ({ type: 'response', status, headers, body });

function classified(raw: RawOutcome, method: string) {
  const outcome = classifyOutcome(raw, ctx(method));
  if (outcome.ok) throw new Error('expected a failure');
  return { cause: outcome.cause, dispatch: outcome.dispatch, ...(outcome.providerDelayMs === undefined ? {} : { delayMs: outcome.providerDelayMs }) };
}

const APPLICATION = { cause: 'rpc-application', dispatch: 'completed' } as const;

describe('application errors keep their code whatever their words', () => {
  const solanaPreflight = [
    'Transaction simulation failed: Error processing Instruction 0: Cross-program invocation with unauthorized signer or writable account',
    'Transaction simulation failed: Blockhash not found',
    'Transaction simulation failed: Attempt to debit an account but found no record of a prior credit.',
    'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1',
    'Transaction simulation failed: Error processing Instruction 1: custom program error: 0x1771 (RateLimitExceeded)',
    'Transaction simulation failed: Error processing Instruction 0: Program failed to complete: Access violation in stack frame 5',
    'Transaction simulation failed: Error processing Instruction 2: Computational budget exceeded',
    'Transaction simulation failed: This transaction has already been processed',
  ];
  it.each(solanaPreflight)('Solana -32002 %j is the chain’s answer', (message) => {
    expect(classified(answer(200, rpcBody(-32002, message, { err: { InstructionError: [0, 'PrivilegeEscalation'] }, logs: [] })), 'sendTransaction')).toEqual(APPLICATION);
  });

  it('Solana -32003 signature verification failure is the chain’s answer', () => {
    expect(classified(answer(200, rpcBody(-32003, 'Transaction signature verification failure')), 'sendTransaction')).toEqual(APPLICATION);
  });

  it('Solana -32007 "slot skipped" is the chain’s answer, not QuickNode’s rate limit', () => {
    expect(classified(answer(200, rpcBody(-32007, 'Slot 123 was skipped, or missing due to ledger jump to recent snapshot')), 'getBlock')).toEqual(APPLICATION);
  });

  const evmSends = [
    [-32000, 'nonce too low: next nonce 5, tx nonce 3'],
    [-32000, 'insufficient funds for gas * price + value: balance 0, tx cost 21000000000000, overshot 21000000000000'],
    [-32000, 'replacement transaction underpriced'],
    [-32000, 'already known'],
    [-32000, 'transaction underpriced: tip needed 1, tip permitted 0'],
    [-32003, 'insufficient funds for transfer'],
    [3, 'execution reverted: Ownable: caller is not the owner'],
    [3, 'execution reverted: Unauthorized()'],
    [3, 'execution reverted: rate limit exceeded for this vault'],
    [-32000, 'execution reverted: AccessControl: account 0xab is missing role; access denied'],
  ] as const;
  it.each(evmSends)('EVM %i %j is the node’s answer', (code, message) => {
    expect(classified(answer(200, rpcBody(code, message)), 'eth_sendRawTransaction')).toEqual(APPLICATION);
  });

  it.each([
    [-32602, 'invalid params: rate limit must be a positive number'],
    [-32602, 'invalid argument 0: unauthorized field "from"'],
    [-32601, 'the method my_rateLimitedCall does not exist/is not available'],
  ])('a %i whose message merely contains alarming words is not a rate limit or a dead key', (code, message) => {
    const outcome = classified(answer(200, rpcBody(code, message)), 'my_rateLimitedCall');
    expect(outcome.cause).not.toBe('rate-limited');
    expect(outcome.cause).not.toBe('endpoint-rejected');
  });
});

describe('provider rate-limit and auth answers are still recognised', () => {
  it.each([
    ['Infura 429 -32005 with backoff_seconds', answer(429, rpcBody(-32005, 'project ID request rate exceeded', { backoff_seconds: 30 })), 30_000],
    [
      "Infura 429 -32005 with its fields nested under rate (INFURA/infura#201)",
      answer(429, rpcBody(-32005, 'project ID request rate exceeded', { rate: { allowed_rps: 50, backoff_seconds: 12, current_rps: 52.3 } })),
      12_000,
    ],
    ['Infura -32005 on HTTP 200', answer(200, rpcBody(-32005, 'project ID request rate exceeded', { backoff_seconds: 2 })), 2_000],
    ['QuickNode -32007 on HTTP 200 (a batch item)', answer(200, rpcBody(-32007, 'request limit reached - reduce calls per second or upgrade your account at quicknode.com')), undefined],
    ['QuickNode code 429 on HTTP 200', answer(200, rpcBody(429, 'Too Many Requests')), undefined],
    ['Helius -32429', answer(200, rpcBody(-32429, 'rate limited')), undefined],
    ['Alchemy 429 compute units', answer(429, rpcBody(429, 'Your app has exceeded its compute units per second capacity.')), undefined],
    ['a catch-all -32000 with rate-limit wording', answer(200, rpcBody(-32000, 'daily request count exceeded, request rate limited')), undefined],
    ['a plain-text "rate limit" body on HTTP 403 (a throttling gateway)', answer(403, 'rate limit exceeded, slow down'), undefined],
    ['a plain-text "too many requests" body on HTTP 200', answer(200, 'Too many requests'), undefined],
    ['HTTP 503 with rate-limit wording', answer(503, 'Rate limit exceeded'), undefined],
  ])('%s is a rate limit', (_name, raw, delayMs) => {
    expect(classified(raw, 'sendTransaction')).toEqual({ cause: 'rate-limited', dispatch: 'rejected', ...(delayMs === undefined ? {} : { delayMs }) });
  });

  it.each([
    ['Alchemy 401 -32000 "Must be authenticated!"', answer(401, rpcBody(-32000, 'Must be authenticated!'))],
    ['Infura 401 plain text "invalid project id"', answer(401, 'invalid project id\n')],
    ['a 403 "api key is not allowed to access method"', answer(403, rpcBody(-32000, 'API key is not allowed to access method'))],
    ['a plain-text "invalid api key" on HTTP 200', answer(200, 'invalid api key')],
    ['a catch-all -32000 "Unauthorized" on HTTP 200', answer(200, rpcBody(-32000, 'Unauthorized: invalid API key'))],
  ])('%s is a dead key: rejected, never the node’s answer', (_name, raw) => {
    expect(classified(raw, 'getBalance')).toEqual({ cause: 'endpoint-rejected', dispatch: 'rejected' });
  });

  it('a catch-all -32603 that wraps a gateway failure is an ambiguous temporary failure', () => {
    expect(classified(answer(200, rpcBody(-32603, 'upstream connect error or disconnect/reset before headers')), 'sendTransaction')).toEqual({
      cause: 'temporary-http',
      dispatch: 'dispatched-ambiguous',
    });
  });

  it.each([
    [-32000, 'missing trie node 1c2b (path )'],
    [-32000, 'header not found'],
    [-32005, 'query returned more than 10000 results'],
    [-32602, 'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range'],
    [-32010, 'TokenzQd excluded from account secondary indexes; this RPC method unavailable for key'],
  ])('%i %j is a capability limit of this node', (code, message) => {
    expect(classified(answer(200, rpcBody(code, message)), 'eth_getLogs').cause).toBe('capability');
  });
});

describe('eth_getLogs provider limits are capability answers carrying what the provider said', () => {
  const detailOf = (raw: RawOutcome) => {
    const outcome = classifyOutcome(raw, ctx('eth_getLogs'));
    if (outcome.ok) throw new Error('expected a failure');
    return { cause: outcome.cause, dispatch: outcome.dispatch, detail: outcome.detail };
  };
  const LOG_LIMIT = { cause: 'capability', dispatch: 'completed', detail: 'log-range-limit' } as const;
  const cases: readonly (readonly [string, RawOutcome, LogRangeLimit])[] = [
    [
      'Alchemy, range limit with a suggestion (dank_mids#772)',
      answer(200, rpcBody(-32600, 'You can make eth_getLogs requests with up to a 500 block range. Based on your parameters, this block range should work: [0x123c9b2, 0x123cba5]')),
      { kind: 'block-range', maxBlockRange: 500n, suggestedRange: { fromBlock: 0x123c9b2n, toBlock: 0x123cba5n } },
    ],
    [
      'Alchemy, response size with a suggestion (go-ethereum#25343)',
      answer(200, rpcBody(-32602, 'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters and the response size limit, this block range should work: [0x0, 0x87fe9]')),
      { kind: 'result-count', suggestedRange: { fromBlock: 0n, toBlock: 0x87fe9n } },
    ],
    ['Infura, result count', answer(200, rpcBody(-32005, 'query returned more than 10000 results')), { kind: 'result-count' }],
    [
      'Infura, result count with the working range in data',
      answer(200, rpcBody(-32005, 'query returned more than 10000 results', { from: '0x10', to: '0x7f' })),
      { kind: 'result-count', suggestedRange: { fromBlock: 16n, toBlock: 127n } },
    ],
    ['Infura, range (INFURA/infura#237)', answer(200, rpcBody(-32602, 'range 1000000 exceeds limit of 10000')), { kind: 'block-range', maxBlockRange: 10_000n }],
    ['QuickNode, HTTP 413 + -32614 (eternalsafe/wallet#57)', answer(413, rpcBody(-32614, 'eth_getLogs is limited to a 10,000 range')), { kind: 'block-range', maxBlockRange: 10_000n }],
    ['geth forks (-32000)', answer(200, rpcBody(-32000, 'exceed maximum block range: 1000')), { kind: 'block-range', maxBlockRange: 1_000n }],
    ['"block range is too wide"', answer(200, rpcBody(-32600, 'block range is too wide')), { kind: 'block-range' }],
    ['"block range too large"', answer(200, rpcBody(-32000, 'block range too large')), { kind: 'block-range' }],
    ['Candle "block range too high" (alpha-wallet-ios#5277)', answer(200, rpcBody(-32600, 'block range too high')), { kind: 'block-range' }],
    [
      'Tenderly, in data.payload (boba_legacy#827)',
      answer(200, rpcBody(-32602, 'invalid params', { error_id: '4ed94073', payload: 'range 9009594 is bigger than range limit 2000' })),
      { kind: 'block-range', maxBlockRange: 2_000n },
    ],
  ];

  it.each(cases)('%s', (_, raw, limit) => {
    expect(detailOf(raw)).toEqual(LOG_LIMIT);
    const body = JSON.parse((raw as { body: string }).body) as { error: { code: number; message: string; data?: unknown } };
    expect(readLogRangeLimit(body.error)).toEqual(limit);
  });

  it('a contract revert or an unrelated code that mentions ranges stays the node’s answer', () => {
    expect(detailOf(answer(200, rpcBody(3, 'execution reverted: block range too large')))).toMatchObject(APPLICATION);
    expect(detailOf(answer(200, rpcBody(-32002, 'block range too large')))).toMatchObject(APPLICATION);
    expect(readLogRangeLimit({ code: -32000, message: 'nonce too low' })).toBeUndefined();
  });

  it('a plain HTTP 413 without such a body is still our oversized request', () => {
    expect(detailOf(answer(413, 'Request Entity Too Large'))).toMatchObject({ cause: 'request', detail: 'http-413' });
  });
});
