import { afterEach, describe, expect, it } from 'vitest';
import type { EndpointConfig, HttpTransportPoolOptions } from '../../src/config/types.js';
import type { FleetCoordinator } from '../../src/fleet/coordinator.js';
import { createSeededRandom } from '../../src/clock.js';
import { isTransportError } from '../../src/errors/transport-error.js';
import type { ExecuteRequest, RawOutcome } from '../../src/http/executor.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createFakeClock, type FakeClock } from '../../src/testing/fake-clock.js';
import { createScriptedExecutor, ok } from '../helpers/scripted-executor.js';
import { createMemoryBackend, memoryFleet, type MemoryBackend } from '../fleet/memory-backend.js';

/**
 * The shared read cache's rules, deterministic: two "processes" (coordinators with their own
 * member ids, each with its own pool and node) on one in-memory store with the Redis scripts'
 * semantics, on a fake clock. What each node received, and when, is what the server saw.
 */

const open: { pools: HttpTransportPool[]; fleets: FleetCoordinator[] } = { pools: [], fleets: [] };
afterEach(async () => {
  await Promise.all(open.pools.splice(0).map((pool) => pool.close()));
  await Promise.all(open.fleets.splice(0).map((fleet) => fleet.close()));
});

/** A node's answer to one request, and how long it takes (clock ms). */
type Answer = (method: string, params: unknown[], endpointId: string) => { readonly result: unknown; readonly afterMs: number };

interface Member {
  readonly pool: HttpTransportPool;
  /** When each request reached this member's node, with its method. */
  readonly arrivals: { readonly method: string; readonly atMs: number }[];
}

const endpointsOf = (ids: readonly string[]): EndpointConfig[] => ids.map((id, i) => ({ id, url: `https://${id}.example.com/v2/KEY`, operator: id, tier: i }));

function member(clock: FakeClock, backend: MemoryBackend, id: string, answer: Answer, options: Partial<HttpTransportPoolOptions> = {}, endpointIds = ['node']): Member {
  const fleet = memoryFleet(backend, clock, { memberId: id });
  const arrivals: Member['arrivals'] = [];
  const script = (request: ExecuteRequest, rpcId: number) => {
    const { method, params } = JSON.parse(request.body) as { method: string; params: unknown[] };
    arrivals.push({ method, atMs: clock.now() });
    const { result, afterMs } = answer(method, params, request.target.endpointId);
    return new Promise<RawOutcome>((resolve) => clock.setTimer(() => resolve(ok(result, rpcId)), afterMs));
  };
  const executor = createScriptedExecutor(Object.fromEntries(endpointIds.map((e) => [e, [script]])));
  const pool = new HttpTransportPool({ endpoints: endpointsOf(endpointIds), executor, clock, random: createSeededRandom(7), fleet, hedge: false, health: false, ...options });
  open.pools.push(pool);
  open.fleets.push(fleet);
  return { pool, arrivals };
}

/** Advances the clock in 1 ms steps until `done()` or `maxMs`. */
async function runUntil(clock: FakeClock, done: () => boolean, maxMs: number): Promise<void> {
  for (let ms = 0; ms < maxMs && !done(); ms++) await clock.advance(1);
}

/** Settles a call's promise into a value to assert on, and when it settled. */
function track<T>(clock: FakeClock, promise: Promise<T>): { settled?: { atMs: number; value?: T; error?: unknown } } {
  const tracked: { settled?: { atMs: number; value?: T; error?: unknown } } = {};
  promise.then(
    (value) => (tracked.settled = { atMs: clock.now(), value }),
    (error: unknown) => (tracked.settled = { atMs: clock.now(), error }),
  );
  return tracked;
}

const block = (slot: number) => ({ blockHeight: slot, blockhash: `hash-${slot}` });
const getBlock = (pool: HttpTransportPool, slot: number, options: { timeoutMs?: number; signal?: AbortSignal } = {}) => pool.request('getBlock', [slot, { commitment: 'finalized' }], options);

describe('read cache shared through a fleet', () => {
  it('waits at most half the call budget for a read another process fetches, then asks its own node', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const slow = member(clock, backend, 'a', () => ({ result: block(5), afterMs: 3_000 }));
    const waiting = member(clock, backend, 'b', () => ({ result: block(5), afterMs: 5 }));
    const first = track(clock, getBlock(slow.pool, 5, { timeoutMs: 4_000 }));
    await clock.advance(1);
    const second = track(clock, getBlock(waiting.pool, 5, { timeoutMs: 2_000 }));
    await runUntil(clock, () => second.settled !== undefined, 2_500);
    // b looked, found a's claim, waited for its answer until half its budget (1 s), then asked its own node.
    expect(waiting.arrivals).toHaveLength(1);
    expect(waiting.arrivals[0]!.atMs).toBeGreaterThanOrEqual(1_000 - 50);
    expect(waiting.arrivals[0]!.atMs).toBeLessThanOrEqual(1_001);
    expect(second.settled).toEqual({ atMs: waiting.arrivals[0]!.atMs + 5, value: block(5) });
    await runUntil(clock, () => first.settled !== undefined, 3_500);
    expect(first.settled?.value).toEqual(block(5));
  });

  it('sends the waiters to their nodes at once when the claim is freed without a final answer (a null block)', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const a = member(clock, backend, 'a', () => ({ result: null, afterMs: 200 }));
    const b = member(clock, backend, 'b', () => ({ result: null, afterMs: 5 }));
    const first = track(clock, getBlock(a.pool, 9));
    await clock.advance(1);
    const second = track(clock, getBlock(b.pool, 9, { timeoutMs: 10_000 }));
    await runUntil(clock, () => first.settled !== undefined && second.settled !== undefined, 6_000);
    // a's answer came at 200 ms; b asked its node within one pause (≤ 50 ms) of that, not after 5 s of waiting.
    expect(first.settled).toEqual({ atMs: 200, value: null });
    expect(b.arrivals).toHaveLength(1);
    expect(b.arrivals[0]!.atMs).toBeGreaterThanOrEqual(200);
    expect(b.arrivals[0]!.atMs).toBeLessThanOrEqual(251);
  });

  it('lets a waiting caller abort at once', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const a = member(clock, backend, 'a', () => ({ result: block(3), afterMs: 1_000 }));
    const b = member(clock, backend, 'b', () => ({ result: block(3), afterMs: 5 }));
    void getBlock(a.pool, 3);
    await clock.advance(1);
    const controller = new AbortController();
    const waiting = track(clock, getBlock(b.pool, 3, { signal: controller.signal }));
    await clock.advance(99);
    controller.abort();
    await clock.advance(1);
    expect(waiting.settled?.atMs).toBe(100);
    expect(isTransportError(waiting.settled?.error, 'ABORTED')).toBe(true);
    expect(b.arrivals).toEqual([]);
    await clock.advance(1_000);
  });

  it('ends a wait when its pool closes: the call fails POOL_CLOSED within one pause, asking no node', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const a = member(clock, backend, 'a', () => ({ result: block(4), afterMs: 5_000 }));
    const b = member(clock, backend, 'b', () => ({ result: block(4), afterMs: 5 }));
    void getBlock(a.pool, 4).catch(() => undefined);
    await clock.advance(1);
    const waiting = track(clock, getBlock(b.pool, 4, { timeoutMs: 10_000 }));
    await clock.advance(99);
    const closed = b.pool.close();
    await runUntil(clock, () => waiting.settled !== undefined, 1_000);
    await closed;
    expect(isTransportError(waiting.settled?.error, 'POOL_CLOSED')).toBe(true);
    expect(waiting.settled!.atMs).toBeLessThanOrEqual(100 + 50);
    expect(b.arrivals).toEqual([]);
    await clock.advance(5_000);
  });

  it('asks the store nothing for by-number reads above every finalized head it knows, nor with cache.fleet: false', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const evm: Answer = (method, params) => ({
      result: method === 'eth_getBlockByNumber' ? { number: params[0] === 'finalized' ? '0x10' : params[0], hash: `0x${'ab'.repeat(32)}`, parentHash: `0x${'cd'.repeat(32)}`, transactions: [] } : block(1),
      afterMs: 5,
    });
    // With unfinalized answers kept, the caller's own `finalized` block read tells the cache where finality stands.
    const a = member(clock, backend, 'a', evm, { chain: 'evm', cache: { ttl: { unfinalized: 1_000 } } });
    const b = member(clock, backend, 'b', evm, { cache: { fleet: false } });
    const done = track(
      clock,
      (async () => {
        await a.pool.request('eth_getBlockByNumber', ['finalized', false]); // finality at 16
        await a.pool.request('eth_getBlockByNumber', ['0x20', false]); // above it: never final from this answer
        await getBlock(b.pool, 1);
        await getBlock(b.pool, 2);
      })(),
    );
    await runUntil(clock, () => done.settled !== undefined, 1_000);
    expect(done.settled?.error).toBeUndefined();
    expect(backend.commands['readOrClaim'] ?? 0).toBe(0);
    // Below the finalized head, the store is asked (and the answer shared).
    const below = track(clock, a.pool.request('eth_getBlockByNumber', ['0x08', false]));
    await runUntil(clock, () => below.settled !== undefined, 1_000);
    expect([backend.commands['readOrClaim'], backend.commands['publishRead']]).toEqual([1, 1]);
  });

  it('a process that knows no finality yet looks in the store for by-number reads (claiming nothing): served what another proved', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const evm: Answer = (method, params) => ({
      result: method === 'eth_getBlockByNumber' ? { number: params[0] === 'finalized' ? '0x10' : params[0], hash: `0x${'ab'.repeat(32)}`, parentHash: `0x${'cd'.repeat(32)}`, transactions: [] } : null,
      afterMs: 5,
    });
    const proving = member(clock, backend, 'a', evm);
    const fresh = member(clock, backend, 'b', evm);
    const done = track(
      clock,
      (async () => {
        await proving.pool.request('eth_getBlockByNumber', ['finalized', false]);
        await proving.pool.request('eth_getBlockByNumber', ['0x08', false]); // proven final at a: shared
        await clock.advance(1);
        const served = await fresh.pool.request('eth_getBlockByNumber', ['0x08', false]);
        await fresh.pool.request('eth_getBlockByNumber', ['0x30', false]); // not in the store: b's node at once
        return served;
      })(),
    );
    await runUntil(clock, () => done.settled !== undefined, 1_000);
    expect(done.settled?.value).toMatchObject({ number: '0x08' });
    // b's node got only the read the store did not have, and at once (a look never waits).
    expect(fresh.arrivals).toHaveLength(1);
    expect(done.settled!.atMs - fresh.arrivals[0]!.atMs).toBe(5);
    expect([backend.commands['readOrClaim'], backend.commands['publishRead']]).toEqual([3, 1]);
  });

  it("with verify: 'two-operators', shares no answer a lying node gave: the other process asks its own node", async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    let lies = 1;
    const lying = member(clock, backend, 'a', (_method, _params, endpointId) => ({ result: endpointId === 'liar' && lies-- > 0 ? block(666) : block(7), afterMs: 5 }), { cache: { verify: 'two-operators' } }, ['liar', 'honest']);
    const other = member(clock, backend, 'b', () => ({ result: block(7), afterMs: 5 }));
    const first = track(clock, getBlock(lying.pool, 7));
    await runUntil(clock, () => first.settled !== undefined, 1_000);
    await clock.advance(50); // the second operator's answer disagrees: nothing kept, nothing shared
    expect([first.settled?.value, backend.commands['publishRead'] ?? 0]).toEqual([block(666), 0]);
    const second = track(clock, getBlock(other.pool, 7));
    await runUntil(clock, () => second.settled !== undefined, 1_000);
    expect([second.settled?.value, other.arrivals.length]).toEqual([block(7), 1]);
  });
});
