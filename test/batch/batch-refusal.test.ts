import { describe, expect, it } from 'vitest';
import type { BatchItemResult } from '../../src/batch/types.js';
import type { ExecuteRequest, RawOutcome } from '../../src/http/executor.js';
import { createTestPool, endpoint, roleOf } from '../pool/pool-fixtures.js';

/**
 * What a node's refusal of a whole batch changes for later requests, observed at a scripted
 * node on a fake clock: how many requests it received and how many items each one held.
 */

type Item = { id: number; method: string };

/** Answers every item of a batch body (or a single request) with its method name. */
function echo(request: ExecuteRequest): RawOutcome {
  const parsed = JSON.parse(request.body) as Item | Item[];
  const answer = (item: Item) => ({ jsonrpc: '2.0', id: item.id, result: item.method });
  const body = Array.isArray(parsed) ? parsed.map(answer) : answer(parsed);
  return { type: 'response', status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

/** Items per request the node received, in order. */
function sizes(received: readonly { body: string }[]): number[] {
  return received.map((r) => {
    const parsed = JSON.parse(r.body) as unknown;
    return Array.isArray(parsed) ? parsed.length : 1;
  });
}

const reads = (n: number) => Array.from({ length: n }, (_, i) => ({ method: 'getBlockHeight', params: [{ minContextSlot: i }] }));
const codes = (results: readonly BatchItemResult[]) => results.map((r) => (r.ok ? 'ok' : r.error.code));

describe('a whole-batch refusal', () => {
  it('HTTP 429 whose message says "batch" is a rate limit: one request, a cooldown from Retry-After, and the batch size unchanged', async () => {
    const t = createTestPool([endpoint('a')]);
    const limited: RawOutcome = {
      type: 'response',
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '5' },
      body: '{"error":{"code":429,"message":"batch rate limit exceeded"}}',
    };
    t.executor.script('a', limited, echo);
    const first = t.pool.batch(reads(6), { timeoutMs: 1_000 });
    await t.clock.advance(1_000);
    // The cooldown (5 s) ends after the deadline: every item fails as rate limited, nothing is sent again.
    expect(codes(await first)).toEqual(Array.from({ length: 6 }, () => 'RATE_LIMITED'));
    expect(t.executor.received).toHaveLength(1);
    expect(roleOf(t.pool, 'a').availability).toBe('rate-limited');
    expect(roleOf(t.pool, 'a').cooldownRemainingMs).toBe(4_000);
    await t.clock.advance(4_000);
    const second = t.pool.batch(reads(6));
    await t.clock.flush();
    expect(codes(await second)).toEqual(Array.from({ length: 6 }, () => 'ok'));
    // After the cooldown the six items still go as one request: a rate limit says nothing of size.
    expect(sizes(t.executor.received)).toEqual([6, 6]);
  });

  it('a JSON-RPC rate-limit code that mentions the batch size is a rate limit too, not a size refusal', async () => {
    const t = createTestPool([endpoint('a')]);
    const limited: RawOutcome = {
      type: 'response',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32429,"message":"batch too large for your rate limit","data":{"retry_after":2}}}',
    };
    t.executor.script('a', limited, echo);
    const first = t.pool.batch(reads(4), { timeoutMs: 1_000 });
    await t.clock.advance(1_000);
    expect(codes(await first)).toEqual(['RATE_LIMITED', 'RATE_LIMITED', 'RATE_LIMITED', 'RATE_LIMITED']);
    await t.clock.advance(1_000);
    const second = t.pool.batch(reads(4));
    await t.clock.flush();
    expect(codes(await second)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(sizes(t.executor.received)).toEqual([4, 4]);
  });

  it('a node without batch support gets the items one by one from then on, not in halves', async () => {
    const t = createTestPool([endpoint('a')]);
    const unsupported: RawOutcome = {
      type: 'response',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}',
    };
    t.executor.script('a', unsupported, echo);
    const first = t.pool.batch(reads(8));
    await t.clock.flush();
    expect(codes(await first)).toEqual(Array.from({ length: 8 }, () => 'ok'));
    const later = t.pool.batch(reads(4));
    await t.clock.flush();
    expect(codes(await later)).toEqual(['ok', 'ok', 'ok', 'ok']);
    // One refused array of 8, then 8 + 4 single requests: halving would have sent 4s and 2s.
    expect(sizes(t.executor.received)).toEqual([8, ...Array.from({ length: 12 }, () => 1)]);
  });
});
