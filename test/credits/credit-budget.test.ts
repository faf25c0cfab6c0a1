import { describe, expect, it } from 'vitest';
import type { CreditBudgetEvent } from '../../src/api/events.js';
import { TransportError } from '../../src/errors/transport-error.js';
import { rejection } from '../helpers/pools.js';
import { createTestPool, endpoint } from '../pool/pool-fixtures.js';
import { idOf, ok } from '../helpers/scripted-executor.js';

/** A paid endpoint whose month holds 1000 credits at 50 per call: 20 calls spend it. */
const paid = (onExhausted: 'refuse' | 'continue') =>
  endpoint('paid', { tier: 0, plan: { creditsPerMonth: 1_000, onExhausted }, cost: { eth_blockNumber: 50 } });

describe('a monthly credit budget (plan.creditsPerMonth)', () => {
  it("says so at 80 %, 95 % and 100 %; with onExhausted 'refuse' the next tier takes the traffic", async () => {
    const t = createTestPool([paid('refuse'), endpoint('backup', { tier: 1 })], { retry: { maxRetries: 0 }, hedge: false, cache: false });
    const events: CreditBudgetEvent[] = [];
    t.pool.on('credit-budget', (event) => events.push(event));
    for (let i = 0; i < 16; i++) await t.pool.request('eth_blockNumber', []);
    expect(events.map((e) => e.threshold)).toEqual([0.8]);
    for (let i = 0; i < 3; i++) await t.pool.request('eth_blockNumber', []);
    expect(events.map((e) => e.threshold)).toEqual([0.8, 0.95]);
    await t.pool.request('eth_blockNumber', []);
    expect(events.at(-1)).toEqual({ atMs: expect.any(Number), endpointId: 'paid', threshold: 1, spentCredits: 1_000, creditsPerMonth: 1_000, refusing: true });
    expect(t.executor.countFor('paid')).toBe(20);
    expect(t.executor.countFor('backup')).toBe(0);

    // Spent: the backup tier takes every call from now on, and the snapshot says why.
    for (let i = 0; i < 5; i++) await t.pool.request('eth_blockNumber', []);
    expect(t.executor.countFor('paid')).toBe(20);
    expect(t.executor.countFor('backup')).toBe(5);
    const credits = t.pool.snapshot().endpoints.find((e) => e.endpointId === 'paid')!.credits;
    expect(credits).toEqual({ creditsPerSecond: undefined, available: undefined, creditsPerMonth: 1_000, spentThisMonth: 1_000, refusing: true });
    await t.pool.close();
  });

  it('with no other endpoint left a call fails at once with BUDGET_EXHAUSTED, nothing sent; the next month admits again', async () => {
    const t = createTestPool([paid('refuse')], { retry: { maxRetries: 0 }, hedge: false, cache: false });
    for (let i = 0; i < 20; i++) await t.pool.request('eth_blockNumber', []);
    const startedAt = t.clock.now();
    const error = await rejection(t.pool.request('eth_blockNumber', [], { timeoutMs: 60_000 }));
    expect(error).toBeInstanceOf(TransportError);
    expect(error.code).toBe('BUDGET_EXHAUSTED');
    expect(error.context).toMatchObject({ endpointIds: ['paid'] });
    expect(error.message).not.toContain('example.com');
    expect(t.clock.now()).toBe(startedAt);
    expect(t.executor.countFor('paid')).toBe(20);

    // The fake wall clock starts 2023-11-14 22:13 UTC: December starts a new month.
    await t.clock.advance(17 * 24 * 3_600_000);
    await expect(t.pool.request('eth_blockNumber', [])).resolves.toBe('default');
    expect(t.executor.countFor('paid')).toBe(21);
    expect(t.pool.snapshot().endpoints[0]!.credits).toMatchObject({ spentThisMonth: 50, refusing: false });
    await t.pool.close();
  });

  it("with onExhausted 'continue' (the default) the events come and the endpoint keeps serving", async () => {
    const t = createTestPool([paid('continue'), endpoint('backup', { tier: 1 })], { retry: { maxRetries: 0 }, hedge: false, cache: false });
    const events: CreditBudgetEvent[] = [];
    t.pool.on('credit-budget', (event) => events.push(event));
    for (let i = 0; i < 25; i++) await t.pool.request('eth_blockNumber', []);
    expect(events.map((e) => [e.threshold, e.refusing])).toEqual([
      [0.8, false],
      [0.95, false],
      [1, false],
    ]);
    expect(t.executor.countFor('paid')).toBe(25);
    await t.pool.close();
  });

  it('bad plans are refused with the field named, before anything is sent', () => {
    const bad = (settings: object) => {
      try {
        createTestPool([endpoint('a', settings)]);
      } catch (error) {
        return (error as TransportError).message;
      }
      return 'accepted';
    };
    expect(bad({ cost: { eth_getLogs: 75 } })).toContain('endpoints[0].cost: needs plan');
    expect(bad({ plan: {} })).toContain('endpoints[0].plan: must set creditsPerSecond or creditsPerMonth');
    expect(bad({ plan: { creditsPerSecond: 10, onExhausted: 'refuse' } })).toContain("endpoints[0].plan.onExhausted: 'refuse' needs plan.creditsPerMonth");
    expect(bad({ plan: { creditsPerSecond: -1 } })).toContain('endpoints[0].plan.creditsPerSecond: must be > 0');
    expect(bad({ plan: { creditsPerSecond: 1, table: 'alchemy' } })).toContain("endpoints[0].plan.table: must be a credit table (creditTables.alchemy, … from 'sturdy-rpc/credits')");
    expect(bad({ plan: { creditsPerSecond: 1 }, cost: { eth_call: -2 } })).toContain('endpoints[0].cost.eth_call: must be >= 0');
  });
});

describe('a per-second credit plan (plan.creditsPerSecond)', () => {
  it("prices a wire batch's every item as it is sent: the next call waits for the debt to be paid back", async () => {
    const t = createTestPool([endpoint('paid', { plan: { creditsPerSecond: 100 }, cost: { eth_getLogs: 75, eth_blockNumber: 10 } })], {
      retry: { maxRetries: 0 },
      hedge: false,
      cache: false,
    });
    t.executor.script('paid', (request) => {
      const items = JSON.parse(request.body) as { id: number }[];
      return { type: 'response', status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(items.map((item) => ({ jsonrpc: '2.0', id: item.id, result: [] }))) };
    }, (request) => ok('0x1', idOf(request)));
    // Three log queries in one request: 225 credits from a bucket of 100, so 125 of debt.
    await t.pool.batch([{ method: 'eth_getLogs', params: [{}] }, { method: 'eth_getLogs', params: [{}] }, { method: 'eth_getLogs', params: [{}] }]);
    expect(t.pool.snapshot().endpoints[0]!.credits!.available).toBeCloseTo(-125);
    const head = t.pool.request('eth_blockNumber', []);
    await t.clock.advance(1_340);
    expect(t.executor.countFor('paid', 'eth_blockNumber')).toBe(0);
    // 135 credits of refill pay the debt and the head read's 10.
    await t.clock.advance(20);
    await expect(head).resolves.toBe('0x1');
    await t.pool.close();
  });
});
