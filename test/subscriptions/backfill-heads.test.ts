import { describe, expect, it } from 'vitest';
import { headsBackfill } from '../../src/subscriptions/backfill-heads.js';
import type { BackfillContext } from '../../src/subscriptions/backfill-types.js';

/** A chain of blocks 1…`top` whose hashes carry `fork` (two forks: two different chains). */
function chain(top: number, fork = 'a') {
  const hash = (n: number) => `0x${fork}${n.toString(16).padStart(63, '0')}`;
  const block = (n: number) => ({ number: `0x${n.toString(16)}`, hash: hash(n), parentHash: hash(n - 1) });
  return { block, top: block(top) };
}

/** A fill's HTTP side: answers block reads from `node`, counting them. */
function contextOf(node: ReturnType<typeof chain>, topNumber: number): BackfillContext & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    bounds: { maxBlocks: 128, maxMs: 10_000 },
    expired: () => false,
    request: (method, params) => {
      asked.push(method);
      if (method === 'eth_getBlockByNumber' && params[0] === 'latest') return Promise.resolve(node.block(topNumber));
      if (method === 'eth_getBlockByNumber') return Promise.resolve(node.block(Number(BigInt(params[0] as string))));
      const n = Number.parseInt((params[0] as string).slice(3), 16);
      return Promise.resolve(node.block(n));
    },
  };
}

describe('newHeads backfill (pure): what a rebind onto another node fills', () => {
  it('a node behind every block delivered (head 3 after 4–6) fills nothing: catching up is not a reorg', async () => {
    const a = chain(6);
    const backfill = headsBackfill({ maxBlocks: 128, maxMs: 10_000 });
    for (let n = 4; n <= 6; n++) backfill.observe!(a.block(n));
    const fill = await backfill.fill!([], contextOf(a, 3));
    expect(fill.steps).toEqual([]);
  });

  it('a node ahead on the same chain fills exactly the missed blocks, in order', async () => {
    const a = chain(9);
    const backfill = headsBackfill({ maxBlocks: 128, maxMs: 10_000 });
    for (let n = 4; n <= 6; n++) backfill.observe!(a.block(n));
    const fill = await backfill.fill!([], contextOf(a, 9));
    expect(fill.steps.map((s) => (s.kind === 'notification' ? Number(BigInt((s.value as { number: string }).number)) : s.kind))).toEqual([7, 8, 9]);
  });

  it('a node behind on another chain at a delivered number is a reorg: its block comes flagged', async () => {
    const a = chain(6);
    const b = chain(5, 'b');
    const backfill = headsBackfill({ maxBlocks: 3, maxMs: 10_000 });
    for (let n = 4; n <= 6; n++) backfill.observe!(a.block(n));
    const fill = await backfill.fill!([], contextOf(b, 5));
    const first = fill.steps.find((s) => s.kind === 'notification');
    expect(first).toMatchObject({ kind: 'notification', reorged: true });
  });
});
