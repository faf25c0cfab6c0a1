import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom, HttpTransportPool, type HttpTransportPoolOptions } from '../../src/index.js';
import { createEvmClient, type EvmHead } from '../../src/evm/index.js';
import type { SubscriptionItem } from '../../src/subscriptions/types.js';
import { startAnvil, type AnvilInstance } from '../helpers/anvil.js';
import { closeAllServers, hang, startRpcServer } from '../helpers/loopback.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { describe as describeItems, readUntil, until } from './helpers.js';

/**
 * Backfill against a real node: one anvil, endpoint `a` reached through a TCP proxy (HTTP and
 * WebSocket, the only WebSocket endpoint) and `b` directly (HTTP only). Killing the proxy
 * kills the node in use: the subscription is down until it comes back, and what was mined
 * meanwhile is read over HTTP (from `b` while `a` is down).
 */
const anvils: AnvilInstance[] = [];
const proxies: TcpProxy[] = [];
const pools: HttpTransportPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  await Promise.all(proxies.splice(0).map((p) => p.close()));
  await Promise.all(anvils.splice(0).map((a) => a.stop()));
  await closeAllServers();
});

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await response.json()) as { result?: unknown; error?: unknown };
  if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

async function setUp(args: string[], subscriptions: HttpTransportPoolOptions['subscriptions'] = {}) {
  const anvil = await startAnvil({ args });
  anvils.push(anvil);
  const proxy = await startTcpProxy(anvil.port);
  proxies.push(proxy);
  const pool = new HttpTransportPool({
    endpoints: [
      { id: 'a', url: proxy.url, wsUrl: proxy.url.replace('http:', 'ws:'), tier: 0 },
      { id: 'b', url: anvil.url, tier: 1 },
    ],
    random: createSeededRandom(7),
    subscriptions: { initialBackoffMs: 20, maxBackoffMs: 100, ...subscriptions },
  });
  pools.push(pool);
  /** The node is down for `during` (its socket reset, connections refused), then back. */
  const outage = async (during: () => Promise<unknown>) => {
    await proxy.kill();
    await during();
    await proxy.revive();
  };
  return { anvil, pool, outage, rpc: (method: string, params: unknown[]) => rpc(anvil.url, method, params) };
}

const heads = (items: readonly SubscriptionItem<EvmHead>[]) => items.flatMap((i) => (i.kind === 'notification' ? [i] : []));
const numbers = (items: readonly SubscriptionItem<EvmHead>[]) => heads(items).map((i) => Number(i.value.number));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

async function expectCanonical(items: readonly SubscriptionItem<EvmHead>[], call: (method: string, params: unknown[]) => Promise<unknown>) {
  for (const item of heads(items).slice(-8)) {
    const block = (await call('eth_getBlockByNumber', [`0x${item.value.number.toString(16)}`, false])) as { hash: string };
    expect(item.value.hash).toBe(block.hash);
  }
}

describe('newHeads backfill on a real node', () => {
  it('--block-time 1, the node in use killed for ~3 blocks: every block number arrives exactly once, in order, no gap', async () => {
    const { pool, outage, rpc: call } = await setUp(['--block-time', '1']);
    const sub = await createEvmClient(pool).onNewHeads();
    const before = await readUntil(sub, (_i, all) => all.length === 2);
    const last = numbers(before).at(-1)!;
    await outage(() => sleep(3_300));
    const after = await readUntil(sub, (i) => i.kind === 'notification' && Number(i.value.number) >= last + 5, { timeoutMs: 20_000 });
    const all = [...before, ...after];
    expect(all.filter((i) => i.kind === 'gap')).toEqual([]);
    expect(all.filter((i) => i.kind === 'rebind')).toHaveLength(1);
    expect(numbers(all)).toEqual(range(numbers(all)[0]!, numbers(all).at(-1)!));
    // The blocks mined while it was down came over HTTP, before any live one.
    const filled = heads(after).filter((i) => i.backfilled);
    expect(filled.length).toBeGreaterThanOrEqual(2);
    expect(heads(after).slice(0, filled.length)).toEqual(filled);
    await expectCanonical(all, call);
    await sub.close();
  }, 40_000);

  it('a reorg across the outage: the new blocks at the numbers already delivered come flagged `reorged`, then the missed ones, then live', async () => {
    const { pool, outage, rpc: call } = await setUp(['--no-mining']);
    await call('anvil_mine', ['0x3']);
    const sub = await createEvmClient(pool).onNewHeads();
    await call('evm_mine', []);
    await call('evm_mine', []);
    const before = await readUntil(sub, (_i, all) => all.length === 2);
    expect(numbers(before)).toEqual([4, 5]);
    await outage(async () => {
      // A transaction in the new block 4: its hash differs from the one delivered even at the same timestamp.
      await call('anvil_reorg', [2, [[{ from: DEV_ACCOUNT, to: EMITTER, value: '0x1' }, 0]]]);
      await call('anvil_mine', ['0x2']);
    });
    const filled = await readUntil(sub, (i) => i.kind === 'notification' && i.value.number === 7n);
    await call('evm_mine', []);
    const live = await readUntil(sub, (i) => i.kind === 'notification');
    expect(filled.map((i) => i.kind), describeItems(filled)).toEqual(['rebind', 'notification', 'notification', 'notification', 'notification']);
    expect(heads(filled).map((i) => [Number(i.value.number), i.backfilled, i.reorged])).toEqual([
      [4, true, true],
      [5, true, true],
      [6, true, undefined],
      [7, true, undefined],
    ]);
    expect(heads(filled)[0]!.value.hash).not.toBe(heads(before)[0]!.value.hash);
    expect(numbers(live)).toEqual([8]);
    await expectCanonical([...filled, ...live], call);
    await sub.close();
  }, 30_000);

  it('past maxBlocks: a gap item says which numbers were not filled, the newest ones are', async () => {
    const { pool, outage, rpc: call } = await setUp(['--no-mining'], { backfill: { maxBlocks: 2 } });
    const sub = await createEvmClient(pool).onNewHeads();
    await call('evm_mine', []);
    await readUntil(sub, (i) => i.kind === 'notification');
    await outage(() => call('anvil_mine', ['0x4']));
    const filled = await readUntil(sub, (i) => i.kind === 'notification' && i.value.number === 5n);
    expect(filled.map((i) => i.kind)).toEqual(['rebind', 'gap', 'notification', 'notification']);
    expect(filled[1]).toMatchObject({ kind: 'gap', from: 2n, to: 3n, reason: 'max-blocks' });
    expect(numbers(filled)).toEqual([4, 5]);
    await sub.close();
  }, 30_000);

  it('past maxMs (every HTTP endpoint hangs): live heads resume, and the gap they leave says max-ms', async () => {
    const anvil = await startAnvil({ args: ['--no-mining'] });
    anvils.push(anvil);
    const proxy = await startTcpProxy(anvil.port);
    proxies.push(proxy);
    const hanging = await startRpcServer(hang);
    const pool = new HttpTransportPool({
      endpoints: [{ id: 'a', url: hanging.url, wsUrl: proxy.url.replace('http:', 'ws:') }],
      random: createSeededRandom(7),
      subscriptions: { initialBackoffMs: 20, maxBackoffMs: 100, backfill: { maxMs: 300 } },
    });
    pools.push(pool);
    const call = (method: string, params: unknown[]) => rpc(anvil.url, method, params);
    const sub = await createEvmClient(pool).onNewHeads();
    await call('evm_mine', []);
    await readUntil(sub, (i) => i.kind === 'notification');
    await proxy.kill();
    await call('anvil_mine', ['0x3']);
    await proxy.revive();
    await readUntil(sub, (i) => i.kind === 'rebind');
    await until(() => hanging.count('eth_getBlockByNumber') > 0, 5_000, 'the head asked for');
    // The fill gave up; the next live head shows what it left.
    await sleep(400);
    await call('evm_mine', []);
    const after = await readUntil(sub, (i) => i.kind === 'notification');
    expect(after.map((i) => i.kind)).toEqual(['gap', 'notification']);
    expect(after[0]).toMatchObject({ from: 2n, to: 4n, reason: 'max-ms' });
    expect(numbers(after)).toEqual([5]);
    await sub.close();
  }, 30_000);
});

/** Runtime code that emits one log per call: topic EMITTED, data = the block number. */
const EMITTER = `0x${'ee'.repeat(20)}`;
const EMITTED = `0x${'ab'.repeat(32)}`;
// NUMBER PUSH1 0 MSTORE PUSH32 EMITTED PUSH1 32 PUSH1 0 LOG1 STOP
const EMITTER_CODE = `0x43600052` + `7f${EMITTED.slice(2)}` + `60206000a100`;
const DEV_ACCOUNT = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

/** The fields of a log these tests compare. */
interface EvmLog {
  readonly blockHash: string;
  readonly blockNumber: bigint;
  readonly logIndex: number;
  readonly transactionHash: string;
  readonly removed: boolean;
}
const logKey = (log: { readonly blockHash: string; readonly logIndex: number | string }) => `${log.blockHash}:${Number(log.logIndex)}`;

describe('logs backfill on a real node', () => {
  it('the logs subscribed equal one eth_getLogs over the range afterwards, across a rebind and across a reorg (removed: true items)', async () => {
    const { pool, outage, rpc: call } = await setUp(['--no-mining']);
    await call('anvil_setCode', [EMITTER, EMITTER_CODE]);
    /** Mines `blocks` blocks, each with two transactions that emit a log. */
    const mineWithLogs = async (blocks: number) => {
      for (let i = 0; i < blocks; i++) {
        for (let t = 0; t < 2; t++) await call('eth_sendTransaction', [{ from: DEV_ACCOUNT, to: EMITTER, gas: '0x30000' }]);
        await call('evm_mine', []);
      }
    };
    await mineWithLogs(1);
    const sub = await createEvmClient(pool).onLogs({ address: EMITTER as `0x${string}` });
    const items: SubscriptionItem<EvmLog>[] = [];
    const readBlock = async (n: bigint) => items.push(...(await readUntil(sub, (i, all) => i.kind === 'notification' && !i.value.removed && i.value.blockNumber === n && all.filter((x) => x.kind === 'notification' && x.value.blockNumber === n && !x.value.removed).length === 2)));
    await mineWithLogs(2);
    await readBlock(3n);
    await outage(() => mineWithLogs(2));
    await mineWithLogs(1);
    await readBlock(6n);
    const removedBefore = items.length;
    const undone = items.flatMap((i) => (i.kind === 'notification' && i.value.blockNumber >= 5n ? [logKey(i.value)] : []));
    await outage(async () => {
      await call('anvil_reorg', [2, []]);
      await mineWithLogs(2);
    });
    await mineWithLogs(1);
    await readBlock(9n);

    expect(items.filter((i) => i.kind === 'gap')).toEqual([]);
    expect(items.filter((i) => i.kind === 'rebind')).toHaveLength(2);
    const logs = items.flatMap((i) => (i.kind === 'notification' ? [i.value] : []));
    const removed = items.slice(removedBefore).flatMap((i) => (i.kind === 'notification' && i.value.removed ? [logKey(i.value)] : []));
    // Blocks 5 and 6, two logs each: delivered, then undone by the reorg.
    expect(undone).toHaveLength(4);
    expect(removed.sort()).toEqual([...undone].sort());
    // What the caller holds: every log delivered, less those delivered again as removed.
    const held = new Map<string, EvmLog>();
    for (const log of logs) {
      if (log.removed) held.delete(logKey(log));
      else held.set(logKey(log), log);
    }
    const chain = (await call('eth_getLogs', [{ fromBlock: '0x2', toBlock: 'latest', address: EMITTER }])) as { blockHash: string; logIndex: string; transactionHash: string }[];
    expect([...held.values()].map((log) => [logKey(log), log.transactionHash])).toEqual(chain.map((log) => [logKey(log), log.transactionHash]));
    expect(items.filter((i) => i.kind === 'notification' && i.backfilled && !i.value.removed).length).toBeGreaterThanOrEqual(8);
    await sub.close();
  }, 40_000);
});
