import { describe, expect, it } from 'vitest';
import { attributeBatch, type BatchSlot } from '../../src/batch/attribute.js';
import { batchRefusal, endpointVerdict, itemRetryClass, requestRetryClass } from '../../src/batch/rules.js';
import type { RawOutcome } from '../../src/http/executor.js';
import type { ClassifiedOutcome } from '../../src/http/outcome.js';

/** Attribution and the batch rules as pure functions: every shape of answer a server gives. */

const slots: BatchSlot[] = [
  { id: 7, method: 'getSlot' },
  { id: 8, method: 'getBalance' },
];
const context = { abortReason: undefined, wallNowMs: () => 1_700_000_000_000 };
const ok = (body: string, status = 200): RawOutcome => ({ type: 'response', status, headers: {}, body });
const summary = (outcomes: readonly ClassifiedOutcome[]) => outcomes.map((o) => (o.ok ? o.result : `${o.cause}/${o.dispatch}/${o.detail}`));

describe('attributeBatch', () => {
  it('matches elements by id, numeric or string, whatever their order; a BOM is tolerated', () => {
    const result = attributeBatch(ok('\ufeff[{"jsonrpc":"2.0","id":"8","result":5},{"jsonrpc":"2.0","id":7,"result":9}]'), slots, context);
    expect(result.whole).toBe(false);
    expect(summary(result.outcomes)).toEqual([9, 5]);
  });

  it('keeps integers above 2^53 exact per item', () => {
    const result = attributeBatch(ok('[{"jsonrpc":"2.0","id":7,"result":1},{"jsonrpc":"2.0","id":8,"result":{"value":18446744073709551615}}]'), slots, context);
    expect(result.outcomes[1]).toMatchObject({ ok: true, result: { value: 18_446_744_073_709_551_615n } });
  });

  it('an empty result where the method never returns one is that item’s protocol violation only', () => {
    const result = attributeBatch(ok('[{"jsonrpc":"2.0","id":7,"result":null},{"jsonrpc":"2.0","id":8,"result":{"value":1}}]'), slots, context);
    expect(summary(result.outcomes)).toEqual(['invalid-response/dispatched-ambiguous/empty-result', { value: 1 }]);
  });

  it('a transport error, a 5xx or a body that is not JSON is every item’s outcome (whole)', () => {
    for (const raw of [
      { type: 'error', kind: 'socket', dispatched: true } as RawOutcome,
      ok('<html>bad gateway</html>', 502),
      ok('[{"jsonrpc":"2.0","id":7,"res'),
      ok(''),
    ]) {
      const result = attributeBatch(raw, slots, context);
      expect(result.whole).toBe(true);
      expect(result.outcomes[0]).toBe(result.outcomes[1]);
      expect(result.outcomes[0]).toMatchObject({ ok: false, dispatch: 'dispatched-ambiguous' });
    }
  });

  it('an array holding only an id-less error is the whole request’s answer; among other elements it is ignored', () => {
    const alone = attributeBatch(ok('[{"jsonrpc":"2.0","id":null,"error":{"code":429,"message":"Too many requests"}}]'), slots, context);
    expect(alone.whole).toBe(true);
    expect(alone.outcomes[0]).toMatchObject({ ok: false, cause: 'rate-limited', dispatch: 'rejected' });
    const mixed = attributeBatch(ok('[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}},{"jsonrpc":"2.0","id":7,"result":1}]'), slots, context);
    expect(summary(mixed.outcomes)).toEqual([1, 'invalid-response/dispatched-ambiguous/batch-missing-item']);
  });

  it('one object answering one item: that item’s answer, the others missing; a plain request of one slot reads the same way', () => {
    const result = attributeBatch(ok('{"jsonrpc":"2.0","id":8,"result":3}'), slots, context);
    expect(summary(result.outcomes)).toEqual(['invalid-response/dispatched-ambiguous/batch-missing-item', 3]);
    const single = attributeBatch(ok('{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad"}}'), [slots[0]!], context);
    expect(single.outcomes[0]).toMatchObject({ ok: false, cause: 'rpc-application', dispatch: 'completed', rpcCode: -32602 });
  });

  it('an object that answers no item (a result with another id, a number) is batch-not-array for all', () => {
    for (const body of ['{"jsonrpc":"2.0","id":99,"result":3}', '42', '"ok"']) {
      expect(summary(attributeBatch(ok(body), slots, context).outcomes)).toEqual([
        'invalid-response/dispatched-ambiguous/batch-not-array',
        'invalid-response/dispatched-ambiguous/batch-not-array',
      ]);
    }
  });

  it('a send answered with another transaction’s id is that item’s ambiguous failure', () => {
    const sends: BatchSlot[] = [{ id: 7, method: 'eth_sendRawTransaction', sentTransactionId: { field: 'transactionHash', value: `0x${'a'.repeat(64)}` } }];
    const result = attributeBatch(ok(`[{"jsonrpc":"2.0","id":7,"result":"0x${'b'.repeat(64)}"}]`), sends, context);
    expect(result.outcomes[0]).toMatchObject({ ok: false, dispatch: 'dispatched-ambiguous', detail: 'send-result-mismatch' });
  });
});

describe('batch rules', () => {
  it('a request is never-after-dispatch when any item is; not-applicable only when all are', () => {
    expect(requestRetryClass(['idempotent', 'never-after-dispatch'])).toBe('never-after-dispatch');
    expect(requestRetryClass(['idempotent', 'not-applicable'])).toBe('idempotent');
    expect(requestRetryClass(['not-applicable'])).toBe('not-applicable');
    expect(itemRetryClass(true, 'idempotent', 'never-after-dispatch')).toBe('never-after-dispatch');
    expect(itemRetryClass(false, 'idempotent', 'never-after-dispatch')).toBe('idempotent');
    expect(itemRetryClass(true, 'not-applicable', 'idempotent')).toBe('not-applicable');
  });

  it('the endpoint verdict: a rate-limited item cools it down; application errors alone are a success', () => {
    const result = attributeBatch(
      ok('[{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad"}},{"jsonrpc":"2.0","id":8,"error":{"code":-32005,"message":"rate limit","data":{"backoff_seconds":3}}}]'),
      slots,
      context,
    );
    expect(endpointVerdict(result.whole, result.outcomes)).toEqual({ type: 'rate-limited', providerDelayMs: 3_000 });
    const appOnly = attributeBatch(ok('[{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad"}},{"jsonrpc":"2.0","id":8,"result":1}]'), slots, context);
    expect(endpointVerdict(appOnly.whole, appOnly.outcomes)).toEqual({ type: 'success' });
    const missing = attributeBatch(ok('[{"jsonrpc":"2.0","id":7,"result":1}]'), slots, context);
    expect(endpointVerdict(missing.whole, missing.outcomes)).toMatchObject({ type: 'failure', failure: { detail: 'batch-missing-item' } });
  });

  it('recognises a refused batch: no batch support, a size cap, 413; never an ambiguous or completed answer', () => {
    const whole = (body: string, status = 200) => attributeBatch(ok(body, status), slots, context).outcomes[0]!;
    expect(batchRefusal(whole('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}'))).toBe('unsupported');
    expect(batchRefusal(whole('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch size too large"}}'))).toBe('too-large');
    expect(batchRefusal(whole('{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found"}}'))).toBe('unsupported');
    expect(batchRefusal(whole('payload too large', 413))).toBe('too-large');
    expect(batchRefusal(whole('<html>502</html>', 502))).toBeUndefined();
    // A rate limit is a rate limit, whatever its wording.
    expect(batchRefusal(whole('{"error":{"code":429,"message":"batch rate limit exceeded"}}', 429))).toBeUndefined();
    expect(batchRefusal(whole('{"jsonrpc":"2.0","id":null,"error":{"code":-32429,"message":"batch size limit exceeded"}}'))).toBeUndefined();
    expect(batchRefusal(whole('{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"bad"}}'))).toBeUndefined();
  });
});
