import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import { answerAfter } from '../helpers/scripted-executor.js';
import { createTestPool, type TestPool } from '../pool/pool-fixtures.js';

/**
 * Equal endpoints must share within noise (issue 27 §1): on the fake clock, three endpoints of
 * three operators with the same latency law — jitter, a rare scheduler-like spike, and a first
 * answer that pays a connection set-up — each keep a fair share; one really 3× slower loses it.
 */
const CALLS = 600;
const ids = ['alpha', 'beta', 'gamma'] as const;

function threeOperators(seed: number, baseMs: Record<(typeof ids)[number], number>): TestPool {
  const t = createTestPool(
    [
      { id: 'alpha', url: 'https://alpha-rpc.com/' },
      { id: 'beta', url: 'https://beta-node.net/' },
      { id: 'gamma', url: 'https://gamma-node.org/' },
    ],
    { retry: { maxRetries: 0 }, concentration: { maxOperatorShare: 0 }, seed },
  );
  const noise = createSeededRandom(seed + 1);
  for (const id of ids) {
    let answered = 0;
    t.executor.script(
      id,
      answerAfter(t.clock, () => {
        const handshakeMs = answered++ === 0 ? 8 * baseMs[id] : 0;
        const spikeMs = noise() < 0.02 ? baseMs[id] * (2 + 4 * noise()) : 0;
        return baseMs[id] * (0.8 + 0.4 * noise()) + spikeMs + handshakeMs;
      }),
    );
  }
  return t;
}

/** `CALLS` sequential reads with distinct params; the share of requests each endpoint received. */
async function shares(t: TestPool): Promise<Record<string, number>> {
  for (let i = 0; i < CALLS; i++) {
    const call = t.pool.request('getSlot', [{ minContextSlot: i }], { timeoutMs: 60_000 });
    let done = false;
    void call.finally(() => (done = true)).catch(() => undefined);
    for (let step = 0; step < 1_000 && !done; step++) await t.clock.advance(1);
    await call;
  }
  const received = t.executor.received;
  return Object.fromEntries(ids.map((id) => [id, received.filter((r) => r.endpointId === id).length / received.length]));
}

describe('equal endpoints share the reads (property, fake clock)', () => {
  it('whatever the seed, three equal endpoints with jitter, spikes and a connection set-up each get at least 25 %', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000 }), async (seed) => {
        const result = await shares(threeOperators(seed, { alpha: 5, beta: 5, gamma: 5 }));
        for (const id of ids) expect(result[id]).toBeGreaterThanOrEqual(0.25);
      }),
      { numRuns: 8, seed: 27 },
    );
  });

  it('whatever the seed, an endpoint really 3× slower than its two peers loses its share', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000 }), async (seed) => {
        const result = await shares(threeOperators(seed, { alpha: 5, beta: 15, gamma: 5 }));
        expect(result['beta']).toBeLessThan(0.25);
      }),
      { numRuns: 8, seed: 27 },
    );
  });
});
