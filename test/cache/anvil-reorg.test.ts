import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import { createDefaultExecutor } from '../../src/http/default-executor.js';
import type { HttpExecutor } from '../../src/http/executor.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { startAnvil, type AnvilInstance } from '../helpers/anvil.js';
import { closePools, createPool } from '../helpers/pools.js';

/**
 * The read cache against a real anvil that reorganizes: reads near the tip while the chain
 * is reorganized 20 times never get an answer the chain no longer has, and reads at or below
 * the finalized head (`--slots-in-an-epoch 4`: latest − 8) come from memory.
 */

const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const TO = '0x70997970c51812dc3a4b355c851d7686a8b7ebd4';
let anvil: AnvilInstance;

beforeAll(async () => {
  anvil = await startAnvil({ args: ['--slots-in-an-epoch', '4'] });
});
afterAll(async () => {
  await closePools();
  await anvil?.stop();
});

/** Straight to anvil, no pool: the chain as it is now. */
async function direct(method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await response.json()) as { result?: unknown; error?: unknown };
  if (body.error !== undefined) throw new Error(JSON.stringify(body.error));
  return body.result;
}

describe('read cache on a reorganizing anvil', () => {
  it('serves 0 answers the chain no longer has across 20 reorgs, and finalized reads from memory', async () => {
    const clock = createFakeClock();
    const inner = createDefaultExecutor();
    let nodeRequests = 0;
    const log: string[] = [];
    const executor: HttpExecutor = {
      execute: (request) => {
        nodeRequests++;
        log.push(request.body);
        return inner.execute(request);
      },
      close: () => inner.close(),
    };
    const pool = createPool({ endpoints: [{ id: 'anvil', url: anvil.url }], clock, random: createSeededRandom(3), executor, chain: 'evm', cache: { ttl: { unfinalized: 600_000 } }, health: false });
    await direct('anvil_mine', ['0x14']);
    let reads = 0;
    let stale = 0;
    let reorgEvictions = 0;
    pool.on('cache', (event) => (reorgEvictions += event.dropped));
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 2; i++) await direct('eth_sendTransaction', [{ from: FROM, to: TO, value: `0x${(round * 2 + i + 1).toString(16)}` }]);
      // An indexer follows the tip: the tip's block is how a reorg becomes visible.
      const tip = Number.parseInt(((await pool.request('eth_getBlockByNumber', ['latest', false])) as { number: string }).number, 16);
      for (let n = tip - 12; n <= tip; n++) {
        const ref = `0x${n.toString(16)}`;
        for (const [method, params] of [
          ['eth_getBlockByNumber', [ref, false]],
          ['eth_getBlockReceipts', [ref]],
          ['eth_getBalance', [FROM, ref]],
          ['eth_getLogs', [{ fromBlock: ref, toBlock: ref }]],
        ] as const) {
          const answer = await pool.request(method, [...params]);
          reads++;
          if (JSON.stringify(answer) !== JSON.stringify(await direct(method, [...params]))) stale++;
        }
      }
      // Replace the last 3 blocks (above the finalized head) with empty ones; the next round's tip shows it.
      await direct('anvil_reorg', [3, []]);
      await clock.advance(12_000);
    }
    expect({ stale, reads }).toEqual({ stale: 0, reads: 1_040 });
    expect(reorgEvictions).toBeGreaterThan(0);
    // Re-reading finalized blocks (their blocks, balances and receipts, but for the empty ones, never kept) asks the node nothing.
    const before = nodeRequests;
    const tip = Number.parseInt((await direct('eth_blockNumber', [])) as string, 16);
    for (let n = tip - 30; n <= tip - 10; n++) {
      const ref = `0x${n.toString(16)}`;
      await pool.request('eth_getBlockByNumber', [ref, false]);
      const empty = ((await direct('eth_getBlockReceipts', [ref])) as unknown[]).length === 0;
      if (!empty) await pool.request('eth_getBlockReceipts', [ref]);
      await pool.request('eth_getBalance', [FROM, ref]);
    }
    if (nodeRequests - before !== 0) console.log(log.slice(before).slice(0, 5));
    expect(nodeRequests - before).toBe(0);
    expect(before).toBeLessThan(reads);
  }, 60_000);
});
