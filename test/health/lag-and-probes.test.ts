/**
 * Endpoint health in the pool, on a fake clock with scripted endpoints: what each endpoint
 * received is what a server would have seen.
 */
import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import type { EndpointConfig, HttpTransportPoolOptions } from '../../src/config/types.js';
import type { ExecuteRequest, RawOutcome } from '../../src/http/executor.js';
import type { HeadEvent, ProbeEvent } from '../../src/api/events.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createFakeClock, type FakeClock } from '../../src/testing/fake-clock.js';
import { createScriptedExecutor, hangUntilAborted, ok } from '../helpers/scripted-executor.js';
import { track } from '../pool/pool-fixtures.js';

const REFUSED: RawOutcome = { type: 'error', kind: 'connect', dispatched: false, code: 'ECONNREFUSED' };
const HTML: RawOutcome = { type: 'response', status: 200, headers: { 'content-type': 'text/html' }, body: '<html>502</html>' };

/** A Solana chain whose tip advances with time; each endpoint answers `lag` slots behind it, or `down`. */
function createChain(clock: FakeClock, ids: readonly string[]) {
  const lag: Record<string, number> = Object.fromEntries(ids.map((id) => [id, 0]));
  const down = new Set<string>();
  const answer = new Set<string>(ids);
  let tipAtZero = 1_000_000;
  const tip = () => tipAtZero + Math.floor(clock.now() / 400);
  const executor = createScriptedExecutor();
  for (const id of ids) {
    executor.script(id, (request: ExecuteRequest, rpcId: number) => {
      if (down.has(id)) return REFUSED;
      const { method } = JSON.parse(request.body) as { method: string };
      const head = tip() - (lag[id] ?? 0);
      if (method === 'getSlot') return ok(head, rpcId);
      if (method === 'getBalance') return ok({ context: { slot: head }, value: 1 }, rpcId);
      return ok('done', rpcId);
    });
  }
  return { executor, lag, down, answer, tip, bump: (slots: number) => (tipAtZero += slots) };
}

type Chain = ReturnType<typeof createChain>;

function solanaPool(clock: FakeClock, chain: Chain, ids: readonly string[], extra: Partial<HttpTransportPoolOptions> = {}, endpointExtra: Partial<EndpointConfig> = {}) {
  return new HttpTransportPool({
    endpoints: ids.map((id) => ({ id, url: `https://${id}.example-rpc.com/`, ...endpointExtra })),
    chain: 'solana',
    clock,
    random: createSeededRandom(5),
    executor: chain.executor,
    concentration: { maxOperatorShare: 0 },
    methods: { mySend: { kind: 'submit', retryClass: 'never-after-dispatch' } },
    ...extra,
  });
}

/** `count` calls of `method`, one every `stepMs`; returns what each endpoint received of that method meanwhile. */
async function calls(pool: HttpTransportPool, clock: FakeClock, chain: Chain, count: number, method = 'getBalance', stepMs = 100, mayFail = false): Promise<Record<string, number>> {
  const from = chain.executor.received.length;
  for (let i = 0; i < count; i++) {
    const call = track(pool.request(method, method === 'getBalance' ? ['11111111111111111111111111111111'] : []), clock);
    await clock.flush();
    // A retry waits out its backoff on the fake clock: move time until the call settles.
    for (let waited = 0; !call.settled && waited < 30_000; waited += 10) await clock.advance(10);
    if (call.error !== undefined && !mayFail) throw call.error;
    await clock.advance(stepMs);
  }
  const seen: Record<string, number> = {};
  for (const r of chain.executor.received.slice(from)) if (r.method === method) seen[r.endpointId] = (seen[r.endpointId] ?? 0) + 1;
  return seen;
}

function events(pool: HttpTransportPool) {
  const head: HeadEvent[] = [];
  const probe: ProbeEvent[] = [];
  pool.on('head', (e) => head.push(e));
  pool.on('probe', (e) => probe.push(e));
  return { head, probe };
}

const endpointOf = (pool: HttpTransportPool, id: string) => pool.snapshot().endpoints.find((e) => e.endpointId === id)!;

describe('lagging endpoints', () => {
  it('takes an endpoint 200 slots behind out of reads and sends after its next head, and back once within half the allowance', async () => {
    const clock = createFakeClock();
    const ids = ['a', 'b', 'c'];
    const chain = createChain(clock, ids);
    chain.lag['c'] = 200;
    const pool = solanaPool(clock, chain, ids);
    const seen = events(pool);
    await calls(pool, clock, chain, 6);
    expect(seen.head).toEqual([expect.objectContaining({ endpointId: 'c', state: 'lagging', quantity: 'slot', syncAllowance: 100 })]);
    expect(Number(seen.head[0]!.lag)).toBeGreaterThanOrEqual(199);
    expect(endpointOf(pool, 'c').health).toBe('lagging');
    expect(Number(endpointOf(pool, 'c').head!.lag)).toBeGreaterThanOrEqual(199);
    expect(endpointOf(pool, 'a').health).toBe('fresh');
    expect((await calls(pool, clock, chain, 30))['c']).toBeUndefined();
    expect((await calls(pool, clock, chain, 12, 'mySend'))['c']).toBeUndefined();
    // 60 behind: inside the allowance but not within half of it — still lagging (hysteresis).
    chain.lag['c'] = 60;
    await clock.advance(11_000);
    expect(seen.probe.filter((e) => e.endpointId === 'c').map((e) => [e.reason, e.outcome])).toContainEqual(['lagging', 'ok']);
    expect(endpointOf(pool, 'c').health).toBe('lagging');
    chain.lag['c'] = 40;
    await calls(pool, clock, chain, 120);
    expect(seen.head.at(-1)).toMatchObject({ endpointId: 'c', state: 'fresh' });
    expect((await calls(pool, clock, chain, 30))['c']).toBeGreaterThanOrEqual(8);
    await pool.close();
  });

  it('still answers a call pinned to a lagging endpoint', async () => {
    const clock = createFakeClock();
    const ids = ['a', 'b', 'c'];
    const chain = createChain(clock, ids);
    chain.lag['c'] = 500;
    const pool = solanaPool(clock, chain, ids);
    await calls(pool, clock, chain, 6);
    expect(endpointOf(pool, 'c').health).toBe('lagging');
    const pinned = pool.request('getSlot', [], { endpoint: 'c' });
    await clock.flush();
    await expect(pinned).resolves.toBe(chain.tip() - 500);
    await pool.close();
  });

  it('names lag in the waitingFor of a call that timed out while the fresh endpoints were busy', async () => {
    const clock = createFakeClock();
    const ids = ['a', 'b', 'c'];
    const chain = createChain(clock, ids);
    chain.lag['c'] = 500;
    const pool = solanaPool(clock, chain, ids, {}, { maxConcurrentRequests: 1 });
    await calls(pool, clock, chain, 6);
    expect(endpointOf(pool, 'c').health).toBe('lagging');
    const held = [await pool.acquireForMethod('getSlot', { endpoint: 'a' }), await pool.acquireForMethod('getSlot', { endpoint: 'b' })];
    const call = track(pool.request('getSlot', [], { timeoutMs: 1_000 }), clock);
    await clock.advance(1_000);
    expect(call.error).toMatchObject({ code: 'DEADLINE_EXCEEDED' });
    const waitingFor = (call.error as { context: { waitingFor: unknown[] } }).context.waitingFor;
    expect(waitingFor).toContainEqual({ endpointId: 'c', reason: 'lagging' });
    expect(waitingFor).toContainEqual({ endpointId: 'a', reason: 'concurrency' });
    for (const permit of held) permit.release();
    await pool.close();
  });

  it('has no lock-in: three endpoints within the allowance share reads as the rotation says while the tip advances', async () => {
    const clock = createFakeClock();
    const ids = ['a', 'b', 'c'];
    const chain = createChain(clock, ids);
    Object.assign(chain.lag, { a: 0, b: 45, c: 90 });
    const pool = solanaPool(clock, chain, ids);
    const seen = events(pool);
    const shares = await calls(pool, clock, chain, 300, 'getBalance', 250);
    expect(seen.head).toEqual([]);
    for (const id of ids) expect(shares[id]).toBe(100);
    await pool.close();
  });

  it('keeps the freshest endpoint when every candidate lags (the fresh ones are down)', async () => {
    const clock = createFakeClock();
    const ids = ['a', 'd', 'b', 'c'];
    const chain = createChain(clock, ids);
    Object.assign(chain.lag, { b: 200, c: 300 });
    const pool = solanaPool(clock, chain, ids, { retry: { maxRetries: 3, initialBackoffMs: 1, maxBackoffMs: 1 } });
    await calls(pool, clock, chain, 8);
    expect([endpointOf(pool, 'b').health, endpointOf(pool, 'c').health]).toEqual(['lagging', 'lagging']);
    chain.down.add('a');
    chain.down.add('d');
    // While `a` and `d` are being benched, a call may fail on both.
    await calls(pool, clock, chain, 20, 'getBalance', 100, true);
    expect(['out-of-rotation', 'lagging']).toContain(endpointOf(pool, 'a').health);
    const later = await calls(pool, clock, chain, 20);
    expect(later).toEqual({ b: 20 });
    await pool.close();
  });
});

describe('the bench loop', () => {
  it('sends no probe to healthy endpoints by default; probeAll probes each one about every interval', async () => {
    const clock = createFakeClock();
    const ids = ['a', 'b'];
    const chain = createChain(clock, ids);
    const quiet = solanaPool(clock, chain, ids);
    await calls(quiet, clock, chain, 600, 'getBalance', 100);
    expect(chain.executor.countFor('a', 'getSlot') + chain.executor.countFor('b', 'getSlot')).toBe(0);
    await quiet.close();
    const all = solanaPool(clock, chain, ids, { health: { probeAll: true } });
    const from = clock.now();
    await clock.advance(60_000);
    const perMinute = (id: string) => chain.executor.received.filter((r) => r.endpointId === id && r.method === 'getSlot').length;
    expect(clock.now() - from).toBe(60_000);
    for (const id of ids) {
      expect(perMinute(id)).toBeGreaterThanOrEqual(5);
      expect(perMinute(id)).toBeLessThanOrEqual(7);
    }
    expect(endpointOf(all, 'a').head?.observedAgoMs).toBeLessThan(11_000);
    await all.close();
  });

  it('moves the additive score and strikes with probes, never the rate detectors (PATH TestHealthCheckSignals_StillMoveTheAdditiveScore)', async () => {
    const clock = createFakeClock();
    const ids = ['a', 'b'];
    const chain = createChain(clock, ids);
    const pool = solanaPool(clock, chain, ids, { reputation: { bands: { good: 0, fair: 0 }, eligibleScore: 0 } });
    const cooldowns: string[] = [];
    pool.on('reputation', (e) => {
      if (e.change === 'cooldown-start') cooldowns.push(e.detector!);
    });
    const seen = events(pool);
    // Five HTML answers to calls: five critical strikes bench `a`.
    chain.executor.script('a', HTML);
    await calls(pool, clock, chain, 10);
    expect(cooldowns).toEqual(['strikes']);
    const benched = endpointOf(pool, 'a').reputation!;
    expect(benched.criticalRate).toBeGreaterThan(0);
    const rateBefore = benched.criticalRate;
    // 30 failing probes (critical each): strikes and score move, the critical-rate EWMA does not.
    await clock.advance(330_000);
    const failed = seen.probe.filter((e) => e.endpointId === 'a' && e.outcome === 'failed').length;
    expect(failed).toBeGreaterThanOrEqual(29);
    const after = endpointOf(pool, 'a').reputation!;
    expect(after.criticalRate).toBe(rateBefore);
    expect(after.strikes).toBeGreaterThan(benched.strikes);
    expect(after.score).toBe(0);
    expect(cooldowns.every((detector) => detector === 'strikes')).toBe(true);
    // The first good probe: +5 exactly (the recovery signal).
    chain.executor.script('a', (_r: ExecuteRequest, id: number) => ok(chain.tip(), id));
    const firstGood = seen.probe.length;
    while (!seen.probe.slice(firstGood).some((e) => e.outcome === 'ok')) await clock.advance(1_000);
    expect(seen.probe.slice(firstGood).find((e) => e.outcome === 'ok')).toMatchObject({ goodInARow: 1, readmitted: false });
    expect(endpointOf(pool, 'a').reputation!.score).toBe(5);
    await pool.close();
  });

  it('gives a restarted endpoint traffic again within 2 probe intervals (time-based recovery alone: 5 min)', async () => {
    for (const health of [{ probeIntervalMs: 10_000 }, false] as const) {
      const clock = createFakeClock();
      const ids = ['a', 'b'];
      const chain = createChain(clock, ids);
      const pool = solanaPool(clock, chain, ids, { health });
      const seen = events(pool);
      await calls(pool, clock, chain, 10, 'getBalance', 1_000);
      chain.down.add('a');
      await calls(pool, clock, chain, 20, 'getBalance', 1_000);
      expect((await calls(pool, clock, chain, 10, 'getBalance', 1_000))['a']).toBeUndefined();
      chain.down.delete('a');
      const restartedAt = clock.now();
      let firstRead: number | undefined;
      for (let i = 0; i < 400 && firstRead === undefined; i++) {
        if ((await calls(pool, clock, chain, 1, 'getBalance', 1_000))['a'] !== undefined) firstRead = clock.now() - restartedAt;
      }
      if (health === false) {
        // Score 50-ish and no probes: back only when time-based recovery restores it (300 s after its last signal).
        expect(firstRead).toBeGreaterThan(200_000);
      } else {
        expect(firstRead).toBeLessThanOrEqual(20_000);
        expect(seen.probe.filter((e) => e.readmitted === true)).toHaveLength(1);
        expect(endpointOf(pool, 'a').reputation?.band).toBe('good');
      }
      await pool.close();
    }
  });

  it('probes once per backend shared by several entries, one in flight, and only with a token to spare', async () => {
    const clock = createFakeClock();
    const executor = createScriptedExecutor({ a1: [REFUSED], a2: [REFUSED] });
    const pool = new HttpTransportPool({
      endpoints: [
        { id: 'a1', url: 'https://node.example-rpc.com/key' },
        { id: 'a2', url: 'https://node.example-rpc.com/key', requestsPerSecond: 100 },
        { id: 'tight', url: 'https://tight.example-rpc.com/', requestsPerSecond: 1, burstCapacity: 1 },
        { id: 'b', url: 'https://b.example-rpc.com/' },
      ],
      chain: 'solana',
      clock,
      random: createSeededRandom(5),
      executor,
      health: { probeIntervalMs: 1_000, probeAll: true },
    });
    const seen = events(pool);
    await clock.advance(20_000);
    const sharedProbes = executor.countFor('a1', 'getSlot') + executor.countFor('a2', 'getSlot');
    expect(sharedProbes).toBeGreaterThanOrEqual(17);
    expect(sharedProbes).toBeLessThanOrEqual(23);
    expect(seen.probe.find((e) => e.endpointIds.length === 2)?.endpointIds).toEqual(['a1', 'a2']);
    // One token a second, burst 1: never one to spare.
    expect(executor.countFor('tight')).toBe(0);
    expect(seen.probe.filter((e) => e.endpointId === 'tight').every((e) => e.outcome === 'skipped')).toBe(true);
    // A probe that hangs is the only one in flight until it times out (requestTimeoutMs 10 s).
    executor.script('b', hangUntilAborted);
    const before = executor.countFor('b');
    await clock.advance(5_000);
    expect(executor.countFor('b') - before).toBe(1);
    expect(clock.pendingTimers).toBeGreaterThan(0);
    await pool.close();
    // close() aborted the hanging probe; its end settles in the same turn.
    await clock.flush();
    expect(clock.pendingTimers).toBe(0);
  });

  it('turns off every probe with health: false; lag still takes an endpoint out, until its head is a minute old', async () => {
    const clock = createFakeClock();
    const ids = ['a', 'b', 'c'];
    const chain = createChain(clock, ids);
    chain.lag['c'] = 300;
    const pool = solanaPool(clock, chain, ids, { health: false });
    await calls(pool, clock, chain, 6);
    chain.down.add('a');
    expect((await calls(pool, clock, chain, 50, 'getBalance', 1_000))['c']).toBeUndefined();
    expect(endpointOf(pool, 'c').health).toBe('lagging');
    expect(chain.executor.received.filter((r) => r.method === 'getSlot')).toHaveLength(0);
    expect(clock.pendingTimers).toBe(0);
    // Nothing probes it: a minute after its last head it gets one read, which judges it again (caught up now).
    chain.lag['c'] = 0;
    expect((await calls(pool, clock, chain, 30, 'getBalance', 1_000))['c']).toBeGreaterThan(5);
    expect(endpointOf(pool, 'c').health).toBe('fresh');
    await pool.close();
  });

  it('re-checks the chain of verified endpoints on the same loop and drops one that moved to another chain', async () => {
    const clock = createFakeClock();
    let chainIdOfB = '0x1';
    const answer = (id: string) => (request: ExecuteRequest, rpcId: number) => {
      const { method } = JSON.parse(request.body) as { method: string };
      if (method === 'eth_chainId') return ok(id === 'b' ? chainIdOfB : '0x1', rpcId);
      return ok('0x10', rpcId);
    };
    const executor = createScriptedExecutor({ a: [answer('a')], b: [answer('b')] });
    const pool = new HttpTransportPool({
      endpoints: [{ id: 'a', url: 'https://a.example-rpc.com/' }, { id: 'b', url: 'https://b.example-rpc.com/' }],
      expectedChain: { chainId: 1 },
      clock,
      random: createSeededRandom(5),
      executor,
      health: { chainRecheckMs: 60_000 },
    });
    for (let i = 0; i < 4; i++) {
      const read = pool.request('eth_blockNumber');
      await clock.flush();
      await read;
    }
    await clock.flush();
    expect(pool.snapshot().endpoints.map((e) => e.chain)).toEqual(['verified', 'verified']);
    const checksBefore = executor.countFor('b', 'eth_chainId');
    chainIdOfB = '0x89';
    await clock.advance(61_000);
    expect(executor.countFor('b', 'eth_chainId')).toBe(checksBefore + 1);
    expect(pool.snapshot().endpoints.map((e) => e.chain)).toEqual(['verified', 'wrong-chain']);
    await pool.close();
    expect(clock.pendingTimers).toBe(0);
  });

  it('never puts a URL, key or host in head or probe events or the snapshot', async () => {
    const clock = createFakeClock();
    const executor = createScriptedExecutor();
    let behind = 0;
    const script = (_request: ExecuteRequest, rpcId: number) => ok(1_000_000 + Math.floor(clock.now() / 400) - behind, rpcId);
    executor.script('keyed', script);
    executor.script('b', (_r: ExecuteRequest, rpcId: number) => ok(1_000_000 + Math.floor(clock.now() / 400), rpcId));
    const pool = new HttpTransportPool({
      endpoints: [
        { id: 'keyed', url: 'https://user:PASSWORD1@sk-live-SECRET123.mainnet.alpha-rpc.com/v2/PATHKEY456?api-key=QUERYKEY789', headers: { 'x-api-key': 'HEADERKEY0' } },
        { id: 'b', url: 'https://b.example-rpc.com/' },
      ],
      chain: 'solana',
      clock,
      random: createSeededRandom(5),
      executor,
      health: { probeAll: true },
    });
    const seen = events(pool);
    behind = 500;
    await clock.advance(30_000);
    behind = 0;
    await clock.advance(30_000);
    expect(seen.head.map((e) => e.state)).toEqual(['lagging', 'fresh']);
    const text = JSON.stringify([seen, pool.snapshot()], (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    for (const fragment of ['PASSWORD1', 'SECRET123', 'PATHKEY456', 'QUERYKEY789', 'HEADERKEY0', 'sk-live', 'mainnet.', '://']) expect(text).not.toContain(fragment);
    await pool.close();
  });
});
