import { describe, expect, it } from 'vitest';
import type { EndpointConfig } from '../../src/config/types.js';
import type { ReshapeEvent } from '../../src/api/events.js';
import { createTestPool, type TestPool } from './pool-fixtures.js';

/** Two endpoints of one operator (alpha-rpc.com) and one of another (beta-node.net). */
const alphaBeta = (beta: Omit<EndpointConfig, 'url' | 'id'> = {}): EndpointConfig[] => [
  { id: 'a', url: 'https://a.alpha-rpc.com/' },
  { id: 'b', url: 'https://b.alpha-rpc.com/' },
  { id: 'c', url: 'https://beta-node.net/', ...beta },
];

const isAlpha = (id: string): boolean => id === 'a' || id === 'b';

/** `count` sequential admissions (acquire + release), as the pool hands them out; optionally advancing the clock after each. */
async function admit(t: TestPool, count: number, stepMs = 0): Promise<string[]> {
  const got: string[] = [];
  for (let i = 0; i < count; i++) {
    const permit = await t.pool.acquireForRequestKind('read');
    got.push(permit.endpointId);
    permit.release();
    if (stepMs > 0) await t.clock.advance(stepMs);
  }
  return got;
}

const countOf = (ids: readonly string[], pick: (id: string) => boolean): number => ids.filter(pick).length;

/** Largest |taken − share·n| over every prefix n of `ids`, for the endpoints `pick` selects. */
function worstPrefixDeviation(ids: readonly string[], pick: (id: string) => boolean, share: number): number {
  let taken = 0;
  let worst = 0;
  ids.forEach((id, i) => {
    if (pick(id)) taken++;
    worst = Math.max(worst, Math.abs(taken - share * (i + 1)));
  });
  return worst;
}

function collectReshapes(t: TestPool): ReshapeEvent[] {
  const events: ReshapeEvent[] = [];
  t.pool.on('reshape', (event) => events.push(event));
  return events;
}

describe('operator cap in admission', () => {
  it('holds an operator with two of three endpoints to within one request of a 0.65 share over 1 000 admissions and every prefix', async () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const t = createTestPool(alphaBeta(), { seed, concentration: { maxOperatorShare: 0.65 } });
      const got = await admit(t, 1_000);
      expect(Math.abs(countOf(got, isAlpha) - 650)).toBeLessThan(1);
      // Pfair guarantee of the weighted rotation: strictly less than one request off after every admission.
      expect(worstPrefixDeviation(got, isAlpha, 0.65)).toBeLessThan(1);
      // Inside the operator its two endpoints alternate.
      expect(Math.abs(countOf(got, (id) => id === 'a') - countOf(got, (id) => id === 'b'))).toBeLessThanOrEqual(1);
    }
  });

  it('uses the default cap of 0.65 when none is configured', async () => {
    const t = createTestPool(alphaBeta());
    const got = await admit(t, 1_000);
    expect(countOf(got, isAlpha)).toBe(650);
  });

  it('emits one reshape event per reshaped tier, with operators and shares and no URL', async () => {
    const t = createTestPool(
      [
        ...alphaBeta(),
        // Tier 1 has a single operator: nothing to reshape there.
        { id: 'd', url: 'https://d.gamma-rpc.com/', tier: 1 },
        { id: 'e', url: 'https://e.gamma-rpc.com/', tier: 1 },
      ],
      { concentration: { maxOperatorShare: 0.65 } },
    );
    const events = collectReshapes(t);
    await admit(t, 50);
    // Every endpoint serves both built-in kinds, so tier 0 is reshaped once for each kind.
    expect(events.map((e) => [e.kind, e.tier])).toEqual([
      ['read', 0],
      ['submit', 0],
    ]);
    for (const event of events) {
      expect(event).toMatchObject({ maxOperatorShare: 0.65, feasible: true });
      expect(event.operators).toHaveLength(2);
      expect(event.operators[0]).toMatchObject({ operator: 'alpha-rpc.com', members: 2, cappedShare: 0.65 });
      expect(event.operators[0]?.naturalShare).toBeCloseTo(2 / 3, 12);
      expect(event.operators[1]).toMatchObject({ operator: 'beta-node.net', members: 1 });
      expect(event.operators[1]?.naturalShare).toBeCloseTo(1 / 3, 12);
      expect(event.operators[1]?.cappedShare).toBeCloseTo(0.35, 12);
      const text = JSON.stringify(event);
      expect(text).not.toMatch(/https?:|a\.alpha-rpc|b\.alpha-rpc|\/\//);
    }
  });

  for (const cap of [0, 1, 1.5]) {
    it(`falls back to plain rotation with cap ${cap} (the alpha operator keeps its natural 2/3)`, async () => {
      const t = createTestPool(alphaBeta(), { concentration: { maxOperatorShare: cap } });
      const events = collectReshapes(t);
      const got = await admit(t, 999);
      expect(countOf(got, isAlpha)).toBe(666);
      expect(worstPrefixDeviation(got, isAlpha, 2 / 3)).toBeLessThan(1);
      expect(events).toEqual([]);
    });
  }

  it('keeps plain rotation and emits no reshape when one operator runs every endpoint', async () => {
    const t = createTestPool(
      ['a', 'b', 'c'].map((id) => ({ id, url: `https://${id}.alpha-rpc.com/` })),
      { concentration: { maxOperatorShare: 0.65 } },
    );
    const events = collectReshapes(t);
    const got = await admit(t, 999);
    for (const id of ['a', 'b', 'c']) expect(countOf(got, (x) => x === id)).toBe(333);
    got.forEach((id, i) => expect(id).toBe(got[i % 3]));
    expect(events).toEqual([]);
  });

  it('lets the operators that admit split the traffic by their capped targets while an RPS-limited one is blocked', async () => {
    // alpha 2/4, beta 1/4, gamma 1/4 → capped at 0.4: alpha 0.4, beta 0.3, gamma 0.3.
    // gamma admits one call per second and we admit ten per second, so it is blocked
    // nine times in ten; the others must then follow their relative targets 0.4 : 0.3.
    const t = createTestPool(
      [...alphaBeta(), { id: 'd', url: 'https://gamma-node.org/', requestsPerSecond: 1 }],
      { concentration: { maxOperatorShare: 0.4 } },
    );
    const got = await admit(t, 1_000, 100);
    const alpha = countOf(got, isAlpha);
    const beta = countOf(got, (id) => id === 'c');
    const gamma = countOf(got, (id) => id === 'd');
    // Observed: gamma 100 (its RPS), alpha 514, beta 386 — alpha/(alpha+beta) = 0.571 ≈ 4/7.
    expect(gamma).toBeLessThanOrEqual(101);
    expect(Math.abs(alpha - (4 / 7) * (alpha + beta))).toBeLessThan(1);
    const admitting = got.filter((id) => id !== 'd');
    expect(worstPrefixDeviation(admitting, isAlpha, 4 / 7)).toBeLessThan(2);
    expect(Math.abs(countOf(got, (id) => id === 'a') - countOf(got, (id) => id === 'b'))).toBeLessThanOrEqual(1);
  });

  it('gives a blocked operator no burst of owed traffic once it can admit again', async () => {
    // beta (one permit) is held for 300 admissions: alpha must take them all (the cap shapes
    // the rotation; it never refuses a call another operator cannot take).
    const t = createTestPool(alphaBeta({ maxConcurrentRequests: 1 }), { concentration: { maxOperatorShare: 0.65 } });
    const held = await t.pool.acquireForRequestKind('read', { endpoint: 'c' });
    const blocked = await admit(t, 300);
    expect(countOf(blocked, isAlpha)).toBe(300);
    held.release();
    const after = await admit(t, 100);
    // No pile-up of credit: from the release on, every prefix is back within one request of 0.35.
    expect(worstPrefixDeviation(after, (id) => id === 'c', 0.35)).toBeLessThan(1);
    expect(countOf(after.slice(0, 10), (id) => id === 'c')).toBeLessThanOrEqual(4);
  });
});
