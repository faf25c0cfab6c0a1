/**
 * Solana nodes as fixture servers over real loopback sockets: one chain head on a shared fake
 * clock, one node made to lag with the `lag` behaviour, and `getHealth` "behind by N slots".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import type { HeadEvent, ProbeEvent } from '../../src/api/events.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createFakeClock, type FakeClock } from '../../src/testing/fake-clock.js';
import { createFixtureServer, type FixtureServer } from '../../src/testing/fixture-server.js';
import { resultFixture } from '../../src/testing/fixtures.js';

const ADDRESS = '11111111111111111111111111111111';
const servers: FixtureServer[] = [];
const pools: HttpTransportPool[] = [];

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function solanaNodes(clock: FakeClock, count: number): Promise<FixtureServer[]> {
  const fixtures = [resultFixture('solana', 'getBalance', [ADDRESS], { context: { slot: 0 }, value: 5 }), resultFixture('solana', 'getHealth', [], 'ok')];
  for (let i = 0; i < count; i++) servers.push(await createFixtureServer({ fixtures, clock, head: { start: 300_000_000, perSecond: 2.5 } }));
  return servers.slice(-count);
}

function poolOver(clock: FakeClock, nodes: readonly FixtureServer[]) {
  const pool = new HttpTransportPool({
    endpoints: nodes.map((node, i) => ({ id: `n${i}`, url: node.url })),
    chain: 'solana',
    clock,
    random: createSeededRandom(9),
    concentration: { maxOperatorShare: 0 },
  });
  pools.push(pool);
  const head: HeadEvent[] = [];
  const probe: ProbeEvent[] = [];
  pool.on('head', (e) => head.push(e));
  pool.on('probe', (e) => probe.push(e));
  return { pool, head, probe };
}

/** `count` getBalance reads, 200 ms of fake time apart; what each node received of them. */
async function reads(pool: HttpTransportPool, clock: FakeClock, nodes: readonly FixtureServer[], count: number): Promise<number[]> {
  const before = nodes.map((node) => node.count('getBalance'));
  for (let i = 0; i < count; i++) {
    await pool.request('getBalance', [ADDRESS]);
    await clock.advance(200);
  }
  return nodes.map((node, i) => node.count('getBalance') - before[i]!);
}

/** Moves fake time in steps until `done()`, letting real socket I/O finish between steps (bounded). */
async function advanceUntil(clock: FakeClock, done: () => boolean, stepMs = 500, maxSteps = 200): Promise<void> {
  for (let i = 0; i < maxSteps && !done(); i++) {
    await clock.advance(stepMs);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  if (!done()) throw new Error('condition not reached');
}

describe('Solana nodes that lag (fixture servers)', () => {
  it('sends no read to a node 200 slots behind once its head is seen, and reads again once it catches up', async () => {
    const clock = createFakeClock();
    const nodes = await solanaNodes(clock, 3);
    nodes[2]!.setBehaviours([{ type: 'lag', slots: 200 }]);
    const { pool, head } = poolOver(clock, nodes);
    await reads(pool, clock, nodes, 6);
    expect(head.map((e) => [e.endpointId, e.state])).toEqual([['n2', 'lagging']]);
    const during = await reads(pool, clock, nodes, 30);
    expect(during[2]).toBe(0);
    expect(during[0]! + during[1]!).toBe(30);
    // Caught up: its next probe (getSlot, about 10 s later) shows it back within half the allowance.
    nodes[2]!.setBehaviours([{ type: 'lag', slots: 10 }]);
    await advanceUntil(clock, () => head.length === 2);
    expect(head[1]).toMatchObject({ endpointId: 'n2', state: 'fresh' });
    expect(nodes[2]!.count('getSlot')).toBeGreaterThanOrEqual(1);
    expect((await reads(pool, clock, nodes, 30))[2]).toBeGreaterThanOrEqual(8);
  });

  it('counts a getHealth "behind by N slots" answer as a head: the node leaves rotation', async () => {
    const clock = createFakeClock();
    const nodes = await solanaNodes(clock, 3);
    // Only getHealth tells: its reads still carry a fresh slot.
    nodes[1]!.setBehaviours({ getHealth: [{ type: 'lag', slots: 400 }] });
    const { pool, head } = poolOver(clock, nodes);
    await reads(pool, clock, nodes, 6);
    let settled: unknown;
    pool.request('getHealth', [], { endpoint: 'n1' }).then(
      () => (settled = 'answered'),
      (error: unknown) => (settled = error),
    );
    // A pinned call is retried on the same node after its backoff: move time until it gives up.
    await advanceUntil(clock, () => settled !== undefined, 50);
    expect(settled).toMatchObject({ code: expect.stringMatching(/^(RETRIES_EXHAUSTED|RPC_ERROR|HTTP_ERROR)$/) });
    // 400 behind the tip it reported against (the tip itself is the second-highest head, so it may move by a slot).
    expect(head).toEqual([expect.objectContaining({ endpointId: 'n1', state: 'lagging' })]);
    expect(Number(head[0]!.lag)).toBeGreaterThanOrEqual(398);
    expect(pool.snapshot().endpoints[1]!.health).toBe('lagging');
    expect((await reads(pool, clock, nodes, 20))[1]).toBe(0);
  });
});
