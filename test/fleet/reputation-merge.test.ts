import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import type { EndpointConfig } from '../../src/config/types.js';
import type { FleetCoordinator } from '../../src/fleet/coordinator.js';
import { createSharedReputationStore, type SharedBench } from '../../src/fleet/reputation-store.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { reputationConfigSchema } from '../../src/reputation/config.js';
import type { ReputationKey } from '../../src/reputation/keys.js';
import type { ReputationEntry } from '../../src/reputation/store.js';
import { initialReputationEntry } from '../../src/reputation/tracker.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { createScriptedExecutor, ok } from '../helpers/scripted-executor.js';
import { createMemoryBackend, memoryFleet } from './memory-backend.js';

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

describe('fleet merge, as a pool reports it', () => {
  const open: { pools: HttpTransportPool[]; fleets: FleetCoordinator[] } = { pools: [], fleets: [] };
  afterEach(async () => {
    await Promise.all(open.pools.splice(0).map((pool) => pool.close()));
    await Promise.all(open.fleets.splice(0).map((fleet) => fleet.close()));
  });

  it("another process's bench of an endpoint benched here lengthens its cooldown when it ends later, never shortens it", async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const fleet = memoryFleet(backend, clock, { memberId: 'b' });
    const endpoints: EndpointConfig[] = [
      { id: 'html', url: 'https://html.example.org/KEY', tier: 0 },
      { id: 'good', url: 'https://good.example.com/KEY', tier: 1 },
    ];
    const executor = createScriptedExecutor({
      html: [() => ({ type: 'response', status: 200, headers: { 'content-type': 'text/html' }, body: '<html>blocked</html>' })],
      good: [(_request, id) => ok(1, id)],
    });
    const pool = new HttpTransportPool({ endpoints, executor, clock, random: createSeededRandom(3), fleet, hedge: false, coalesce: false });
    open.pools.push(pool);
    open.fleets.push(fleet);
    const remaining = () => pool.snapshot().endpoints.find((e) => e.endpointId === 'html')?.reputation?.cooldownRemainingMs ?? 0;
    // HTML answers make the pool tell the fleet a bench of its own: that is how the fact's key is known here.
    for (let i = 0; i < 40 && !backend.told().some((t) => t.fact.topic === 'bench'); i++) {
      const call = pool.request('getSlot', [], { timeoutMs: 500 }).catch(() => undefined);
      await clock.advance(10);
      await call;
    }
    const told = backend.told().find((t) => t.from === 'b' && t.fact.topic === 'bench')!.fact;
    const bench = (ttlMs: number) => ({ ...told, ttlMs, data: { detector: 'strikes', level: 3, strikes: 3 } });
    // Another process benched it for an hour (after this one's first poll placed it in the log): a cooldown runs here.
    await clock.advance(100);
    await backend.share('a', bench(3_600_000));
    await clock.advance(100);
    const running = remaining();
    expect(running).toBeGreaterThan(3_600_000 - 200);
    // A third one benched it for 10 s: earlier than the end here, so nothing changes.
    await backend.share('c', bench(10_000));
    await clock.advance(100);
    expect(remaining()).toBe(running - 100);
    // Two hours: the later end wins.
    await backend.share('c', bench(7_200_000));
    await clock.advance(100);
    expect(remaining()).toBeGreaterThan(7_200_000 - 200);
  });
});
