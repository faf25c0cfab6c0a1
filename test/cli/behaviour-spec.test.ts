import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args.js';
import { behavioursByMethod, parseBehaviourSpec } from '../../src/cli/behaviour-spec.js';

describe('parseBehaviourSpec', () => {
  it.each([
    ['429:every=3:retry-after=2', '*', { type: 'rate-limit', retryAfterSeconds: 2, everyNth: 3 }],
    ['429:retry-after=date:rps=10:body=text', '*', { type: 'rate-limit', retryAfter: 'http-date', requestsPerSecond: 10, body: 'text' }],
    ['429:retry-after=none', '*', { type: 'rate-limit', retryAfter: 'none' }],
    ['latency:50', '*', { type: 'latency', ms: 50 }],
    ['latency:50-200', '*', { type: 'latency', minMs: 50, maxMs: 200 }],
    ['reset:p=0.2', '*', { type: 'reset', probability: 0.2 }],
    ['close', '*', { type: 'close' }],
    ['html200', '*', { type: 'html' }],
    ['hang:method=sendTransaction', 'sendTransaction', { type: 'hang' }],
    ['5xx', '*', { type: 'http-error', status: 503 }],
    ['502:body=json', '*', { type: 'http-error', status: 502, body: 'json' }],
    ['http-error:500', '*', { type: 'http-error', status: 500 }],
    ['truncate:0.3', '*', { type: 'truncate', keepRatio: 0.3 }],
    ['wrong-genesis', '*', { type: 'wrong-genesis' }],
    ['wrong-genesis:EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG', '*', { type: 'wrong-genesis', solanaGenesisHash: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG' }],
    ['lag:200:unhealthy-above=100:method=getHealth', 'getHealth', { type: 'lag', slots: 200, unhealthyAboveSlots: 100 }],
  ])('parses %s', (spec, method, behaviour) => {
    expect(parseBehaviourSpec(spec)).toEqual({ method, behaviour });
  });

  it.each([
    ['explode', /unknown kind 'explode'/],
    ['latency', /latency needs <ms> or <min>-<max>/],
    ['latency:200-50', /min ≤ max/],
    ['latency:fast', /latency must be a number of ms/],
    ['429:every=0', /every must be an integer ≥ 1/],
    ['429:p=2', /p must be in \[0, 1\]/],
    ['429:retry-after=soon', /retry-after must be seconds ≥ 0, 'date' or 'none'/],
    ['429:body=xml', /body must be 'json' or 'text'/],
    ['429:3', /'429' takes no value/],
    ['reset:slots=3', /unknown key 'slots' for reset/],
    ['600', /an HTTP status from 400 to 599/],
    ['http-error:429', /use 429 for rate limits/],
    ['truncate:1', /truncate ratio must be in \[0, 1\)/],
    ['lag:-1', /lag must be a whole number/],
    ['wrong-genesis:nothex', /base58 \(Solana\) or 0x/],
    ['hang:method=', /method must not be empty/],
    ['429:every=2:every=3', /'every' given twice/],
  ])('rejects %s with a UsageError naming the spec', (spec, message) => {
    let thrown: unknown;
    try {
      parseBehaviourSpec(spec);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as Error).message).toContain(`--behaviour '${spec}'`);
    expect((thrown as Error).message).toMatch(message);
  });

  it('groups specs per method, keeping their order', () => {
    const parsed = ['latency:10', 'hang:method=sendTransaction', '429:every=2'].map(parseBehaviourSpec);
    expect(behavioursByMethod(parsed)).toEqual({
      '*': [{ type: 'latency', ms: 10 }, { type: 'rate-limit', everyNth: 2 }],
      sendTransaction: [{ type: 'hang' }],
    });
  });
});
