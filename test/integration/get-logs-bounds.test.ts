import { afterEach, describe, expect, it } from 'vitest';
import { createEvmClient } from '../../src/evm/index.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { createFakeClock, type FakeClock } from '../../src/testing/index.js';
import { closeAllServers, sendBody, startRpcServer } from '../helpers/loopback.js';

/**
 * `evm.getLogs` against nodes whose limits the range cannot fit, through the real pool and
 * sockets: the call ends with a typed error after a bounded number of requests (counted at
 * the node), its parts are cut lazily (a range of 2^40 blocks is never a list in memory), and
 * its deadline fires.
 */

type Refusal = (from: bigint, to: bigint) => { code: number; message: string } | undefined;

/** A node answering eth_blockNumber with `head` and eth_getLogs with no logs, refusing as `refuse` says. */
async function logNode(refuse: Refusal, head = 1_000n, onLogs?: (count: number) => Promise<void> | void) {
  const ranges: { from: bigint; to: bigint }[] = [];
  const server = await startRpcServer(async (request, { res }) => {
    const id = request.id;
    if (request.method === 'eth_blockNumber') return sendBody(res, JSON.stringify({ jsonrpc: '2.0', id, result: `0x${head.toString(16)}` }));
    const [filter] = request.params as [{ fromBlock: string; toBlock: string }];
    const at = (tag: string) => (tag === 'latest' ? head : tag === 'earliest' ? 0n : BigInt(tag));
    const range = { from: at(filter.fromBlock), to: at(filter.toBlock) };
    ranges.push(range);
    await onLogs?.(ranges.length);
    const error = refuse(range.from, range.to);
    sendBody(res, JSON.stringify(error === undefined ? { jsonrpc: '2.0', id, result: [] } : { jsonrpc: '2.0', id, error }));
  });
  return { server, ranges };
}

const pools: HttpTransportPool[] = [];
function clientOf(url: string, clock: FakeClock = createFakeClock()) {
  const pool = new HttpTransportPool({ endpoints: [{ id: 'node', url }], chain: 'evm', retry: { maxRetries: 0 }, clock });
  pools.push(pool);
  return createEvmClient(pool, { clock });
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  await closeAllServers();
});

const above10: Refusal = (from, to) => (to - from + 1n > 10n ? { code: -32000, message: 'exceed maximum block range: 10' } : undefined);
const everyRange: Refusal = () => ({ code: -32005, message: 'query returned more than 10000 results' });

describe('getLogs over a range the provider’s limit cannot fit', () => {
  it('fails with LOG_RANGE_LIMIT after the one refused request when 2^40 blocks would need 1.1e11 parts of 10', async () => {
    const node = await logNode(above10);
    const error: unknown = await clientOf(node.server.url)
      .getLogs({ fromBlock: 0n, toBlock: 2n ** 40n }, {}, { timeoutMs: 3_000 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'LOG_RANGE_LIMIT',
      method: 'eth_getLogs',
      context: { reason: 'max-parts', fromBlock: '0', toBlock: String(2n ** 40n), maxParts: 10_000, maxBlockRange: '10' },
    });
    expect(node.ranges).toEqual([{ from: 0n, to: 2n ** 40n }]);
  });

  it('does the same for fromBlock 0 to latest on a node at block 2^48: one refusal, one eth_blockNumber, nothing more', async () => {
    const node = await logNode(above10, 2n ** 48n);
    await expect(clientOf(node.server.url).getLogs({ fromBlock: 0n, toBlock: 'latest' }, {}, { timeoutMs: 3_000 })).rejects.toMatchObject({
      code: 'LOG_RANGE_LIMIT',
      context: { reason: 'max-parts', toBlock: String(2n ** 48n) },
    });
    expect(node.server.received.map((r) => r.method)).toEqual(['eth_getLogs', 'eth_blockNumber']);
  });

  it('sends nothing when maxBlockRange already says the range needs more than maxParts parts', async () => {
    const node = await logNode(above10);
    await expect(clientOf(node.server.url).getLogs({ fromBlock: 0n, toBlock: 2n ** 40n }, { maxBlockRange: 10 })).rejects.toMatchObject({
      code: 'LOG_RANGE_LIMIT',
      context: { reason: 'max-parts', maxBlockRange: '10' },
    });
    expect(node.server.received).toHaveLength(0);
  });

  it('counts refused requests against maxParts: 3 000 blocks at a limit of 1 000 take 4 requests', async () => {
    const node = await logNode((from, to) => (to - from + 1n > 1_000n ? { code: -32000, message: 'exceed maximum block range: 1000' } : undefined));
    await expect(clientOf(node.server.url).getLogs({ fromBlock: 0n, toBlock: 2_999n }, { maxParts: 3 })).rejects.toMatchObject({ code: 'LOG_RANGE_LIMIT' });
    expect(node.ranges).toHaveLength(1);
    await expect(clientOf(node.server.url).getLogs({ fromBlock: 0n, toBlock: 2_999n }, { maxParts: 4 })).resolves.toEqual([]);
    expect(node.ranges).toHaveLength(5);
  });

  it('cuts parts lazily: with no bound on parts a 2^40-block range is asked part by part until its deadline fires', async () => {
    const clock = createFakeClock();
    // The node moves the caller's clock past the deadline at its 40th request.
    const node = await logNode(above10, 1_000n, async (count) => {
      if (count === 40) await clock.advance(3_000);
    });
    const error: unknown = await clientOf(node.server.url, clock)
      .getLogs({ fromBlock: 0n, toBlock: 2n ** 40n }, { maxParts: Number.MAX_SAFE_INTEGER }, { timeoutMs: 3_000 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'DEADLINE_EXCEEDED', context: { timeoutMs: 3_000 }, method: 'eth_getLogs' });
    // The refused whole, then parts of 10 in chain order; at most the parts already in flight after the 40th.
    expect(node.ranges[1]).toEqual({ from: 0n, to: 9n });
    expect(node.ranges.length).toBeGreaterThanOrEqual(40);
    expect(node.ranges.length).toBeLessThanOrEqual(44);
  });
});

describe('getLogs against a node refusing every range for its result count', () => {
  it.each([
    [1_024n, 'single-block', 44],
    // At a span of 1 the blocks left need more than maxParts (10 000) requests: that ends it first.
    [16_384n, 'max-parts', 60],
  ])('narrows the span with each refusal and ends the call: %i blocks, %s, at most %i requests', async (blocks, reason, most) => {
    const node = await logNode(everyRange);
    const error: unknown = await clientOf(node.server.url)
      .getLogs({ fromBlock: 0n, toBlock: blocks - 1n })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'LOG_RANGE_LIMIT', context: { reason } });
    if (reason === 'single-block') expect(error).toMatchObject({ cause: { code: 'RPC_ERROR', rpcCode: -32005 } });
    // Measured: 37 and 49 requests (before: 897 and 14 337), the parts in flight at the end included.
    await pools[0]!.close();
    expect(node.ranges.length).toBeLessThanOrEqual(most);
  });
});
