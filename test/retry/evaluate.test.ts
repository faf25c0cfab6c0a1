import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import { DISPATCH_STATES, FAILURE_CAUSES, type FailureCause, type RetryClass } from '../../src/retry/causes.js';
import { evaluateTransportRetry } from '../../src/retry/evaluate.js';

const settings = { maxRetries: 3, initialBackoffMs: 100, maxBackoffMs: 2_000 };
const base = { attempt: 1, settings, random: () => 0.5 };

describe('evaluateTransportRetry', () => {
  it('never resends a never-after-dispatch call after an ambiguous dispatch, whatever the cause', () => {
    for (const cause of FAILURE_CAUSES) {
      const decision = evaluateTransportRetry({ ...base, cause, dispatch: 'dispatched-ambiguous', retryClass: 'never-after-dispatch' });
      expect(decision.retry, cause).toBe(false);
    }
    expect(
      evaluateTransportRetry({ ...base, cause: 'connection', dispatch: 'dispatched-ambiguous', retryClass: 'never-after-dispatch' }),
    ).toEqual({ retry: false, reason: 'ambiguous-dispatch' });
  });

  it('allows a never-after-dispatch call again after not-dispatched or rejected', () => {
    expect(evaluateTransportRetry({ ...base, cause: 'connection', dispatch: 'not-dispatched', retryClass: 'never-after-dispatch' }).retry).toBe(true);
    expect(evaluateTransportRetry({ ...base, cause: 'rate-limited', dispatch: 'rejected', retryClass: 'never-after-dispatch' }).retry).toBe(true);
  });

  it('retries an idempotent read after an ambiguous dispatch', () => {
    expect(evaluateTransportRetry({ ...base, cause: 'connection', dispatch: 'dispatched-ambiguous', retryClass: 'idempotent' }).retry).toBe(true);
  });

  it.each<FailureCause>(['request', 'rpc-application', 'aborted'])('never retries %s', (cause) => {
    for (const retryClass of ['idempotent', 'never-after-dispatch'] as RetryClass[]) {
      for (const dispatch of DISPATCH_STATES) {
        expect(evaluateTransportRetry({ ...base, cause, dispatch, retryClass })).toEqual({ retry: false, reason: 'cause-not-retryable' });
      }
    }
  });

  it('never retries the not-applicable class', () => {
    expect(evaluateTransportRetry({ ...base, cause: 'connection', dispatch: 'not-dispatched', retryClass: 'not-applicable' })).toEqual({
      retry: false,
      reason: 'not-applicable',
    });
  });

  it.each<FailureCause>(['invalid-response', 'capability'])('retries %s only for idempotent methods', (cause) => {
    expect(evaluateTransportRetry({ ...base, cause, dispatch: 'completed', retryClass: 'idempotent' }).retry).toBe(true);
    expect(evaluateTransportRetry({ ...base, cause, dispatch: 'rejected', retryClass: 'never-after-dispatch' })).toEqual({
      retry: false,
      reason: 'not-idempotent',
    });
  });

  it('stops after maxRetries retries', () => {
    const params = { ...base, cause: 'temporary-http' as const, dispatch: 'dispatched-ambiguous' as const, retryClass: 'idempotent' as const };
    expect(evaluateTransportRetry({ ...params, attempt: 3 }).retry).toBe(true);
    expect(evaluateTransportRetry({ ...params, attempt: 4 })).toEqual({ retry: false, reason: 'budget-exhausted' });
    expect(evaluateTransportRetry({ ...params, attempt: 1, settings: { ...settings, maxRetries: 0 } })).toEqual({
      retry: false,
      reason: 'budget-exhausted',
    });
  });

  it('draws the backoff of retry n within [initial, min(max, initial·2^(n−1))]', () => {
    expect(() =>
      fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (attempt, r) => {
        const decision = evaluateTransportRetry({
          cause: 'connection',
          dispatch: 'not-dispatched',
          retryClass: 'idempotent',
          attempt,
          settings: { maxRetries: 100, initialBackoffMs: 100, maxBackoffMs: 2_000 },
          random: () => r,
        });
        if (!decision.retry) return false;
        const high = Math.min(2_000, 100 * 2 ** (attempt - 1));
        return decision.delayMs >= 100 && decision.delayMs <= high;
      }),
      ),
    ).not.toThrow();
  });

  it('spreads backoffs with the injected random, reproducibly per seed', () => {
    const draw = (seed: number) => {
      const random = createSeededRandom(seed);
      return [1, 2, 3].map((attempt) => {
        const d = evaluateTransportRetry({ cause: 'timeout', dispatch: 'dispatched-ambiguous', retryClass: 'idempotent', attempt, settings, random });
        return d.retry ? d.delayMs : -1;
      });
    };
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
  });

  it('refuses a retry whose backoff would end after the deadline', () => {
    const params = { ...base, cause: 'timeout' as const, dispatch: 'dispatched-ambiguous' as const, retryClass: 'idempotent' as const, random: () => 0 };
    expect(evaluateTransportRetry({ ...params, remainingMs: 100 })).toEqual({ retry: false, reason: 'deadline' });
    expect(evaluateTransportRetry({ ...params, remainingMs: 101 }).retry).toBe(true);
  });

  it('lengthens the same-endpoint wait by the provider delay, capped at 60 s, without delaying failover', () => {
    const params = { ...base, cause: 'rate-limited' as const, dispatch: 'rejected' as const, retryClass: 'idempotent' as const, random: () => 0 };
    expect(evaluateTransportRetry({ ...params, providerDelayMs: 2_500 })).toEqual({ retry: true, delayMs: 100, sameEndpointDelayMs: 2_500 });
    expect(evaluateTransportRetry({ ...params, providerDelayMs: 600_000 })).toEqual({ retry: true, delayMs: 100, sameEndpointDelayMs: 60_000 });
    expect(evaluateTransportRetry({ ...params })).toEqual({ retry: true, delayMs: 100, sameEndpointDelayMs: 100 });
  });
});
