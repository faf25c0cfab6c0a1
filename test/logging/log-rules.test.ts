import { describe, expect, it } from 'vitest';
import { LOG_RULES, type LogEntry, type LogMemory } from '../../src/logging/log-rules.js';
import type { PoolEventMap, PoolEventName } from '../../src/api/events.js';

function line<E extends PoolEventName>(name: E, event: PoolEventMap[E], memory: LogMemory = { bands: new Map() }): [string, string] | undefined {
  const rule = LOG_RULES[name] as ((e: PoolEventMap[E], m: LogMemory) => LogEntry | undefined) | undefined;
  const entry = rule?.(event, memory);
  return entry && [entry.level, entry.message];
}

describe('log rules', () => {
  it('logs state changes at their level, with ids only', () => {
    expect(line('reputation', { atMs: 0, endpointId: 'a', change: 'cooldown-start', score: 41.6, band: 'poor', detector: 'critical-rate', cooldownMs: 600_000 })).toEqual([
      'warn',
      "sturdy-rpc: endpoint 'a' benched for 600000 ms (critical-rate, score 42)",
    ]);
    expect(line('reputation', { atMs: 0, endpointId: 'a', change: 'cooldown-end', score: 80, band: 'good' })).toEqual(['info', "sturdy-rpc: endpoint 'a' bench over (score 80)"]);
    expect(line('chain', { atMs: 0, endpointId: 'b', status: 'check-failed', detail: 'http-502', retryInMs: 5_000 })).toEqual([
      'warn',
      "sturdy-rpc: endpoint 'b' chain check failed (http-502); asking again in 5000 ms",
    ]);
    expect(line('chain', { atMs: 0, endpointId: 'b', status: 'verified' })).toEqual(['info', "sturdy-rpc: endpoint 'b' chain verified"]);
    expect(line('reconcile', { atMs: 0, endpointId: 'c', method: 'sendTransaction', found: true, lookups: 2 })).toEqual([
      'info',
      'sturdy-rpc: ambiguous sendTransaction found on chain after 2 lookup(s)',
    ]);
    expect(line('reconcile', { atMs: 0, endpointId: 'c', method: 'sendTransaction', found: false, lookups: 6 })?.[0]).toBe('warn');
    expect(line('breaker', { atMs: 0, endpointIds: ['a', 'b'], operator: 'example.com', state: 'closed' })).toEqual([
      'info',
      'sturdy-rpc: host breaker closed (operator example.com; endpoints a, b)',
    ]);
    expect(line('reshape', { atMs: 0, kind: 'read', tier: 0, maxOperatorShare: 0.65, feasible: false, operators: [] })?.[0]).toBe('debug');
  });

  it('a monthly credit threshold is a warning, a spent budget that refuses an error; a learned concurrency that drops is info', () => {
    expect(line('credit-budget', { atMs: 0, endpointId: 'paid', threshold: 0.8, spentCredits: 800.4, creditsPerMonth: 1_000, refusing: false })).toEqual([
      'warn',
      "sturdy-rpc: endpoint 'paid' spent 80 % of its monthly credits (800 of 1000)",
    ]);
    expect(line('credit-budget', { atMs: 0, endpointId: 'paid', threshold: 1, spentCredits: 1_000, creditsPerMonth: 1_000, refusing: true })).toEqual([
      'error',
      "sturdy-rpc: endpoint 'paid' spent 100 % of its monthly credits (1000 of 1000): it takes no more calls this month",
    ]);
    expect(line('concurrency-learned', { atMs: 0, endpointId: 'a', fromLimit: 40, toLimit: 12 })).toEqual(['info', "sturdy-rpc: endpoint 'a' learned concurrency 40 -> 12 in flight"]);
    expect(line('concurrency-learned', { atMs: 0, endpointId: 'a', fromLimit: 12, toLimit: 13 })?.[0]).toBe('debug');
  });

  it('an endpoint falling behind the tip is a warning, catching up is info', () => {
    const head = { atMs: 0, endpointId: 'n', quantity: 'slot', head: 1_000n, tip: 1_250n, lag: 250n, syncAllowance: 100 } as const;
    expect(line('head', { ...head, state: 'lagging' })).toEqual(['warn', "sturdy-rpc: endpoint 'n' is 250 slots behind the tip (allowance 100): out of rotation"]);
    expect(line('head', { ...head, state: 'fresh', head: 1_240n, lag: 10n })).toEqual(['info', "sturdy-rpc: endpoint 'n' caught up (10 slots behind the tip): back in rotation"]);
    expect(line('probe', { atMs: 0, endpointId: 'n', endpointIds: ['n'], method: 'getSlot', reason: 'lagging', outcome: 'ok' })).toBeUndefined();
  });

  it('band changes are debug, except leaving rotation (warn) and coming back (info)', () => {
    const memory: LogMemory = { bands: new Map() };
    const band = (b: string, score: number) => line('reputation', { atMs: 0, endpointId: 'a', change: 'band', score, band: b }, memory)![0];
    expect([band('fair', 60), band('ineligible', 20), band('poor', 40), band('fair', 60)]).toEqual(['debug', 'warn', 'info', 'debug']);
  });

  it('never logs per call or per response: attempts, successes, failures, 429s and hedges have no rule', () => {
    for (const name of ['attempt', 'success', 'failure', 'rate-limited', 'hedge'] as const) expect(LOG_RULES[name], name).toBeUndefined();
  });
});
