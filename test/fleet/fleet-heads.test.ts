/**
 * Fleet mode shares head observations: two "processes" (coordinators with their own member
 * ids, each with its own pool and scripted endpoints on one Solana chain) on one in-memory
 * store with the Redis scripts' semantics, on a fake clock. What each executor received is
 * what the nodes saw from that process.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import type { FleetCoordinator } from '../../src/fleet/coordinator.js';
import { decodeHeadFact, HEAD_FACT_TTL_MS, HeadTeller } from '../../src/fleet/head-facts.js';
import { believeRemoteHead } from '../../src/health/remote-head.js';
import type { FleetFact } from '../../src/fleet/types.js';
import type { ExecuteRequest } from '../../src/http/executor.js';
import type { FleetEvent, HeadEvent, ProbeEvent } from '../../src/api/events.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createFakeClock, type FakeClock } from '../../src/testing/fake-clock.js';
import { createScriptedExecutor, ok } from '../helpers/scripted-executor.js';
import { createMemoryBackend, memoryFleet, type MemoryBackend } from './memory-backend.js';

const IDS = ['x', 'y', 'z'] as const;
const POLL_MS = 50;
const PROBE_MS = 10_000;
/** The endpoints' URLs hide a key in the path, the query and the userinfo: none may reach the store. */
const urlOf = (id: string) => `https://user:SECRETPASS@${id}.example-rpc.com/v2/SECRETPATH?api-key=SECRETQUERY`;

/** A Solana chain whose tip advances 1 slot per 400 ms; each endpoint answers `lag` slots behind it. */
function createChain(clock: FakeClock) {
  const lag: Record<string, number> = { x: 0, y: 0, z: 0 };
  const tip = () => 1_000_000 + Math.floor(clock.now() / 400);
  return { lag, tip };
}
type Chain = ReturnType<typeof createChain>;

interface Member {
  readonly pool: HttpTransportPool;
  readonly fleet: FleetCoordinator;
  readonly received: { endpointId: string; method: string; atMs: number }[];
  /** Head events with the clock reading when they fired (their `atMs` is the observation's time). */
  readonly heads: (HeadEvent & { firedAtMs: number })[];
  readonly probes: ProbeEvent[];
  readonly fleetEvents: FleetEvent[];
}

const open: { pools: HttpTransportPool[]; fleets: FleetCoordinator[] } = { pools: [], fleets: [] };

afterEach(async () => {
  await Promise.all(open.pools.splice(0).map((pool) => pool.close()));
  await Promise.all(open.fleets.splice(0).map((fleet) => fleet.close()));
});

function member(clock: FakeClock, backend: MemoryBackend, chain: Chain, id: string, seed: number): Member {
  const fleet = memoryFleet(backend, clock, { memberId: id, pollIntervalMs: POLL_MS });
  const received: Member['received'] = [];
  const executor = createScriptedExecutor();
  for (const endpointId of IDS) {
    executor.script(endpointId, (request: ExecuteRequest, rpcId: number) => {
      const { method } = JSON.parse(request.body) as { method: string };
      received.push({ endpointId, method, atMs: clock.now() });
      const head = chain.tip() - chain.lag[endpointId]!;
      if (method === 'getSlot') return ok(head, rpcId);
      return ok({ context: { slot: head }, value: 1 }, rpcId);
    });
  }
  const pool = new HttpTransportPool({
    endpoints: IDS.map((e) => ({ id: e, url: urlOf(e) })),
    chain: 'solana',
    executor,
    clock,
    random: createSeededRandom(seed),
    fleet,
    hedge: false,
    coalesce: false,
    concentration: { maxOperatorShare: 0 },
    health: { probeIntervalMs: PROBE_MS },
  });
  const m: Member = { pool, fleet, received, heads: [], probes: [], fleetEvents: [] };
  pool.on('head', (event) => m.heads.push({ ...event, firedAtMs: clock.now() }));
  pool.on('probe', (event) => m.probes.push(event));
  pool.on('fleet', (event) => m.fleetEvents.push(event));
  open.pools.push(pool);
  open.fleets.push(fleet);
  return m;
}

/** `count` reads on `m`, one every `stepMs`. */
async function reads(clock: FakeClock, m: Member, count: number, stepMs = 100): Promise<void> {
  for (let i = 0; i < count; i++) {
    const call = m.pool.request('getBalance', ['11111111111111111111111111111111']);
    await clock.advance(5);
    await call;
    await clock.advance(stepMs);
  }
}

const stateOf = (m: Member, id: string) => m.pool.snapshot().endpoints.find((e) => e.endpointId === id)!.health;
const readsTo = (m: Member, id: string, fromMs = 0) => m.received.filter((r) => r.endpointId === id && r.method === 'getBalance' && r.atMs >= fromMs).length;

/** A head fact as another (rogue or late) process would put it in the store: the key is the one the pools use for `z`. */
async function tellAsRogue(backend: MemoryBackend, headKey: string, data: Record<string, string>, ttlMs: number): Promise<void> {
  const fact: FleetFact = { topic: 'head', key: headKey, ttlMs, data };
  await backend.share('rogue', fact);
}

/** The head key the fleet uses for the lagging endpoint `z`: the one told with the lowest heads (the test never recomputes the hash). */
function headKeyOfLagging(backend: MemoryBackend): string {
  const told = backend.told().filter((entry) => entry.fact.topic === 'head');
  expect(new Set(told.map((entry) => entry.fact.key)).size).toBe(3);
  return told.reduce((low, entry) => (BigInt(entry.fact.data['head'] as string) < BigInt(low.fact.data['head'] as string) ? entry : low)).fact.key;
}

/** Two processes; z is 200 slots behind; A has read 8 times (and seen z lagging), B nothing. */
async function twoMembersAfterASawZLagging() {
  const clock = createFakeClock();
  const backend = createMemoryBackend(clock);
  const chain = createChain(clock);
  chain.lag['z'] = 200;
  const a = member(clock, backend, chain, 'a', 3);
  const b = member(clock, backend, chain, 'b', 4);
  await clock.advance(1);
  await reads(clock, a, 8);
  return { clock, backend, chain, a, b };
}

describe('fleet mode: head observations', () => {
  it('process B excludes an endpoint only process A saw lagging, within one poll interval, without a request of its own to it', async () => {
    const { clock, backend, a, b } = await twoMembersAfterASawZLagging();
    const seenByA = a.heads.find((e) => e.endpointId === 'z' && e.state === 'lagging');
    expect(seenByA).toBeDefined();
    // B has sent nothing yet; it judges z from A's heads at its next poll.
    expect(b.received).toEqual([]);
    await clock.advance(POLL_MS + 5);
    const seenByB = b.heads.find((e) => e.endpointId === 'z' && e.state === 'lagging');
    expect(seenByB).toBeDefined();
    expect(seenByB!.firedAtMs - seenByA!.firedAtMs).toBeLessThanOrEqual(POLL_MS + 5);
    expect(Number(seenByB!.lag)).toBeGreaterThanOrEqual(195);
    expect(stateOf(b, 'z')).toBe('lagging');
    expect(b.fleetEvents).toContainEqual(expect.objectContaining({ type: 'adopted', topic: 'head', endpointIds: ['z'] }));
    // B's reads never go to z.
    await reads(clock, b, 12);
    expect(readsTo(b, 'z')).toBe(0);
    expect(readsTo(b, 'x') + readsTo(b, 'y')).toBe(12);
    // Heads carry hashed endpoint ids and a decimal head: no URL, key or endpoint id reaches the store.
    const stored = JSON.stringify(backend.told());
    for (const secret of ['SECRETPASS', 'SECRETPATH', 'SECRETQUERY', 'example-rpc', '"z"']) expect(stored).not.toContain(secret);
  });

  it('a busy endpoint is told at most once per 250 ms per process while it moves, not once per answer', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const chain = createChain(clock);
    const a = member(clock, backend, chain, 'a', 3);
    await clock.advance(1);
    await reads(clock, a, 100, 15); // 100 answers over 2 s, every one carrying a head
    const heads = backend.told().filter((entry) => entry.fact.topic === 'head');
    // 3 endpoints × 2 s: at most 1 + 2 000 / 250 tells each.
    expect(heads.length).toBeLessThanOrEqual(3 * 9);
    expect(heads.length).toBeLessThan(100 / 3);
  });

  it('stale, future-dated, implausible or malformed remote heads neither readmit a lagging endpoint nor exclude a fresh one', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const chain = createChain(clock);
    chain.lag['z'] = 200;
    const b = member(clock, backend, chain, 'b', 4);
    await clock.advance(1);
    await reads(clock, b, 8);
    expect(stateOf(b, 'z')).toBe('lagging');
    const key = headKeyOfLagging(backend);
    const fresh = () => String(chain.tip());
    // Claims to be from the future (a TTL longer than a head is ever told with).
    await tellAsRogue(backend, key, { quantity: 'slot', head: fresh() }, HEAD_FACT_TTL_MS * 5);
    // Far beyond where the chain can be.
    await tellAsRogue(backend, key, { quantity: 'slot', head: String(chain.tip() + 1_000_000_000) }, HEAD_FACT_TTL_MS);
    // Not a slot, not a decimal.
    await tellAsRogue(backend, key, { quantity: 'block', head: fresh() }, HEAD_FACT_TTL_MS);
    await tellAsRogue(backend, key, { quantity: 'slot', head: `0x${chain.tip().toString(16)}` }, HEAD_FACT_TTL_MS);
    await tellAsRogue(backend, key, { quantity: 'slot', head: `${fresh()}.0` }, HEAD_FACT_TTL_MS);
    await clock.advance(POLL_MS + 5);
    expect(stateOf(b, 'z')).toBe('lagging');
    expect(b.heads.filter((e) => e.endpointId === 'z' && e.state === 'fresh')).toEqual([]);

    // Now z is fresh at B (its own probe says so); a lagging head observed before B's own is stale.
    chain.lag['z'] = 0;
    // B keeps reading (its tip stays fresh) until its next probe of z says it is back.
    for (let s = 0; s < 12; s++) await reads(clock, b, 1, 995);
    expect(stateOf(b, 'z')).toBe('fresh');
    const ownAgoMs = () => b.pool.snapshot().endpoints.find((e) => e.endpointId === 'z')!.head!.observedAgoMs;
    // B's own last observation of z is recent (its reads rotate over x, y, z).
    for (let i = 0; i < 10 && ownAgoMs() > 300; i++) await reads(clock, b, 1, 0);
    const ageOfStale = ownAgoMs() + 100; // observed 100 ms before B's own last observation
    expect(ageOfStale).toBeLessThan(HEAD_FACT_TTL_MS / 2);
    await tellAsRogue(backend, key, { quantity: 'slot', head: String(chain.tip() - 500) }, HEAD_FACT_TTL_MS - ageOfStale);
    await clock.advance(POLL_MS + 5);
    expect(stateOf(b, 'z')).toBe('fresh');
    // The same lagging head observed just now is believed: the rule is "newest observation", not "ignore the fleet".
    await tellAsRogue(backend, key, { quantity: 'slot', head: String(chain.tip() - 500) }, HEAD_FACT_TTL_MS);
    await clock.advance(POLL_MS + 5);
    expect(stateOf(b, 'z')).toBe('lagging');
  });

  it('a lagging endpoint is probed about once per interval for the whole fleet, and a fresh head from the prober readmits it everywhere', async () => {
    const { clock, chain, a, b } = await twoMembersAfterASawZLagging();
    await clock.advance(POLL_MS + 5);
    expect(stateOf(a, 'z')).toBe('lagging');
    expect(stateOf(b, 'z')).toBe('lagging');
    const from = clock.now();
    // 60 s of occasional reads on both (their tips stay fresh); z stays behind.
    for (let s = 0; s < 60; s++) {
      await reads(clock, a, 1, 0);
      await reads(clock, b, 1, 0);
      await clock.advance(990);
    }
    const probesOfZ = (m: Member) => m.received.filter((r) => r.endpointId === 'z' && r.method === 'getSlot' && r.atMs >= from).length;
    // Alone, each process probes it every ~10 s (≈ 6 each, 12 in all); shared, ≈ 6 in all.
    const total = probesOfZ(a) + probesOfZ(b);
    expect(total).toBeGreaterThanOrEqual(5);
    expect(total).toBeLessThanOrEqual(8);
    expect([...a.probes, ...b.probes].filter((p) => p.endpointId === 'z' && p.outcome === 'skipped').length).toBeGreaterThanOrEqual(4);
    // z catches up: whichever process probes it next, both readmit it.
    chain.lag['z'] = 0;
    const caughtUp = clock.now();
    for (let s = 0; s < 13; s++) {
      await reads(clock, a, 1, 0);
      await reads(clock, b, 1, 0);
      await clock.advance(990);
    }
    expect(stateOf(a, 'z')).toBe('fresh');
    expect(stateOf(b, 'z')).toBe('fresh');
    expect(probesOfZ(a) + probesOfZ(b) - total).toBeLessThanOrEqual(2);
    await reads(clock, a, 9);
    await reads(clock, b, 9);
    expect(readsTo(a, 'z', caughtUp)).toBeGreaterThan(0);
    expect(readsTo(b, 'z', caughtUp)).toBeGreaterThan(0);
  });
});

describe('head facts: the pure rules', () => {
  it('decodes a decimal head of a known quantity, its age from the TTL the store left; rejects the rest', () => {
    expect(decodeHeadFact(HEAD_FACT_TTL_MS - 300, { quantity: 'slot', head: '123456789012345678901' })).toEqual({ quantity: 'slot', value: 123456789012345678901n, ageMs: 300 });
    for (const data of [{ quantity: 'epoch', head: '1' }, { quantity: 'block', head: '0x10' }, { quantity: 'block', head: '-1' }, { quantity: 'block', head: '1e3' }, { quantity: 'block', head: 7 }, { quantity: 'block' }]) {
      expect(decodeHeadFact(500, data)).toBeUndefined();
    }
    expect(decodeHeadFact(HEAD_FACT_TTL_MS + 1, { quantity: 'slot', head: '1' })).toBeUndefined();
    expect(decodeHeadFact(0, { quantity: 'slot', head: '1' })).toBeUndefined();
  });

  it('believes only a head not older than what is known, of the right quantity, within reach of the tip', () => {
    const head = { quantity: 'slot' as const, value: 1_000n, observedAtMs: 5_000 };
    expect(believeRemoteHead(head, undefined, 'slot', undefined)).toBe(true);
    expect(believeRemoteHead(head, undefined, 'block', undefined)).toBe(false);
    expect(believeRemoteHead(head, undefined, undefined, undefined)).toBe(true);
    expect(believeRemoteHead(head, { quantity: 'block', observedAtMs: 0 }, undefined, undefined)).toBe(false);
    expect(believeRemoteHead(head, { quantity: 'slot', observedAtMs: 5_011 }, 'slot', undefined)).toBe(false);
    expect(believeRemoteHead(head, { quantity: 'slot', observedAtMs: 5_010 }, 'slot', undefined)).toBe(true);
    // 10 slots/s plus 10 000 of slack since the tip was seen 1 s before.
    expect(believeRemoteHead({ ...head, value: 10_010n }, undefined, 'slot', { value: 0n, atMs: 4_000 })).toBe(true);
    expect(believeRemoteHead({ ...head, value: 10_011n }, undefined, 'slot', { value: 0n, atMs: 4_000 })).toBe(false);
  });

  it('tells a moving head at most every 250 ms, a still one every second, a changed verdict at once', () => {
    const teller = new HeadTeller(2);
    expect(teller.due(0, 1, 0)).toBe(true);
    expect(teller.due(0, 2, 249)).toBe(false);
    expect(teller.due(0, 2, 250)).toBe(true);
    expect(teller.due(0, 2, 1_249)).toBe(false);
    expect(teller.due(0, 2, 1_250)).toBe(true);
    expect(teller.due(0, 3, 1_251, true)).toBe(true);
    expect(teller.due(1, 3, 1_251)).toBe(true);
  });
});
