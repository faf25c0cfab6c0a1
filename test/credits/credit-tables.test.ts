import { describe, expect, it } from 'vitest';
import { CreditMeter, nextMonthStartMs, type CreditPlan } from '../../src/admission/credit-meter.js';
import { creditTables } from '../../src/credits/index.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';

const plan = (over: Partial<CreditPlan>): CreditPlan => ({ table: undefined, cost: {}, creditsPerSecond: 100, creditsPerMonth: undefined, onExhausted: 'continue', ...over });

describe('credit tables', () => {
  it('every table names its source and the date it was read', () => {
    for (const table of Object.values(creditTables)) {
      expect(table.source).toMatch(/^https:\/\//);
      expect(table.readOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it("prices a call: the user's cost, then the provider's method, then '*', then the provider's default; throughput apart from the bill", () => {
    const meter = new CreditMeter(plan({ table: creditTables.alchemy, cost: { eth_call: 30 } }), createFakeClock());
    expect(meter.costOf('eth_call')).toEqual({ billed: 30, throughput: 30 });
    expect(meter.costOf('eth_getLogs')).toEqual({ billed: 60, throughput: 60 });
    expect(meter.costOf('eth_sendRawTransaction')).toEqual({ billed: 40, throughput: 250 });
    expect(meter.costOf('alchemy_unknownMethod')).toEqual({ billed: 20, throughput: 20 });
    const own = new CreditMeter(plan({ table: creditTables.infura, cost: { '*': 3 } }), createFakeClock());
    expect(own.costOf('eth_getLogs')).toEqual({ billed: 255, throughput: 255 });
    expect(own.costOf('made_up')).toEqual({ billed: 3, throughput: 3 });
    expect(new CreditMeter(plan({}), createFakeClock()).costOf('anything')).toEqual({ billed: 1, throughput: 1 });
  });

  it('a call dearer than the whole burst waits for a full bucket, not forever', () => {
    const clock = createFakeClock();
    const meter = new CreditMeter(plan({ cost: { debug_traceBlock: 1_000 } }), clock);
    expect(meter.blockedUntil(clock.now(), 'debug_traceBlock')).toBe(0);
    meter.take(clock.now(), 'debug_traceBlock');
    // 900 credits of debt, then a full bucket of 100: 10 s at 100 credits/s.
    expect(meter.blockedUntil(clock.now(), 'debug_traceBlock')).toBe(clock.now() + 10_000);
  });

  it('months are UTC calendar months', () => {
    expect(new Date(nextMonthStartMs(Date.UTC(2026, 11, 31, 23, 59))).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(new Date(nextMonthStartMs(Date.UTC(2026, 1, 1))).toISOString()).toBe('2026-03-01T00:00:00.000Z');
  });
});
