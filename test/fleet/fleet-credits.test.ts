import { afterEach, describe, expect, it } from 'vitest';
import type { CreditBudgetEvent } from '../../src/api/events.js';
import type { EndpointConfig } from '../../src/config/types.js';
import { createFakeClock, type FakeClock } from '../../src/testing/fake-clock.js';
import { createMemoryBackend, type MemoryBackend } from './memory-backend.js';
import { closeMembers, drive, inWindow, member, type Member } from './fleet-members.js';
import { keyOf, normalizedUrl } from '../../src/parts/fleet-keys.js';

/**
 * Credit plans in fleet mode (issue 30 §3), deterministic: "processes" are coordinators with
 * their own pools on one in-memory store with the Redis scripts' semantics, on a fake clock.
 * A plan is the provider account's: its month's spend and its credits per second are the
 * fleet's, not each process's.
 */

afterEach(closeMembers);

/** 1 000 credits a month at 50 per call (20 calls spend it), refused past it; a free backup tier. */
const PAID: EndpointConfig = {
  id: 'paid',
  url: 'https://paid.example.com/v2/KEY',
  tier: 0,
  kinds: ['read'],
  plan: { creditsPerMonth: 1_000, onExhausted: 'refuse' },
  cost: { getSlot: 50 },
};
const BACKUP: EndpointConfig = { id: 'backup', url: 'https://backup.example.com/', tier: 1, kinds: ['read'] };

interface Worker extends Member {
  readonly budget: CreditBudgetEvent[];
}

function worker(clock: FakeClock, backend: MemoryBackend, id: string, endpoints: EndpointConfig[] = [PAID, BACKUP]): Worker {
  const m = member(clock, backend, id, endpoints, {}, { retry: { maxRetries: 0 }, cache: false });
  const budget: CreditBudgetEvent[] = [];
  m.pool.on('credit-budget', (event) => budget.push(event));
  return { ...m, budget };
}

/** `n` calls one after another, the clock moving while each is answered (5 ms). */
async function calls(clock: FakeClock, w: Worker, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    let done = false;
    const call = w.pool.request('getSlot', [], { timeoutMs: 1_000 }).finally(() => (done = true));
    for (let step = 0; !done && step < 400; step++) await clock.advance(5);
    await call;
  }
}

/** The store's name for PAID's plan (what every process derives from its URL). */
const keyOfPlan = () => keyOf('credits', normalizedUrl(PAID.url));
const paidCount = (w: Member) => w.arrivals.filter((a) => a.endpointId === 'paid').length;
const spentOf = (w: Member) => w.pool.snapshot().endpoints.find((e) => e.endpointId === 'paid')!.credits!;

/** Lets the background spend syncs run (they go every second). */
async function settle(clock: FakeClock): Promise<void> {
  await clock.advance(1_100);
}

describe('a credit plan shared by a fleet', () => {
  it('one month of spend for all processes: each threshold told once, by the process that crossed it; refused in every process', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const a = worker(clock, backend, 'a');
    const b = worker(clock, backend, 'b');
    await settle(clock);

    await calls(clock, a, 10); // 500
    await settle(clock);
    await calls(clock, b, 6); // 800: b's spend crosses 80 %
    await settle(clock);
    expect(a.budget).toEqual([]);
    expect(b.budget.map((e) => [e.threshold, e.spentCredits])).toEqual([[0.8, 800]]);
    // Both see the fleet's month, not their own part of it.
    expect(spentOf(a)).toMatchObject({ spentThisMonth: 800, refusing: false });
    expect(spentOf(b)).toMatchObject({ spentThisMonth: 800, refusing: false });

    await calls(clock, a, 4); // 1 000: a crosses 95 % and 100 %
    await settle(clock);
    expect(a.budget.map((e) => [e.threshold, e.refusing])).toEqual([
      [0.95, false],
      [1, true],
    ]);
    expect(b.budget.map((e) => e.threshold)).toEqual([0.8]);
    expect(spentOf(b)).toMatchObject({ spentThisMonth: 1_000, refusing: true });

    // Spent: the paid node gets nothing more from either process; the backup tier takes it all.
    await calls(clock, a, 3);
    await calls(clock, b, 3);
    expect(paidCount(a) + paidCount(b)).toBe(20);
    expect(a.arrivals.length + b.arrivals.length - 20).toBe(6);
  });

  it('a process that restarts starts from the fleet’s spend, not from zero', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const first = worker(clock, backend, 'a');
    await calls(clock, first, 17); // 850: 80 % told
    await first.pool.close(); // its last spend reaches the store as it closes
    await first.fleet.close();
    expect(first.budget.map((e) => e.threshold)).toEqual([0.8]);

    const restarted = worker(clock, backend, 'a2');
    await settle(clock);
    expect(spentOf(restarted)).toMatchObject({ spentThisMonth: 850, refusing: false });
    await calls(clock, restarted, 3); // 1 000
    await settle(clock);
    // 80 % was told before the restart; the restarted process tells only what it crossed.
    expect(restarted.budget.map((e) => e.threshold)).toEqual([0.95, 1]);
    await calls(clock, restarted, 2);
    expect(paidCount(first) + paidCount(restarted)).toBe(20);
  });

  it('while the store is out of reach a process judges its own estimate, and its spend reaches the store when it returns', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const a = worker(clock, backend, 'a');
    await calls(clock, a, 6); // 300, synced
    await settle(clock);
    backend.set('down');
    await calls(clock, a, 12); // 900 by its own count: it tells 80 % itself
    expect(a.budget.map((e) => [e.threshold, e.spentCredits])).toEqual([[0.8, 800]]);
    backend.set('up');
    await clock.advance(5_000); // shared again (the poll's probes), and the 600 billed meanwhile sent
    expect(a.fleet.status().mode).toBe('shared');
    const b = worker(clock, backend, 'b');
    await settle(clock);
    expect(spentOf(b)).toMatchObject({ spentThisMonth: 900 });
    // The 80 % threshold is not told again when the store confirms it.
    expect(a.budget.map((e) => e.threshold)).toEqual([0.8]);
  });

  it('a new UTC month starts a new total in the store: the refusal lifts in every process, and the old month is not added to', async () => {
    const clock = createFakeClock({ wallStartMs: Date.UTC(2023, 10, 30, 23, 58) }); // two minutes before December
    const backend = createMemoryBackend(clock);
    const a = worker(clock, backend, 'a');
    const b = worker(clock, backend, 'b');
    await calls(clock, a, 20); // November spent
    await settle(clock);
    expect(spentOf(b)).toMatchObject({ spentThisMonth: 1_000, refusing: true });
    await clock.advance(120_000); // December
    await calls(clock, b, 2);
    await settle(clock);
    expect(paidCount(b)).toBe(2);
    await settle(clock); // b's spend reaches the store on b's tick, a reads it on its own: two ticks at most
    expect(spentOf(a)).toMatchObject({ spentThisMonth: 100, refusing: false });
    expect(await backend.spend(`${keyOfPlan()}:2023-11`, 0)).toEqual({ before: 1_000, after: 1_000 });
    expect(await backend.spend(`${keyOfPlan()}:2023-12`, 0)).toEqual({ before: 100, after: 100 });
  });

  it.each([
    { cost: 10, over: 2 * 10 + 10, fair: 6, concurrency: 8 },
    // A call dearer than a lease (10 credits) is admitted on a full lease and runs into debt, which the next leases repay.
    { cost: 75, over: 2 * 75, fair: 1, concurrency: 1 },
  ])('credits per second: two processes together stay within one plan of 100 credits/s ($cost per call), not two', async ({ cost, over, fair, concurrency }) => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const metered: EndpointConfig = { id: 'paid', url: 'https://paid.example.com/v2/KEY', tier: 0, kinds: ['read'], plan: { creditsPerSecond: 100 }, cost: { getSlot: cost } };
    const members = [worker(clock, backend, 'a', [metered]), worker(clock, backend, 'b', [metered])];
    await drive(clock, members, 6_000, concurrency);
    expect(members.flatMap((m) => m.failures)).toEqual([]);
    // After the first second's burst: 100 credits a second for the fleet, plus at most what a lease or one call's debt lets each process run ahead.
    for (let start = 1_000; start + 1_000 <= 6_000; start += 250) expect(inWindow(members, start, start + 1_000) * cost).toBeLessThanOrEqual(100 + over);
    expect(inWindow(members, 1_000, 6_000) * cost).toBeGreaterThanOrEqual(0.8 * 500);
    // Both processes get a fair part.
    for (const m of members) expect(inWindow([m], 1_000, 6_000)).toBeGreaterThanOrEqual(fair * 5 / 3);
  });
});
