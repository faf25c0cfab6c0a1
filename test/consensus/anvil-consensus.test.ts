import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilInstance } from '../helpers/anvil.js';
import { closePools, createPool, rejection } from '../helpers/pools.js';

/**
 * Issue 28 §2 on real nodes: three anvils of one genesis (`--timestamp 1700000000`), not
 * mining on their own. One is one block behind (honest drift); one is put in another state
 * (`anvil_setBalance` on one account). Consensus detects the other state, and the drift of
 * one block does not fail it.
 */

const ACCOUNT = '0x70997970c51812dc3a4b355c851d7686a8b7ebd4';
const FORKED = '0x00000000000000000000000000000000000000c0';
const anvils: AnvilInstance[] = [];

async function rpc(anvil: AnvilInstance, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await response.json()) as { result?: unknown; error?: unknown };
  if (body.error !== undefined) throw new Error(JSON.stringify(body.error));
  return body.result;
}

beforeAll(async () => {
  anvils.push(...(await Promise.all([0, 1, 2].map(() => startAnvil({ args: ['--no-mining'] })))));
  // Heads 5, 5 and 4: the third node is one block behind.
  await Promise.all(anvils.map((anvil, i) => rpc(anvil, 'anvil_mine', [i === 2 ? '0x4' : '0x5'])));
  // The second node is in another state: a balance the others do not have.
  await rpc(anvils[1]!, 'anvil_setBalance', [FORKED, '0xde0b6b3a7640000']);
}, 30_000);

afterAll(async () => {
  await closePools();
  await Promise.all(anvils.map((anvil) => anvil.stop()));
});

const pool = () =>
  createPool({
    endpoints: anvils.map((anvil, i) => ({ id: `anvil-${i}`, url: anvil.url, operator: `op${i}.example` })),
    chain: 'evm',
    health: false,
  });

describe('consensus on three real anvils', () => {
  it('honest drift of one block does not fail it: heads 5, 5, 4 agree on 4; an unchanged balance agrees across the drift', async () => {
    const three = pool();
    expect(await three.request('eth_blockNumber', [], { consensus: { operators: 3 } })).toBe('0x4');
    const balance = await rpc(anvils[0]!, 'eth_getBalance', [ACCOUNT, 'latest']);
    expect(await three.request('eth_getBalance', [ACCOUNT, 'latest'], { consensus: { operators: 3 } })).toBe(balance);
    expect(three.snapshot().consensus).toMatchObject({ calls: 2, agreed: 2, failed: 0 });
  });

  it('the node in another state is outvoted and struck with operators 2, and named as its own answer class with operators 3', async () => {
    const two = pool();
    // Every pair of operators in turn: the pairs with the forked node disagree and ask the third.
    for (let i = 0; i < 6; i++) expect(await two.request('eth_getBalance', [FORKED, 'latest'], { consensus: { operators: 2 } })).toBe('0x0');
    const consensus = two.snapshot().consensus!;
    expect(consensus).toMatchObject({ calls: 6, failed: 0 });
    expect(consensus.disagreed).toBeGreaterThan(0);
    expect(consensus.strikes).toBe(consensus.disagreed);
    const scores = Object.fromEntries(two.snapshot().endpoints.map((e) => [e.endpointId, e.reputation?.score ?? 0]));
    expect(scores['anvil-1']).toBeLessThan(scores['anvil-0']!);

    const error = await rejection(pool().request('eth_getBalance', [FORKED, 'latest'], { consensus: { operators: 3 } }));
    expect(error.code).toBe('CONSENSUS_FAILED');
    expect(error.context).toMatchObject({ operators: 3, reason: 'disagreement' });
    const classes = Object.fromEntries((error.context as { answers: { endpointId: string; answerClass: string }[] }).answers.map((a) => [a.endpointId, a.answerClass]));
    expect(classes['anvil-0']).toBe(classes['anvil-2']);
    expect(classes['anvil-1']).not.toBe(classes['anvil-0']);
  });
});
