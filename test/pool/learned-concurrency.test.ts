import { describe, expect, it } from 'vitest';
import type { ConcurrencyLearnedEvent } from '../../src/api/events.js';
import type { RawOutcome } from '../../src/http/executor.js';
import { ok } from '../helpers/scripted-executor.js';
import { createTestPool, endpoint } from './pool-fixtures.js';

describe("maxConcurrentRequests: 'auto'", () => {
  it('grows while demand presses on it and latency holds; a node throttling by delay lowers it', async () => {
    const t = createTestPool([endpoint('node', { maxConcurrentRequests: 'auto' })], { retry: { maxRetries: 0 }, hedge: false, cache: false, coalesce: false, timeoutMs: 60_000 });
    // The node serves `capacity` requests at once in 10 ms and queues the rest: each one beyond adds its share of delay.
    let capacity = 1_000;
    let inFlight = 0;
    let peak = 0;
    t.executor.script('node', (_request, id) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      const delayMs = 10 * Math.max(1, inFlight / capacity);
      return new Promise<RawOutcome>((resolve) =>
        t.clock.setTimer(() => {
          inFlight--;
          resolve(ok('0x1', id));
        }, delayMs),
      );
    });
    const events: ConcurrencyLearnedEvent[] = [];
    t.pool.on('concurrency-learned', (event) => events.push(event));
    const learned = () => t.pool.snapshot().endpoints[0]!.learnedMaxConcurrentRequests!;
    expect(learned()).toBe(20);

    let running = true;
    const callers = Array.from({ length: 200 }, async () => {
      while (running) await t.pool.request('eth_blockNumber', []).catch(() => undefined);
    });
    const run = async (ms: number) => {
      for (let elapsed = 0; elapsed < ms; elapsed += 2) await t.clock.advance(2);
    };
    await run(3_000);
    const grown = learned();
    expect(grown).toBeGreaterThanOrEqual(100);
    expect(peak).toBeLessThanOrEqual(grown + 1);
    expect(events.some((e) => e.toLimit > e.fromLimit)).toBe(true);

    // The node now serves 8 at once and delays the rest.
    capacity = 8;
    await run(2_000);
    expect(learned()).toBeLessThan(grown / 4);
    expect(events.some((e) => e.toLimit < e.fromLimit)).toBe(true);
    // What the node holds at once follows the learned limit down.
    peak = 0;
    await run(1_000);
    expect(peak).toBeLessThanOrEqual(learned() * 2);

    running = false;
    await t.clock.advance(60_000);
    await Promise.all(callers);
    await t.pool.close();
  });

  it("rejects bad bounds with the field named; a role's own number still caps it", () => {
    const message = (settings: object) => {
      try {
        createTestPool([endpoint('a', settings)]);
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(message({ maxConcurrentRequests: { auto: { min: 10, max: 5 } } })).toContain('endpoints[0].maxConcurrentRequests.auto: min must be <= max');
    expect(message({ maxConcurrentRequests: { auto: { start: 1.5 } } })).toContain('endpoints[0].maxConcurrentRequests.auto.start: must be an integer');
    expect(message({ maxConcurrentRequests: 'lots' })).toContain("endpoints[0].maxConcurrentRequests: must be an integer > 0, 'auto' or { auto: { min?, max?, start? } }");
    const t = createTestPool([endpoint('a', { maxConcurrentRequests: 'auto', roles: { submit: { maxConcurrentRequests: 2 } } })]);
    expect(t.pool.snapshot().roles.find((role) => role.kind === 'submit')!.maxConcurrentRequests).toBe(2);
    expect(t.pool.snapshot().roles.find((role) => role.kind === 'read')!.maxConcurrentRequests).toBeUndefined();
  });
});
