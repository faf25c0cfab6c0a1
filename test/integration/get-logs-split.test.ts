import { afterEach, describe, expect, it } from 'vitest';
import { createEvmClient, type EvmLog } from '../../src/evm/index.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { systemClock, type Clock } from '../../src/clock.js';
import { createFakeClock } from '../../src/testing/index.js';
import { closeAllServers, sendBody, startRpcServer, type RpcServer } from '../helpers/loopback.js';

/**
 * `evm.getLogs` over a wide range against a fixture node with a provider's limits, through
 * the real pool and sockets: the node refuses what a provider would refuse, and the test
 * checks what the caller gets (every log once, in order) and what the node received.
 */

const HEAD = 2_999;
const hex = (n: number | bigint) => `0x${n.toString(16)}`;
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
/** The node's chain: a log in every 7th block, three in every 50th. */
function logsIn(from: number, to: number) {
  const logs: unknown[] = [];
  for (let block = from; block <= to; block++) {
    const count = block % 50 === 0 ? 3 : block % 7 === 0 ? 1 : 0;
    for (let i = 0; i < count; i++) {
      logs.push({
        address: '0x00000000000000000000000000000000000000aa',
        topics: [hash(0xe1)],
        data: hex(block * 10 + i).length % 2 === 0 ? hex(block * 10 + i) : `0x0${hex(block * 10 + i).slice(2)}`,
        blockNumber: hex(block),
        blockHash: hash(block),
        transactionHash: hash(1_000_000 + block),
        transactionIndex: '0x0',
        logIndex: hex(i),
        removed: false,
      });
    }
  }
  return logs;
}
const ALL = logsIn(0, HEAD).length;

type Refusal = (from: number, to: number) => { status?: number; error: { code: number; message: string; data?: unknown } } | undefined;

interface Received {
  from: number;
  to: number;
}

/** A node that serves eth_getLogs and eth_blockNumber, refusing as `refuse` says. */
async function logNode(refuse: Refusal, onLogs?: (r: Received, index: number) => 'hang' | number | undefined) {
  const ranges: Received[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = await startRpcServer(async (request, { res }) => {
    const id = request.id;
    if (request.method === 'eth_blockNumber') return sendBody(res, JSON.stringify({ jsonrpc: '2.0', id, result: hex(HEAD) }));
    const [filter] = request.params as [{ fromBlock: string; toBlock: string }];
    const from = filter.fromBlock === 'earliest' ? 0 : filter.fromBlock === 'latest' ? HEAD : Number(filter.fromBlock);
    const to = filter.toBlock === 'latest' ? HEAD : Number(filter.toBlock);
    const received = { from, to };
    const index = ranges.push(received) - 1;
    const refusal = refuse(from, to);
    if (refusal !== undefined) return sendBody(res, JSON.stringify({ jsonrpc: '2.0', id, error: refusal.error }), refusal.status ?? 200);
    const special = onLogs?.(received, index);
    if (special === 'hang') return;
    if (typeof special === 'number') return sendBody(res, 'upstream down', special);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    // Answer on a later turn so concurrent parts overlap at the node.
    await new Promise((resolve) => setImmediate(resolve));
    inFlight--;
    sendBody(res, JSON.stringify({ jsonrpc: '2.0', id, result: logsIn(from, to) }));
  });
  return { server, ranges, maxInFlight: () => maxInFlight };
}

const pools: HttpTransportPool[] = [];
function clientOf(server: RpcServer, maxRetries = 0, clock: Clock = createFakeClock()) {
  const pool = new HttpTransportPool({ endpoints: [{ id: 'node', url: server.url }], chain: 'evm', retry: { maxRetries, initialBackoffMs: 1, maxBackoffMs: 1 }, clock });
  pools.push(pool);
  return { evm: createEvmClient(pool, { clock }), pool, clock };
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  await closeAllServers();
});

const expectComplete = (logs: readonly EvmLog[]) => {
  expect(logs).toHaveLength(ALL);
  const keys = logs.map((l) => `${l.blockNumber}:${l.logIndex}`);
  expect(new Set(keys).size).toBe(ALL);
  for (let i = 1; i < logs.length; i++) {
    const [a, b] = [logs[i - 1]!, logs[i]!];
    expect(a.blockNumber! < b.blockNumber! || (a.blockNumber === b.blockNumber && a.logIndex! < b.logIndex!)).toBe(true);
  }
  expect(logs[0]?.blockNumber).toBe(0n);
  expect(logs.at(-1)?.blockNumber).toBe(2_996n);
};

const above1000: Refusal = (from, to) => (to - from + 1 > 1_000 ? { error: { code: -32000, message: 'exceed maximum block range: 1000' } } : undefined);

describe('getLogs against a node refusing ranges above 1 000 blocks', () => {
  it('splits at the stated limit: one refusal, then three parts, every log once and in order', async () => {
    const node = await logNode(above1000);
    const logs = await clientOf(node.server).evm.getLogs({ fromBlock: 0n, toBlock: BigInt(HEAD) });
    expectComplete(logs);
    expect(node.ranges).toEqual([
      { from: 0, to: 2_999 },
      { from: 0, to: 999 },
      { from: 1_000, to: 1_999 },
      { from: 2_000, to: 2_999 },
    ]);
  });

  it('with the pool’s default retries the refused range is not asked again of the node that refused it, and costs no backoff', async () => {
    const node = await logNode(above1000);
    const clock = createFakeClock();
    const pool = new HttpTransportPool({ endpoints: [{ id: 'node', url: node.server.url }], chain: 'evm', clock });
    pools.push(pool);
    // A fake clock that never moves: any backoff before a retry would hang this call.
    const logs = await createEvmClient(pool, { clock }).getLogs({ fromBlock: 0n, toBlock: BigInt(HEAD) });
    expectComplete(logs);
    expect(node.ranges.filter((r) => r.to - r.from + 1 > 1_000)).toEqual([{ from: 0, to: 2_999 }]);
  });

  it('asks another endpoint before splitting: one with a higher limit serves the whole range', async () => {
    const narrow = await logNode(above1000);
    const wide = await logNode(() => undefined);
    const clock = createFakeClock();
    const pool = new HttpTransportPool({
      endpoints: [
        { id: 'narrow', url: narrow.server.url, tier: 0 },
        { id: 'wide', url: wide.server.url, tier: 1 },
      ],
      chain: 'evm',
      clock,
    });
    pools.push(pool);
    expectComplete(await createEvmClient(pool, { clock }).getLogs({ fromBlock: 0n, toBlock: BigInt(HEAD) }));
    expect(narrow.ranges).toEqual([{ from: 0, to: 2_999 }]);
    expect(wide.ranges).toEqual([{ from: 0, to: 2_999 }]);
  });

  it('resolves tags to numbers only after a refusal, and does not ask the refused range again', async () => {
    const node = await logNode(above1000);
    const logs = await clientOf(node.server).evm.getLogs({ fromBlock: 'earliest', toBlock: 'latest' });
    expectComplete(logs);
    expect(node.server.received.map((r) => r.method)).toEqual(['eth_getLogs', 'eth_blockNumber', 'eth_getLogs', 'eth_getLogs', 'eth_getLogs']);
    expect(node.ranges.slice(1)).toEqual([
      { from: 0, to: 999 },
      { from: 1_000, to: 1_999 },
      { from: 2_000, to: 2_999 },
    ]);
  });

  it('with maxBlockRange it splits before asking, and never exceeds maxConcurrentParts at the node', async () => {
    const node = await logNode(above1000);
    const logs = await clientOf(node.server).evm.getLogs({ fromBlock: 0n, toBlock: BigInt(HEAD) }, { maxBlockRange: 250, maxConcurrentParts: 2 });
    expectComplete(logs);
    expect(node.ranges).toHaveLength(12);
    expect(node.ranges.every((r) => r.to - r.from + 1 <= 250)).toBe(true);
    expect(node.maxInFlight()).toBe(2);
  });

  it('follows the provider’s suggested ranges (Alchemy wording, QuickNode-style 413)', async () => {
    // Refuses anything above 600 blocks, suggesting the first 600 of what was asked.
    const node = await logNode((from, to) =>
      to - from + 1 > 600
        ? { status: 413, error: { code: -32602, message: `You can make eth_getLogs requests with up to a 600 block range. Based on your parameters, this block range should work: [${hex(from)}, ${hex(from + 599)}]` } }
        : undefined,
    );
    const logs = await clientOf(node.server).evm.getLogs({ fromBlock: 0n, toBlock: BigInt(HEAD) });
    expectComplete(logs);
    // Parts run concurrently: compare the set of ranges asked, in chain order.
    expect([...node.ranges].sort((a, b) => a.from - b.from || b.to - a.to)).toEqual([
      { from: 0, to: 2_999 },
      { from: 0, to: 599 },
      { from: 600, to: 1_199 },
      { from: 1_200, to: 1_799 },
      { from: 1_800, to: 2_399 },
      { from: 2_400, to: 2_999 },
    ]);
  });

  it('remembers a block-range refusal: a later part as wide as a refused one is cut before it is asked', async () => {
    const node = await logNode((from, to) => (to - from + 1 > 1_000 ? { error: { code: -32600, message: 'block range is too wide' } } : undefined));
    const logs = await clientOf(node.server).evm.getLogs({ fromBlock: 0n, toBlock: BigInt(HEAD) }, { maxConcurrentParts: 1 });
    expectComplete(logs);
    // Halves of 1 500 are refused once: [1 500, 2 999] is never asked, it is cut to 750 like [0, 1 499].
    expect(node.ranges).toEqual([
      { from: 0, to: 2_999 },
      { from: 0, to: 1_499 },
      { from: 0, to: 749 },
      { from: 750, to: 1_499 },
      { from: 1_500, to: 2_249 },
      { from: 2_250, to: 2_999 },
    ]);
  });

  it('bisects a result-count limit (Infura -32005) until every part is under it', async () => {
    const node = await logNode((from, to) => (logsIn(from, to).length > 150 ? { error: { code: -32005, message: 'query returned more than 150 results' } } : undefined));
    const logs = await clientOf(node.server).evm.getLogs({ fromBlock: 0n, toBlock: BigInt(HEAD) });
    expectComplete(logs);
    const answered = node.ranges.filter((r) => logsIn(r.from, r.to).length <= 150);
    expect(answered.reduce((n, r) => n + r.to - r.from + 1, 0)).toBe(HEAD + 1);
  });

  it('gives each part its own retries: a part that failed once with 503 is asked again, the others once', async () => {
    let failedOnce = false;
    const node = await logNode(above1000, (r) => {
      if (r.from !== 1_000 || failedOnce) return undefined;
      failedOnce = true;
      return 503;
    });
    // A 1 ms backoff on the real clock: the behaviour under test is which parts are asked again, not when.
    const logs = await clientOf(node.server, 1, systemClock).evm.getLogs({ fromBlock: 0n, toBlock: BigInt(HEAD) }, { maxConcurrentParts: 1 });
    expectComplete(logs);
    expect(node.ranges.filter((r) => r.from === 1_000)).toHaveLength(2);
    expect(node.ranges.filter((r) => r.from === 2_000)).toHaveLength(1);
  });

  it('fails with LOG_RANGE_LIMIT, the refusal as its cause, when one block alone is refused (nothing narrower exists)', async () => {
    const node = await logNode(() => ({ error: { code: -32005, message: 'query returned more than 10000 results' } }));
    await expect(clientOf(node.server).evm.getLogs({ fromBlock: 5n, toBlock: 6n })).rejects.toMatchObject({
      code: 'LOG_RANGE_LIMIT',
      context: { reason: 'single-block', fromBlock: '5', toBlock: '5' },
      cause: { code: 'RPC_ERROR', rpcCode: -32005 },
    });
    expect(node.ranges.slice(0, 2)).toEqual([
      { from: 5, to: 6 },
      { from: 5, to: 5 },
    ]);
    expect(node.ranges.length).toBeLessThanOrEqual(3);
  });

  it('never shows a key from the endpoint URL, even when the node echoes it in its refusal', async () => {
    const node = await logNode(() => ({ error: { code: -32005, message: 'query returned more than 10000 results for http://127.0.0.1/v2/k3yInPath?api_key=k3yInQuery' } }));
    const url = `${node.server.url.replace('127.0.0.1', 'user:pa55word@127.0.0.1')}/v2/k3yInPath?api_key=k3yInQuery`;
    const pool = new HttpTransportPool({ endpoints: [{ id: 'node', url }], chain: 'evm', retry: { maxRetries: 0 } });
    pools.push(pool);
    const error: unknown = await createEvmClient(pool).getLogs({ fromBlock: 1n, toBlock: 2n }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'LOG_RANGE_LIMIT', cause: { code: 'RPC_ERROR', rpcCode: -32005 } });
    const shown = JSON.stringify({ error, message: (error as Error).message, cause: (error as Error).cause });
    for (const secret of ['k3yInPath', 'k3yInQuery', 'pa55word']) expect(shown).not.toContain(secret);
    // The splitter still recognised the refusal (it asked both halves) from the redacted text.
    expect(node.ranges.slice(0, 2)).toEqual([
      { from: 1, to: 2 },
      { from: 1, to: 1 },
    ]);
  });

  it('keeps the whole inside one deadline: a hanging part ends the call at timeoutMs and the other parts stop', async () => {
    const node = await logNode(above1000, (r) => (r.from === 1_000 ? 'hang' : undefined));
    const clock = createFakeClock();
    const { evm } = clientOf(node.server, 0, clock);
    const pending = evm.getLogs({ fromBlock: 0n, toBlock: BigInt(HEAD) }, { maxConcurrentParts: 1 }, { timeoutMs: 5_000 });
    const outcome = pending.then(
      () => 'resolved',
      (e: unknown) => e,
    );
    for (let i = 0; i < 400 && !node.ranges.some((r) => r.from === 1_000); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(node.ranges.some((r) => r.from === 1_000)).toBe(true);
    await clock.advance(5_000);
    expect(await outcome).toMatchObject({ code: 'DEADLINE_EXCEEDED', context: { timeoutMs: 5_000 }, method: 'eth_getLogs' });
    // The part after the hanging one was never asked.
    expect(node.ranges.some((r) => r.from === 2_000)).toBe(false);
  });
});
