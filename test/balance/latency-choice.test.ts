import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OperatorCeiling } from '../../src/balance/operator-ceiling.js';
import { PeakEwma } from '../../src/balance/peak-ewma.js';
import type { EndpointConfig, HttpTransportPoolOptions } from '../../src/config/types.js';
import { answerAfter, type Script } from '../helpers/scripted-executor.js';
import { createTestPool, type TestPool } from '../pool/pool-fixtures.js';

describe('PeakEwma', () => {
  it('jumps to a slower sample at once; each faster answer pulls it a tenth of the way down, however fast answers come', () => {
    const e = new PeakEwma(10_000);
    e.observe(10, 0); // the connection set-up's answer: sets nothing
    e.observe(10, 0);
    e.observe(1_600, 0);
    expect(e.estimate(0, 0)).toBe(1_600);
    e.observe(10, 0);
    expect(e.estimate(0, 0)).toBeCloseTo(1_600 - 0.1 * 1_590, 6);
    for (let i = 0; i < 80; i++) e.observe(10, 0);
    expect(e.estimate(0, 0)).toBeLessThan(12);
  });

  it('relaxes toward the baseline with no traffic, and is 0 (tried first) before any sample', () => {
    const e = new PeakEwma(10_000);
    expect(e.estimate(0, 5)).toBe(0);
    e.observe(1_000, 0);
    expect(e.estimate(0, 5)).toBe(0); // the first answer paid the connection set-up
    e.observe(20_000, 0);
    expect(e.estimate(0, 5)).toBe(20_000);
    // 20 s is long: the full decayMs (10 s) is the time constant.
    expect(e.estimate(30_000, 5)).toBeCloseTo(5 + 19_995 * Math.exp(-3), 6);
    expect(e.estimate(1_000_000, 5)).toBeCloseTo(5, 6);
  });

  it('the idle relaxation is proportional to the endpoint’s latency scale: a 5 ms hiccup of a 0.3 ms node is forgotten in milliseconds, not in decayMs', () => {
    const e = new PeakEwma(10_000);
    e.observe(0.3, 0);
    e.observe(0.3, 0);
    e.observe(5, 0);
    expect(e.estimate(0, 0.3)).toBe(5); // the peak: noticed at once
    // The scale moved a tenth of the way (0.77 ms): one time constant is that much idleness.
    const scaleMs = 0.3 + 4.7 * 0.1;
    expect(e.estimate(1, 0.3)).toBeCloseTo(0.3 + 4.7 * Math.exp(-1 / scaleMs), 6);
    expect(e.estimate(5, 0.3)).toBeLessThan(0.32);
  });

  it('a lower bound (timeout, lost race) relaxes at the full decayMs: it says nothing of the scale', () => {
    const e = new PeakEwma(10_000);
    e.observeAtLeast(50, 0);
    expect(e.estimate(10_000, 1)).toBeCloseTo(1 + 49 * Math.exp(-1), 6);
  });

  it('a cancelled attempt only ever raises the estimate (a lower bound)', () => {
    const e = new PeakEwma(10_000);
    e.observe(100, 0);
    e.observe(100, 0);
    e.observeAtLeast(50, 0);
    expect(e.estimate(0, 0)).toBe(100);
    e.observeAtLeast(400, 0);
    expect(e.estimate(0, 0)).toBe(400);
  });
});

describe('OperatorCeiling', () => {
  it('never lets an operator pass cap · n + 1 on any prefix when every admission asks it first', () => {
    expect(() =>
      fc.assert(
        fc.property(
          fc.double({ min: 0.34, max: 0.9, noNaN: true }),
          fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 3_000 }),
          (cap, wishes) => {
            const ceiling = new OperatorCeiling(cap, 3);
            const counts = [0, 0, 0];
            wishes.forEach((wish, i) => {
              // The wished operator if the ceiling allows it, else the next operator it allows.
              const operator = [wish, (wish + 1) % 3, (wish + 2) % 3].find((o) => ceiling.allows(o)) ?? wish;
              ceiling.record(operator);
              counts[operator]!++;
              if (i < 1_024) for (const count of counts) expect(count).toBeLessThanOrEqual(cap * (i + 1) + 1 + 1e-9);
            });
          },
        ),
      ),
    ).not.toThrow();
  });
});

const answering = (t: TestPool, latencyMs: () => number): Script => answerAfter(t.clock, latencyMs);

/** Runs `count` calls one after another on the fake clock; returns who served each. */
async function sequential(t: TestPool, count: number, method = 'getSlot', params: unknown[] = []): Promise<string[]> {
  const served: string[] = [];
  for (let i = 0; i < count; i++) {
    const before = t.executor.received.length;
    const call = t.pool.request(method, params, { timeoutMs: 60_000 });
    let done = false;
    void call.finally(() => (done = true)).catch(() => undefined);
    // Timers fire at their own instant inside a step, so latencies are exact at any step size.
    for (let step = 0; step < 1_000 && !done; step++) await t.clock.advance(10);
    await call;
    served.push(...t.executor.received.slice(before).map((r) => r.endpointId));
  }
  return served;
}

const share = (served: readonly string[], id: string) => served.filter((s) => s === id).length / served.length;

function pool(endpoints: EndpointConfig[], options: Partial<HttpTransportPoolOptions> = {}): TestPool {
  return createTestPool(endpoints, { retry: { maxRetries: 0 }, ...options });
}

describe('latency-aware choice inside a tier and band', () => {
  it('a 1 600 ms endpoint next to a 1 ms one: after its first slow answer it gets only the exploring ~1 % of reads', async () => {
    const t = pool([{ id: 'slow', url: 'https://slow.example.com/' }, { id: 'fast', url: 'https://fast.example.com/' }]);
    t.executor.script('slow', answering(t, () => 1_600));
    t.executor.script('fast', answering(t, () => 1));
    const warmUp = await sequential(t, 20);
    expect(warmUp).toContain('slow');
    const served = await sequential(t, 400);
    expect(share(served, 'slow')).toBeLessThanOrEqual(0.02);
    expect(share(served, 'fast')).toBeGreaterThanOrEqual(0.98);
  });

  it('sends never explore: after the slow endpoint answered once, no send goes to it', async () => {
    const t = pool([{ id: 'slow', url: 'https://slow.example.com/' }, { id: 'fast', url: 'https://fast.example.com/' }]);
    t.executor.script('slow', answering(t, () => 1_600));
    t.executor.script('fast', answering(t, () => 1));
    await sequential(t, 20);
    const served = await sequential(t, 200, 'relay_submit', [1]);
    expect(served.filter((id) => id === 'slow')).toEqual([]);
  });

  it('with balance: false the rotation alone decides: the slow endpoint keeps its half', async () => {
    // No hedges either: a 100 ms answer next to 1 ms ones is late, and its hedge would add a request on top of the rotation's.
    const t = pool([{ id: 'slow', url: 'https://slow.example.com/' }, { id: 'fast', url: 'https://fast.example.com/' }], { balance: false, hedge: false });
    t.executor.script('slow', answering(t, () => 100));
    t.executor.script('fast', answering(t, () => 1));
    const served = await sequential(t, 100);
    expect(share(served, 'slow')).toBe(0.5);
  });

  const threeOperators = (betaMs: number, cap: number) => {
    const t = pool(
      [
        { id: 'alpha', url: 'https://alpha-rpc.com/' },
        { id: 'beta', url: 'https://beta-node.net/' },
        { id: 'gamma', url: 'https://gamma-node.org/' },
      ],
      { concentration: { maxOperatorShare: cap } },
    );
    t.executor.script('alpha', answering(t, () => 10));
    t.executor.script('beta', answering(t, () => betaMs));
    t.executor.script('gamma', answering(t, () => 10));
    return t;
  };

  it('a slower operator’s share falls below its natural share, and no operator passes the cap (a ceiling)', async () => {
    // Three operators of one endpoint each (natural share 1/3), cap 0.4; beta twice as slow.
    const t = threeOperators(20, 0.4);
    await sequential(t, 30);
    const served = await sequential(t, 600);
    expect(share(served, 'beta')).toBeLessThan(1 / 3 - 0.05);
    for (const id of ['alpha', 'gamma']) expect(share(served, id)).toBeLessThanOrEqual(0.4 + 2 / served.length);
  });

  it('the cap yields to a latency outlier (4× slower or more): it gets no share it cannot serve in time', async () => {
    const t = threeOperators(300, 0.4);
    await sequential(t, 30);
    const served = await sequential(t, 600);
    expect(share(served, 'beta')).toBeLessThanOrEqual(0.02);
  });

  it('an endpoint that was slow is tried again as its estimate relaxes, and wins its share back once fast', async () => {
    let slowMs = 1_600;
    const t = pool([{ id: 'was-slow', url: 'https://a.example.com/' }, { id: 'fast', url: 'https://b.example.com/' }], { balance: { exploreRatio: 0 } });
    t.executor.script('was-slow', answering(t, () => slowMs));
    t.executor.script('fast', answering(t, () => 5));
    await sequential(t, 20);
    slowMs = 5;
    expect(share(await sequential(t, 50), 'was-slow')).toBe(0);
    // No exploration at all: only the decay toward the pool's median brings it back.
    await t.clock.advance(120_000);
    const later = await sequential(t, 200);
    expect(share(later, 'was-slow')).toBeGreaterThan(0.3);
  });
});
