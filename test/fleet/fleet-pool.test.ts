import { afterEach, describe, expect, it } from 'vitest';
import type { EndpointConfig } from '../../src/config/types.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import type { RawOutcome } from '../../src/http/executor.js';
import { ok, type Script } from '../helpers/scripted-executor.js';
import { createMemoryBackend } from './memory-backend.js';
import { backendsToRelease, closeMembers, drive, inWindow, member, peakPerSecond } from './fleet-members.js';

/**
 * Fleet mode, deterministic: two "processes" (two coordinators with their own member ids,
 * each with its own pool and executor) on one in-memory store with the Redis scripts'
 * semantics, on a fake clock. What each executor received, and when, is what the server saw.
 */

afterEach(closeMembers);

const quota = (rps: number): EndpointConfig => ({ id: 'quota', url: 'https://rpc.example.com/v2/KEY', tier: 0, requestsPerSecond: rps, burstCapacity: rps, kinds: ['read'] });

describe('fleet mode: one quota for many processes', () => {
  it('two processes never exceed the quota by more than one lease each, and most calls make no store round trip', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const members = [member(clock, backend, 'a', [quota(100)]), member(clock, backend, 'b', [quota(100)])];
    await drive(clock, members, 3_000);
    const lease = 10; // 100 ms of 100 req/s
    expect(members.flatMap((m) => m.failures)).toEqual([]);
    // The first second holds the burst (100) plus one second of refill; after it, the rate.
    expect(inWindow(members, 0, 1_000)).toBeLessThanOrEqual(100 + 100 + 2 * lease);
    expect(peakPerSecond(members, 1_000, 3_000)).toBeLessThanOrEqual(100 + 2 * lease);
    expect(inWindow(members, 1_000, 3_000)).toBeGreaterThanOrEqual(0.9 * 200);
    // Both processes get a fair part of the quota: no process hoards leases while the other waits.
    const total = inWindow(members, 1_000, 3_000);
    for (const m of members) expect(inWindow([m], 1_000, 3_000)).toBeGreaterThanOrEqual(0.25 * total);
    // Saturated (calls wait for tokens): a contended bucket is leased in batches and nobody tops up
    // ahead of need, so there are far fewer round trips than calls (about one per 3 calls here).
    const calls = inWindow(members, 0, 3_000);
    expect(backend.commands['take']).toBeLessThan(calls / 2.5);
  });

  it('below the quota, a lease serves many calls: one store round trip per half lease', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const members = [member(clock, backend, 'a', [quota(2_000)]), member(clock, backend, 'b', [quota(2_000)])];
    await drive(clock, members, 2_000, 4); // 4 × 200 calls/s per process (5 ms each): 1 600/s, under 2 000/s
    const calls = inWindow(members, 0, 2_000);
    expect(calls).toBeGreaterThan(3_000);
    expect(members.flatMap((m) => m.failures)).toEqual([]);
    // A lease is 200 tokens (100 ms of quota), topped up at 100 left: one take per ~100 calls.
    expect(backend.commands['take']).toBeLessThanOrEqual(calls / 80);
  });

  it('when the store goes down each process keeps its share, starting empty, no call fails, and shared mode resumes when it returns', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const members = [member(clock, backend, 'a', [quota(100)]), member(clock, backend, 'b', [quota(100)])];
    const run = drive(clock, members, 6_000);
    await clock.advance(1_500); // heartbeats: both members known
    backend.set('down');
    await clock.advance(2_500);
    const takesWhileDown = backend.commands['take'];
    backend.set('up');
    await run;
    expect(members.flatMap((m) => m.failures)).toEqual([]);
    for (const m of members) {
      expect(m.events.filter((e) => e.type === 'mode').map((e) => e.type === 'mode' && [e.mode, e.reason, e.members])).toEqual([
        ['local', 'unreachable', 2],
        ['shared', 'recovered', 2],
      ]);
    }
    // Starting EMPTY: in the first 100 ms only what was left of the leases (≤ 10 each) and 100 ms of the shares (5 each).
    expect(inWindow(members, 1_500, 1_600)).toBeLessThanOrEqual(2 * 10 + 2 * 5 + 2);
    // Local shares: 50 req/s each — the quota, never the full quota per process.
    expect(peakPerSecond(members, 1_500, 4_000)).toBeLessThanOrEqual(100 + 2 * 10);
    expect(inWindow(members, 2_000, 4_000)).toBeGreaterThanOrEqual(0.9 * 200);
    for (const m of members) expect(inWindow([m], 2_000, 4_000)).toBeLessThanOrEqual(2 * 50 + 1);
    // Back in shared mode: leases again, and still within the quota.
    expect(backend.commands['take']).toBeGreaterThan(takesWhileDown! + 10);
    expect(peakPerSecond(members, 4_000, 6_000)).toBeLessThanOrEqual(100 + 2 * 10);
  });

  it('unreachable from the start: each process takes quota ÷ expectedMembers, never the whole quota', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    backend.set('down');
    const m = member(clock, backend, 'a', [quota(40)], {}, { expectedMembers: 4 });
    await drive(clock, [m], 2_000);
    expect(m.failures).toEqual([]);
    // 10 req/s from an empty bucket: 20 in 2 s (a full quota would be 40 + 80).
    expect(inWindow([m], 0, 2_000)).toBeGreaterThanOrEqual(18);
    expect(inWindow([m], 0, 2_000)).toBeLessThanOrEqual(21);
    expect(m.events[0]).toMatchObject({ type: 'mode', mode: 'local', reason: 'unreachable', members: 4 });
  });

  it('a store that hangs holds a call no longer than three command timeouts (three misses in a row), then the local share serves it', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const m = member(clock, backend, 'a', [quota(10)], {}, { leaseMs: 100, expectedMembers: 2 });
    await clock.advance(1_100); // first lease (1 token) and a heartbeat: 1 member
    backend.set('hang');
    const first = m.pool.request('getSlot'); // spends the lease; its top-up hangs
    await clock.advance(5);
    await first;
    const started = clock.now();
    const call = m.pool.request('getSlot', [], { timeoutMs: 1_000 });
    let endedAt = -1;
    void call.then(() => (endedAt = clock.now()));
    await clock.advance(1_000);
    backendsToRelease.push(backend);
    await call;
    // 45 ms more of the top-up's timeout, 50 of its retry's (3rd miss, with the poll's), then the share (10/s) from empty: 100 ms, 5 to answer.
    expect(endedAt - started).toBeGreaterThanOrEqual(45 + 50 + 100);
    expect(endedAt - started).toBeLessThanOrEqual(45 + 50 + 100 + 5 + 1);
    expect(m.events.filter((e) => e.type === 'mode')).toMatchObject([{ mode: 'local', reason: 'timeout' }]);
    backend.set('up');
    await clock.advance(1_100); // shared again once writes have been answered for 1 s (PROVE_WRITABLE_MS), not at the first answer
    expect(m.events.filter((e) => e.type === 'mode')).toMatchObject([{ mode: 'local' }, { mode: 'shared', reason: 'recovered' }]);
    // The top-up that hung was answered late: its token was taken from the fleet, so it is used, not lost.
    expect(m.pool.snapshot().roles[0]?.tokens).toBe(1);
  });

  it('close() stops every fleet timer', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const m = member(clock, backend, 'a', [quota(10)]);
    await clock.advance(2_000);
    await m.pool.close();
    await m.fleet.close();
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('fleet mode: knowledge shared between processes', () => {
  const twoEndpoints: EndpointConfig[] = [
    { id: 'main', url: 'https://main.example.com/KEY', tier: 0 },
    { id: 'other', url: 'https://other.example.org/KEY', tier: 0 },
  ];

  it('a 429 with Retry-After seen by one process cools that role in every process within one poll interval', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    let limited = false;
    const rateLimit: Script = (_request, id) => {
      if (clock.now() < 500 || limited) return ok(1, id);
      limited = true;
      return { type: 'response', status: 429, headers: { 'retry-after': '2' }, body: '' } satisfies RawOutcome;
    };
    const a = member(clock, backend, 'a', twoEndpoints, { main: rateLimit });
    const b = member(clock, backend, 'b', twoEndpoints);
    await drive(clock, [a, b], 3_500, 2);
    const at = a.arrivals.find((x) => x.endpointId === 'main' && x.atMs >= 500)!.atMs;
    expect(limited).toBe(true);
    // Process b stops within one poll interval (50 ms) and stays off for the 2 s…
    expect(inWindow([b], at + 55, at + 2_000, 'main')).toBe(0);
    expect(inWindow([a], at + 1, at + 2_000, 'main')).toBe(0);
    // …then comes back; meanwhile the other endpoint served.
    expect(inWindow([b], at + 2_000, at + 2_500, 'main')).toBeGreaterThan(0);
    expect(inWindow([b], at + 55, at + 2_000, 'other')).toBeGreaterThan(50);
    expect(b.events).toContainEqual(expect.objectContaining({ type: 'adopted', topic: 'cooldown', endpointIds: ['main'] }));
    expect([...a.failures, ...b.failures]).toEqual([]);
  });

  it('a burst of 429s (many calls in flight) is told to the fleet once, not once per call', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const limited: Script = { type: 'response', status: 429, headers: { 'retry-after': '2' }, body: '' };
    const a = member(clock, backend, 'a', twoEndpoints, { main: limited }, { balance: false });
    const calls = Array.from({ length: 8 }, () => a.pool.request('getSlot', [], { endpoint: 'main', timeoutMs: 100 }).catch(() => undefined));
    await clock.advance(200);
    await Promise.all(calls);
    expect(a.arrivals.filter((x) => x.endpointId === 'main').length).toBe(8);
    expect(backend.commands['share']).toBe(1);
  });

  it('an endpoint one process benches (HTML answers) leaves rotation in the others too', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const html: Script = (_request, id) =>
      clock.now() < 300 ? ok(1, id) : ({ type: 'response', status: 200, headers: { 'content-type': 'text/html' }, body: '<html>blocked</html>' } satisfies RawOutcome);
    // 'other' first (tier 0): every call of a meets its HTML, until a benches it.
    const endpoints: EndpointConfig[] = [
      { id: 'other', url: 'https://other.example.org/KEY', tier: 0 },
      { id: 'main', url: 'https://main.example.com/KEY', tier: 1 },
    ];
    const a = member(clock, backend, 'a', endpoints, { other: html });
    const b = member(clock, backend, 'b', endpoints);
    await drive(clock, [a, b], 2_000, 2);
    const benched = b.events.find((e) => e.type === 'adopted' && e.topic === 'bench');
    expect(benched).toMatchObject({ endpointIds: ['other'] });
    // b never saw a bad answer from 'other', yet stops using it once a's bench arrives.
    expect(inWindow([b], benched!.atMs + 1, 2_000, 'other')).toBe(0);
    expect(inWindow([b], benched!.atMs + 1, 2_000, 'main')).toBeGreaterThan(50);
    expect(b.pool.snapshot().endpoints.find((e) => e.endpointId === 'other')?.reputation?.cooldownRemainingMs).toBeGreaterThan(200_000);
  });

  it('a process that joins later adopts the chain verdict already reached, without a check of its own', async () => {
    const clock = createFakeClock();
    const backend = createMemoryBackend(clock);
    const chainId: Script = (_request, id) => ok('0x1', id);
    const a = member(clock, backend, 'a', [{ id: 'main', url: 'https://main.example.com/KEY', tier: 0 }], { main: chainId }, { expectedChain: { chainId: 1 } });
    const first = a.pool.request('eth_blockNumber');
    await clock.advance(50);
    await first;
    const b = member(clock, backend, 'b', [{ id: 'main', url: 'https://main.example.com/KEY', tier: 0 }], { main: chainId }, { expectedChain: { chainId: 1 } });
    await clock.advance(10);
    const second = b.pool.request('eth_blockNumber');
    await clock.advance(50);
    await second;
    expect(a.arrivals.length).toBe(2); // eth_chainId, eth_blockNumber
    expect(b.arrivals.length).toBe(1); // eth_blockNumber only
    expect(b.events).toContainEqual(expect.objectContaining({ type: 'adopted', topic: 'chain', endpointIds: ['main'] }));
    expect(b.pool.snapshot().endpoints[0]?.chain).toBe('verified');
  });
});
