import { describe, expect, it } from 'vitest';
import { DEFAULT_LEARNED_RATE, initialLearnedRate } from '../../src/admission/learned-rate.js';
import { decideFleetRate, LearnedLeasedBucket, tunerOf } from '../../src/fleet/learned-lease.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { createMemoryBackend } from './memory-backend.js';

/**
 * The fleet's one tuner per learned budget (`fleet/learned-lease.ts`) over the Redis scripts'
 * semantics in memory, on a fake clock: members spend nothing here (no leases are taken), they
 * only report what admission counted and hear the fleet's rate.
 */
const SETTINGS = { ...DEFAULT_LEARNED_RATE, startRps: 20 };
const LEASE_MS = 3_000;

function fleetOf(members: number) {
  const clock = createFakeClock();
  const backend = createMemoryBackend(clock);
  const buckets = Array.from({ length: members }, (_, i) => {
    const run = <T>(command: () => Promise<T>) => command();
    return new LearnedLeasedBucket({ key: 'budget', requestsPerSecond: 20, burstCapacity: 20, learned: SETTINGS }, 100, clock, () => 0.5, {
      take: () => Promise.resolve({ granted: 0, waitMs: 1_000 }),
      changed: () => undefined,
      ...tunerOf(backend, 'budget', `member-${i}`, LEASE_MS, run),
    });
  });
  /** One demand window: every member's timer reports, in order (each report runs to its end). */
  const window = () => clock.advance(1_000);
  return { clock, backend, buckets, window };
}

describe("the fleet's tuner of a learned rate", () => {
  it('four members whose demand presses on the rate raise it once per window together, as one learner would', async () => {
    const { clock, buckets, window } = fleetOf(4);
    await window(); // the first owner takes the lease; nothing counted yet
    for (let round = 0; round < 5; round++) {
      // Each member took a quarter of the rate and was refused more: the fleet pressed on it.
      for (const bucket of buckets) {
        for (let i = 0; i < bucket.rateRps / 4; i++) bucket.charge(1, clock.now());
        bucket.tryTake(clock.now());
      }
      await window();
    }
    const rates = buckets.map((bucket) => bucket.rateRps);
    // The same rate in every member; raised (the owner hears the others' counts a window late, so not
    // every window raises), at most as often as one learner would in 5 windows: 10 %, then a growing step.
    expect(new Set(rates).size).toBe(1);
    expect(rates[0]).toBeGreaterThan(20 * 1.1 * 1.1);
    expect(rates[0]).toBeLessThanOrEqual(20 * 1.1 * 1.2 * 1.4 * 1.5 * 1.5 + 1e-9);
  });

  it('one 429 storm reported by every member lowers the fleet rate once, not once per member or per report window', async () => {
    const { clock, buckets, window } = fleetOf(4);
    await window();
    for (const bucket of buckets) bucket.onRateLimited(clock.now(), {});
    await window();
    const lowered = buckets[0]!.rateRps;
    expect(lowered).toBeLessThan(20);
    expect(lowered).toBeGreaterThanOrEqual(20 * 0.9 - 1e-9);
    // The same storm's late reports, a window later: held.
    for (const bucket of buckets) bucket.onRateLimited(clock.now(), {});
    await window();
    expect(buckets.map((bucket) => bucket.rateRps)).toEqual([lowered, lowered, lowered, lowered]);
    // A provider's stated rate wins at once, for every member.
    buckets[2]!.onRateLimited(clock.now(), { allowedRps: 7 });
    await window();
    await window();
    expect(buckets.map((bucket) => bucket.rateRps)).toEqual([7, 7, 7, 7]);
  });

  it('when the owner leaves another member takes the tuner over at once; when it dies, after its lease', async () => {
    const { clock, backend, buckets, window } = fleetOf(1);
    await window();
    // Two more members, reporting by hand: member-0 owns the tuner, so their reports do not.
    const start = { rateRps: 20, step: 0.1, direction: 0 as const, refusedAtRps: undefined, reason: 'demand' as const };
    const counts = { admitted: 0, refused: 0, rateLimited: 0, undelayed: 0, allowedRps: 0 };
    const report = async (member: string) => (await backend.tune('budget', member, counts, start, LEASE_MS, false)).owner;
    expect(await report('member-x')).toBe(false);
    buckets[0]!.stop();
    await clock.flush();
    expect(await report('member-x')).toBe(true);
    // member-x dies (it never reports again, nor releases): member-y waits out its lease.
    expect(await report('member-y')).toBe(false);
    await clock.advance(LEASE_MS - 1);
    expect(await report('member-y')).toBe(false);
    await clock.advance(2);
    expect(await report('member-y')).toBe(true);
  });

  it("the owner's decision: a stated rate first, then one held decrease, then a raise only under pressing demand", () => {
    const state = initialLearnedRate(SETTINGS);
    const none = { admitted: 0, refused: 0, rateLimited: 0, undelayed: 0, allowedRps: 0 };
    expect(decideFleetRate(state, { ...none, allowedRps: 12, undelayed: 3 }, 1_000, 0, SETTINGS).state.rateRps).toBe(12);
    const lowered = decideFleetRate(state, { ...none, admitted: 20, rateLimited: 2, undelayed: 2 }, 1_000, 0, SETTINGS).state;
    expect(lowered.rateRps).toBeLessThan(20);
    // Held: the same storm's later reports leave the state as it is (its direction and hold too).
    expect(decideFleetRate(lowered, { ...none, admitted: 20, rateLimited: 2, undelayed: 2 }, 1_000, 1_000, SETTINGS).state).toBe(lowered);
    // Quiet demand (half the rate) never raises it; pressing demand does.
    expect(decideFleetRate(state, { ...none, admitted: 10, refused: 0 }, 1_000, 0, SETTINGS).state.rateRps).toBe(20);
    expect(decideFleetRate(state, { ...none, admitted: 20, refused: 5 }, 1_000, 0, SETTINGS).state.rateRps).toBeCloseTo(22);
  });

  it("the owner's decision hears the provider late: a decrease lands on what the provider accepted, decreases in a row keep their step, raises grow to 20 % at most", () => {
    const none = { admitted: 0, refused: 0, rateLimited: 0, undelayed: 0, allowedRps: 0 };
    const at = (rateRps: number, step: number, direction: -1 | 0 | 1) => ({ ...initialLearnedRate(SETTINGS), rateRps, step, direction });
    // 46/s sent for two windows, 16 refused: the provider accepted 38 a second, and the rate goes just under it.
    const storm = { ...none, admitted: 92, rateLimited: 16, undelayed: 16 };
    expect(decideFleetRate(at(46, 0.2, 1), storm, 2_000, 0, SETTINGS).state.rateRps).toBeCloseTo(38 * 0.975);
    // Its tail, after the hold: the step stays 10 %, not 20 %.
    const tail = decideFleetRate(at(40, 0.1, -1), { ...none, admitted: 10, rateLimited: 12, undelayed: 12 }, 2_000, 0, SETTINGS).state;
    expect(tail.rateRps).toBeCloseTo(36);
    expect(tail.step).toBe(0.1);
    // Raises in a row: 10 %, 20 %, then 20 % again, not 40 %.
    const pressing = (rateRps: number) => ({ ...none, admitted: rateRps, refused: 5 });
    expect(decideFleetRate(at(20, 0.1, 1), pressing(20), 1_000, 0, SETTINGS).state.rateRps).toBeCloseTo(24);
    const raised = decideFleetRate(at(24, 0.2, 1), pressing(24), 1_000, 0, SETTINGS).state;
    expect(raised.rateRps).toBeCloseTo(28.8);
    expect(raised.step).toBe(0.2);
  });
});
