import { describe, expect, it } from 'vitest';
import { GradientLimit } from '../../src/admission/gradient-limit.js';

/** A node that serves `capacity` requests at once and queues the rest: latency grows with what is in flight beyond it. */
const queueingLatency = (baseMs: number, capacity: number) => (inFlight: number) => baseMs * Math.max(1, inFlight / capacity);

describe('GradientLimit (Gradient2-like)', () => {
  it('grows while demand presses on it and latency holds; never past its ceiling', () => {
    const limit = new GradientLimit({ min: 4, max: 60, start: 20 });
    for (let i = 0; i < 500; i++) limit.onSample(10, limit.limit);
    expect(limit.limit).toBe(60);
  });

  it('does not grow while demand stays under half of it', () => {
    const limit = new GradientLimit({ min: 4, max: 500, start: 20 });
    for (let i = 0; i < 5_000; i++) limit.onSample(10, 9);
    expect(limit.limit).toBe(20);
  });

  it('a node that throttles by delay lowers it toward what the node serves at once', () => {
    const limit = new GradientLimit({ min: 4, max: 500, start: 20 });
    const latency = queueingLatency(10, 1_000);
    // A fast node first: the limit climbs under pressure.
    for (let i = 0; i < 300; i++) limit.onSample(latency(limit.limit), limit.limit);
    const before = limit.limit;
    expect(before).toBeGreaterThanOrEqual(100);
    // Then it serves 8 at once and queues the rest: every request beyond 8 adds delay.
    const throttled = queueingLatency(10, 8);
    const seen: number[] = [];
    for (let i = 0; i < 200; i++) seen.push(limit.onSample(throttled(limit.limit), limit.limit));
    expect(Math.min(...seen)).toBeLessThanOrEqual(16);
    expect(seen.at(-1)!).toBeLessThan(before / 2);
  });

  it('keeps its floor', () => {
    const limit = new GradientLimit({ min: 4, max: 500, start: 20 });
    for (let i = 0; i < 50; i++) limit.onSample(10, 20);
    for (let i = 0; i < 500; i++) limit.onSample(10_000, 20);
    expect(limit.limit).toBeGreaterThanOrEqual(4);
  });
});
