import { describe, expect, it } from 'vitest';
import { createSharedReputationStore, type SharedBench } from '../../src/fleet/reputation-store.js';
import { reputationConfigSchema } from '../../src/reputation/config.js';
import type { ReputationKey } from '../../src/reputation/keys.js';
import type { ReputationEntry } from '../../src/reputation/store.js';
import { initialReputationEntry } from '../../src/reputation/tracker.js';

/**
 * The fleet's merge rule for reputation (issue 24 §7): when a bench from another process meets
 * a cooldown already running here, the LATER end wins — a remote bench can lengthen a cooldown,
 * never shorten it — and levels and strikes take the maximum.
 */

const key = 'endpoint-a' as ReputationKey;
const config = reputationConfigSchema.parse({});

function storeAt(nowMs: number) {
  const told: SharedBench[] = [];
  const store = createSharedReputationStore(
    () => nowMs,
    (_key, bench) => told.push(bench),
    () => undefined,
  );
  return { store, told, fresh: () => initialReputationEntry(config, nowMs) };
}

/** An entry benched here by the strikes detector until `untilMs`, with `strikes` strikes. */
function benchedHere(untilMs: number, strikes: number, nowMs: number): ReputationEntry {
  return { ...initialReputationEntry(config, nowMs), strikes: { strikes, cooldownUntilMs: untilMs } };
}

describe('fleet merge: a remote bench meets a cooldown running here', () => {
  it('an earlier end changes nothing: the cooldown here keeps its later end (and its level)', () => {
    const { store, fresh } = storeAt(1_000);
    store.set(key, benchedHere(61_000, 3, 1_000));
    expect(store.merge(key, { detector: 'strikes', untilMs: 11_000, level: 5, strikes: 5 }, fresh)).toBe(false);
    expect(store.get(key)?.strikes).toEqual({ strikes: 3, cooldownUntilMs: 61_000 });
    // A score verdict travels as a strikes bench: same rule.
    expect(store.merge(key, { detector: 'score', untilMs: 31_000, level: 0, strikes: 1 }, fresh)).toBe(false);
    expect(store.get(key)?.strikes.cooldownUntilMs).toBe(61_000);
  });

  it('a later end wins: the cooldown here is lengthened, the level and strikes take the maximum', () => {
    const { store, told, fresh } = storeAt(1_000);
    store.set(key, benchedHere(11_000, 3, 1_000));
    const toldBefore = told.length;
    expect(store.merge(key, { detector: 'strikes', untilMs: 61_000, level: 2, strikes: 4 }, fresh)).toBe(true);
    expect(store.get(key)?.strikes).toEqual({ strikes: 4, cooldownUntilMs: 61_000 });
    expect(store.get(key)?.reportedCooldownUntilMs).toBe(61_000);
    // Merged, not echoed back to the fleet.
    expect(told.length).toBe(toldBefore);
  });

  it('the same holds per rate detector: an earlier critical-rate bench does not shorten the one running', () => {
    const { store, fresh } = storeAt(0);
    const entry = initialReputationEntry(config, 0);
    store.set(key, { ...entry, criticalRate: { ...entry.criticalRate, trips: 2, cooldownUntilMs: 40_000 } });
    expect(store.merge(key, { detector: 'critical-rate', untilMs: 20_000, level: 1, strikes: 0 }, fresh)).toBe(false);
    expect(store.get(key)?.criticalRate).toMatchObject({ trips: 2, cooldownUntilMs: 40_000 });
    expect(store.merge(key, { detector: 'critical-rate', untilMs: 50_000, level: 1, strikes: 0 }, fresh)).toBe(true);
    expect(store.get(key)?.criticalRate).toMatchObject({ trips: 2, cooldownUntilMs: 50_000 });
  });
});
