import { describe, expect, it } from 'vitest';
import type { BackfillFill, BackfillStep } from '../../src/subscriptions/backfill-types.js';
import { BackfillDriver, type BackfillTarget } from '../../src/subscriptions/backfill-driver.js';

/** A subscription's side as the driver sees it, recording what reaches the caller, in order. */
function target() {
  const delivered: string[] = [];
  const t: BackfillTarget & { delivered: string[]; closed: boolean } = {
    delivered,
    closed: false,
    now: () => 0,
    deliverStep: (step: BackfillStep) => (delivered.push(`fill:${step.kind === 'notification' ? String(step.value) : step.kind}`), true),
    deliverLive: (value: unknown) => void delivered.push(`live:${String(value)}`),
    resumeAfter: () => undefined,
    unfilled: (reason) => void delivered.push(`unfilled:${reason}`),
  };
  return t;
}

/** A strategy whose fills the test answers one by one; `helds` are the held values each fill saw. */
function controlled() {
  const pending: ((fill: BackfillFill) => void)[] = [];
  const helds: unknown[][] = [];
  return {
    pending,
    helds,
    strategy: {
      fill: (held: readonly unknown[]) => {
        helds.push([...held]);
        return new Promise<BackfillFill>((resolve) => pending.push(resolve));
      },
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
const notes = (...values: string[]): BackfillFill => ({ steps: values.map((value) => ({ kind: 'notification', value })) });

describe('backfill driver', () => {
  it('holds live notifications while a fill runs, delivers the fill, then what was held', async () => {
    const t = target();
    const { strategy, pending } = controlled();
    const driver = new BackfillDriver({ strategy, bounds: { maxBlocks: 8, maxMs: 1_000 }, request: () => Promise.resolve(null), holdLimit: 4 }, t);
    driver.rebound();
    expect(driver.holding).toBe(true);
    driver.hold('L1', 0, 0);
    pending[0]!(notes('F1', 'F2'));
    await settle();
    expect(t.delivered).toEqual(['fill:F1', 'fill:F2', 'live:L1']);
    expect(driver.holding).toBe(false);
  });

  it('a rebind during a fill runs another after it (seeing what is held), then releases once', async () => {
    const t = target();
    const { strategy, pending, helds } = controlled();
    const driver = new BackfillDriver({ strategy, bounds: { maxBlocks: 8, maxMs: 1_000 }, request: () => Promise.resolve(null), holdLimit: 4 }, t);
    driver.rebound();
    driver.hold('L1', 0, 0);
    driver.rebound();
    pending[0]!(notes('F1'));
    await settle();
    expect(t.delivered).toEqual(['fill:F1']);
    pending[1]!(notes('F2'));
    await settle();
    expect(helds).toEqual([[], ['L1']]);
    expect(t.delivered).toEqual(['fill:F1', 'fill:F2', 'live:L1']);
  });

  it('more held than the limit: the fill is given up, live delivery resumes at once, its late answer is dropped', async () => {
    const t = target();
    const { strategy, pending } = controlled();
    const driver = new BackfillDriver({ strategy, bounds: { maxBlocks: 8, maxMs: 1_000 }, request: () => Promise.resolve(null), holdLimit: 2 }, t);
    driver.rebound();
    for (const value of ['L1', 'L2', 'L3']) driver.hold(value, 0, 0);
    expect(t.delivered).toEqual(['unfilled:failed', 'live:L1', 'live:L2', 'live:L3']);
    pending[0]!(notes('F1'));
    await settle();
    expect(t.delivered).toEqual(['unfilled:failed', 'live:L1', 'live:L2', 'live:L3']);
  });

  it('closed during a fill: nothing more is delivered, and the fill calls are aborted', async () => {
    const t = target();
    const signals: AbortSignal[] = [];
    const { pending } = controlled();
    const strategy = {
      fill: (_held: readonly unknown[], context: { request(method: string, params: readonly unknown[]): Promise<unknown> }) => {
        void context.request('eth_blockNumber', []);
        return new Promise<BackfillFill>((resolve) => pending.push(resolve));
      },
    };
    const request = (_method: string, _params: readonly unknown[], options: { signal?: AbortSignal }) => {
      signals.push(options.signal!);
      return Promise.resolve(null);
    };
    const driver = new BackfillDriver({ strategy, bounds: { maxBlocks: 8, maxMs: 1_000 }, request, holdLimit: 4 }, t);
    driver.rebound();
    driver.hold('L1', 0, 0);
    t.closed = true;
    driver.close();
    pending[0]!(notes('F1'));
    await settle();
    expect(t.delivered).toEqual([]);
    expect(signals.map((s) => s.aborted)).toEqual([true]);
  });

  it('a fill that throws delivers nothing of its own: the held ones go on, and the gap they leave is marked failed', async () => {
    const t = target();
    const driver = new BackfillDriver({ strategy: { fill: () => Promise.reject(new Error('boom')) }, bounds: { maxBlocks: 8, maxMs: 1_000 }, request: () => Promise.resolve(null), holdLimit: 4 }, t);
    driver.rebound();
    driver.hold('L1', 0, 0);
    await settle();
    expect(t.delivered).toEqual(['unfilled:failed', 'live:L1']);
  });
});
