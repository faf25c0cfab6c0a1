/**
 * Heads that must not decide alone: a rogue first head in a pool of two, and a fresh verdict
 * the tip has outgrown. Fake clock, scripted endpoints: what each endpoint received is what a
 * server would have seen.
 */
import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import type { ExecuteRequest } from '../../src/http/executor.js';
import type { HeadEvent, ProbeEvent } from '../../src/api/events.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createFakeClock, type FakeClock } from '../../src/testing/fake-clock.js';
import { createScriptedExecutor, ok } from '../helpers/scripted-executor.js';
import { track } from '../pool/pool-fixtures.js';

const ROGUE_SLOT = 2 ** 60;
const ADDRESS = '11111111111111111111111111111111';

/** Endpoints answering getSlot / getBalance (context.slot) / eth_blockNumber with `headOf(id)`, anything else with 'done'. */
function nodes(ids: readonly string[], headOf: (id: string) => number) {
  const executor = createScriptedExecutor();
  for (const id of ids) {
    executor.script(id, (request: ExecuteRequest, rpcId: number) => {
      const { method } = JSON.parse(request.body) as { method: string };
      const head = headOf(id);
      if (method === 'getSlot') return ok(head, rpcId);
      if (method === 'getBalance') return ok({ context: { slot: head }, value: 1 }, rpcId);
      if (method === 'eth_blockNumber') return ok(`0x${head.toString(16)}`, rpcId);
      return ok('done', rpcId);
    });
  }
  return executor;
}

function poolOf(clock: FakeClock, ids: readonly string[], executor: ReturnType<typeof nodes>, chain: 'solana' | 'evm', seed = 5) {
  const pool = new HttpTransportPool({
    endpoints: ids.map((id) => ({ id, url: `https://${id}.example-rpc.com/` })),
    chain,
    clock,
    random: createSeededRandom(seed),
    executor,
    concentration: { maxOperatorShare: 0 },
  });
  const head: HeadEvent[] = [];
  const probe: ProbeEvent[] = [];
  pool.on('head', (e) => head.push(e));
  pool.on('probe', (e) => probe.push(e));
  return { pool, head, probe };
}

/** `count` calls of `method` (pinned to `endpoint` when given), `stepMs` of fake time apart; what each endpoint received of that method. */
async function calls(pool: HttpTransportPool, clock: FakeClock, executor: ReturnType<typeof nodes>, count: number, method: string, endpoint?: string, stepMs = 100) {
  const from = executor.received.length;
  const params = method === 'getBalance' ? [ADDRESS] : [];
  for (let i = 0; i < count; i++) {
    const call = track(pool.request(method, params, endpoint === undefined ? {} : { endpoint }), clock);
    await clock.flush();
    for (let waited = 0; !call.settled && waited < 30_000; waited += 10) await clock.advance(10);
    if (call.error !== undefined) throw call.error;
    await clock.advance(stepMs);
  }
  const seen: Record<string, number> = {};
  for (const r of executor.received.slice(from)) if (r.method === method) seen[r.endpointId] = (seen[r.endpointId] ?? 0) + 1;
  return seen;
}

const stateOf = (pool: HttpTransportPool, id: string) => pool.snapshot().endpoints.find((e) => e.endpointId === id)!.health;

describe('a rogue first head in a pool of two', () => {
  it.each([1, 2, 3, 4, 5])('does not make the honest node lag: it serves its share of 60 Solana reads (seed %i)', async (seed) => {
    const clock = createFakeClock();
    const executor = nodes(['rogue', 'honest'], (id) => (id === 'rogue' ? ROGUE_SLOT : 300_000_000 + Math.floor(clock.now() / 400)));
    const { pool, head } = poolOf(clock, ['rogue', 'honest'], executor, 'solana', seed);
    await calls(pool, clock, executor, 1, 'getBalance', 'rogue');
    const seen = await calls(pool, clock, executor, 60, 'getBalance');
    expect(seen['honest']).toBeGreaterThanOrEqual(25);
    expect(head.filter((e) => e.endpointId === 'honest')).toEqual([]);
    expect(stateOf(pool, 'honest')).toBe('fresh');
    await pool.close();
  });

  it('does not make the honest EVM node lag either (block 2^60 first)', async () => {
    const clock = createFakeClock();
    const executor = nodes(['rogue', 'honest'], (id) => (id === 'rogue' ? ROGUE_SLOT : 20_000_000));
    const { pool, head } = poolOf(clock, ['rogue', 'honest'], executor, 'evm');
    await calls(pool, clock, executor, 1, 'eth_blockNumber', 'rogue');
    const seen = await calls(pool, clock, executor, 60, 'eth_blockNumber');
    expect(seen['honest']).toBeGreaterThanOrEqual(25);
    expect(head).toEqual([]);
    expect(stateOf(pool, 'honest')).toBe('fresh');
    await pool.close();
  });
});

describe('a fresh verdict the tip has outgrown', () => {
  /** a, b and c at one head; then c's head stands still (or keeps up) while the tip moves 4 000 slots on a and b. */
  async function agedSetup(cKeepsUp: boolean) {
    const clock = createFakeClock();
    let tip = 300_000_000;
    let cFrozenAt: number | undefined;
    const ids = ['a', 'b', 'c'];
    const executor = nodes(ids, (id) => (id === 'c' && cFrozenAt !== undefined ? cFrozenAt : tip));
    const setup = poolOf(clock, ids, executor, 'solana');
    for (const id of ids) await calls(setup.pool, clock, executor, 1, 'getBalance', id);
    expect(stateOf(setup.pool, 'c')).toBe('fresh');
    if (!cKeepsUp) cFrozenAt = tip;
    tip += 4_000;
    // Head-bearing answers from a and b only; c serves head-less reads.
    await calls(setup.pool, clock, executor, 1, 'getBalance', 'a');
    await calls(setup.pool, clock, executor, 1, 'getBalance', 'b');
    return { ...setup, clock, executor };
  }

  it('is re-judged by a probe: a node whose head stood still while the tip moved 4 000 slots gets no head-less read after it', async () => {
    const { pool, clock, executor, head, probe } = await agedSetup(false);
    expect(stateOf(pool, 'c')).toBe('unknown');
    // Within about one probe interval (10 s ± 10 %) its probe shows it 4 000 slots behind.
    await calls(pool, clock, executor, 60, 'getBlockHeight', undefined, 200);
    expect(probe.filter((e) => e.endpointId === 'c').map((e) => [e.reason, e.outcome])).toContainEqual(['aged', 'ok']);
    expect(head).toEqual([expect.objectContaining({ endpointId: 'c', state: 'lagging', lag: 4_000n })]);
    expect(stateOf(pool, 'c')).toBe('lagging');
    const after = await calls(pool, clock, executor, 60, 'getBlockHeight');
    expect(after['c']).toBeUndefined();
    expect((after['a'] ?? 0) + (after['b'] ?? 0)).toBe(60);
    await pool.close();
  });

  it('keeps a node that kept up in rotation meanwhile, and fresh after its probe', async () => {
    const { pool, clock, executor, head, probe } = await agedSetup(true);
    expect(stateOf(pool, 'c')).toBe('unknown');
    const meanwhile = await calls(pool, clock, executor, 60, 'getBlockHeight', undefined, 200);
    expect(meanwhile['c']).toBeGreaterThanOrEqual(15);
    expect(probe.filter((e) => e.endpointId === 'c').map((e) => [e.reason, e.outcome])).toContainEqual(['aged', 'ok']);
    expect(head).toEqual([]);
    expect(stateOf(pool, 'c')).toBe('fresh');
    await pool.close();
  });
});
