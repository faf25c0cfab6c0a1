import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom, HttpTransportPool } from '../../src/index.js';
import type { Subscription, SubscriptionItem } from '../../src/subscriptions/types.js';
import { startAnvil, type AnvilInstance } from '../helpers/anvil.js';
import { until } from './helpers.js';

/**
 * `redundancy: 2` on real nodes: three anvils mining a block a second (`--block-time 1`).
 * Started with one genesis timestamp, they hold one chain (block n's timestamp is genesis +
 * n, so its hash is the same on each), a few ms apart in phase. Time here is real time.
 */
const BLOCK_MS = 1_000;
/** One block time, plus what separates the nodes' phases (started together) and a loaded machine's scheduling. */
const WITHIN_ONE_BLOCK_MS = BLOCK_MS + 400;

const anvils: AnvilInstance[] = [];
const pools: HttpTransportPool[] = [];
const frozen = new Set<number>();
afterEach(async () => {
  for (const pid of frozen) process.kill(pid, 'SIGCONT');
  frozen.clear();
  await Promise.all(pools.splice(0).map((p) => p.close()));
  await Promise.all(anvils.splice(0).map((a) => a.stop()));
});

interface Seen {
  readonly item: SubscriptionItem<{ number: string }>;
  readonly atMs: number;
}

/** Reads `sub` in the background into `seen`, stamped with real time. */
function record(sub: Subscription<{ number: string }>): Seen[] {
  const seen: Seen[] = [];
  void (async () => {
    for await (const item of sub) seen.push({ item, atMs: performance.now() });
  })();
  return seen;
}

const numbers = (seen: readonly Seen[]) => seen.flatMap(({ item }) => (item.kind === 'notification' ? [Number(item.value.number)] : []));
const notifications = (seen: readonly Seen[]) => seen.filter(({ item }) => item.kind === 'notification');

async function setUp() {
  const nodes = await Promise.all([0, 1, 2].map(() => startAnvil({ args: ['--block-time', String(BLOCK_MS / 1000)] })));
  anvils.push(...nodes);
  const ids = ['a', 'b', 'c'];
  const pool = new HttpTransportPool({
    endpoints: nodes.map((node, i) => ({ id: ids[i]!, url: node.url, operator: `operator-${ids[i]}` })),
    random: createSeededRandom(8),
    subscriptions: { deriveWsUrl: true, initialBackoffMs: 20, maxBackoffMs: 200 },
  });
  pools.push(pool);
  const heads = await pool.subscribe<{ number: string }>('eth_subscribe', ['newHeads'], { redundancy: 2 });
  const seen = record(heads);
  await until(() => pool.snapshot().subscriptions.filter((s) => s.redundant === 1).length === 2, 10_000, 'both legs live');
  await until(() => notifications(seen).length >= 3, 10_000, 'three blocks');
  const node = (id: string) => nodes[ids.indexOf(id)]!;
  return { pool, seen, node };
}

/** Waits for the next notification, then returns the node that brought it (the one in use) and its index in `seen`. */
async function nodeInUse(seen: readonly Seen[], node: (id: string) => AnvilInstance) {
  const before = notifications(seen).length;
  await until(() => notifications(seen).length > before, 5_000, 'a block');
  const last = notifications(seen).at(-1)!;
  return { anvil: node(last.item.endpointId), endpointId: last.item.endpointId };
}

async function expectEveryBlockOnceAfter(seen: readonly Seen[], killedAtMs: number, pool: HttpTransportPool, killed: string) {
  const countBefore = seen.filter((s) => s.atMs <= killedAtMs).length;
  await until(() => seen.length >= countBefore + 4, 10_000, 'four blocks after');
  const first = seen[countBefore]!;
  expect(first.item.kind).toBe('notification');
  expect(first.atMs - killedAtMs).toBeLessThan(WITHIN_ONE_BLOCK_MS);
  // Every block number once, in order, from the first delivered on: no gap, no rebind item.
  expect(seen.map((s) => s.item.kind).every((kind) => kind === 'notification')).toBe(true);
  const got = numbers(seen);
  expect(got).toEqual(Array.from({ length: got.length }, (_, i) => got[0]! + i));
  // The leg that lost its node moves to the third one; the stream went on meanwhile.
  const legsOn = () => pool.snapshot().subscriptions.filter((s) => s.redundant === 1 && s.pausedForMs === 0 && s.endpointId !== killed).map((s) => s.endpointId);
  await until(() => legsOn().length === 2, 15_000, 'the lost leg placed on the third node');
  expect(numbers(seen).length).toBe(new Set(numbers(seen)).size);
}

describe('redundancy 2 on anvils mining a block a second', () => {
  it('the node in use is killed: the next block comes within one block time, and every block arrives exactly once, in order', async () => {
    const { pool, seen, node } = await setUp();
    const inUse = await nodeInUse(seen, node);
    process.kill(inUse.anvil.pid, 'SIGKILL');
    const killedAtMs = performance.now();
    await expectEveryBlockOnceAfter(seen, killedAtMs, pool, inUse.endpointId);
  }, 60_000);

  it('the node in use freezes (its socket stays open, silent): the other leg brings the next block within one block time', async () => {
    const { pool, seen, node } = await setUp();
    const inUse = await nodeInUse(seen, node);
    process.kill(inUse.anvil.pid, 'SIGSTOP');
    frozen.add(inUse.anvil.pid);
    const frozenAtMs = performance.now();
    await expectEveryBlockOnceAfter(seen, frozenAtMs, pool, inUse.endpointId);
  }, 60_000);
});
