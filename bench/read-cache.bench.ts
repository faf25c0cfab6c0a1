/**
 * The read cache (issue 29): the CPU of a hit, what a miss adds to the everyday path, and
 * node requests in an indexer-like replay, all in process against an in-memory node (no
 * sockets: the per-call baseline is the pool's own CPU, so the miss's share is an upper
 * bound of what it adds over a real network). Run: `npx tsc -p tsconfig.bench.json &&
 * node .bench-build/bench/read-cache.bench.js [seconds per A/B round] [rounds]`.
 */
import { cacheStage } from '../src/pipeline/cache.js';
import { ReadCache } from '../src/parts/read-cache.js';
import { resolveCacheSettings } from '../src/cache/cache-settings.js';
import { createRequestBody } from '../src/jsonrpc/envelope.js';
import { PoolEvents } from '../src/api/events.js';
import { systemClock } from '../src/clock.js';
import type { HttpExecutor } from '../src/http/executor.js';
import type { HttpTransportPoolOptions } from '../src/config/types.js';
import type { CallContext } from '../src/pipeline/call-context.js';
import { HttpTransportPool } from '../src/pool/http-transport-pool.js';
import { formatNs, micro, table } from './util.js';

const hex = (n: number) => `0x${n.toString(16)}`;
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const FINALIZED = 100_000;
const log = (n: number) => ({ address: hash(1).slice(0, 42), topics: [hash(2)], data: '0x', blockNumber: hex(n), blockHash: hash(n), transactionHash: hash(n + 1), transactionIndex: '0x0', logIndex: '0x0', removed: false });
const receipt = (n: number) => ({ blockNumber: hex(n), blockHash: hash(n), transactionHash: hash(n + 1), status: '0x1', gasUsed: '0x5208', logs: [log(n)] });

/** An in-memory EVM node: finalized head 100 000, the tip 64 above, a receipt per block. */
function memoryNode(): HttpExecutor & { requests: number } {
  const node = {
    requests: 0,
    async execute(request: { body: string }) {
      node.requests++;
      const { id, method, params } = JSON.parse(request.body) as { id: number; method: string; params: unknown[] };
      const ref = params[0];
      const n = typeof ref === 'string' && ref.startsWith('0x') ? Number.parseInt(ref, 16) : ref === 'finalized' ? FINALIZED : FINALIZED + 64;
      const result =
        method === 'eth_getBlockByNumber'
          ? { number: hex(n), hash: hash(n), parentHash: hash(n - 1), transactions: [] }
          : method === 'eth_getBlockReceipts'
            ? [receipt(n)]
            : method === 'eth_getLogs'
              ? receipt(Number.parseInt((params[0] as { toBlock: string }).toBlock, 16)).logs
              : '0x1bc16d674ec80000';
      return { type: 'response' as const, status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id, result }) };
    },
    async close() {},
  };
  return node;
}

const pool = (options: Partial<HttpTransportPoolOptions>, executor: HttpExecutor) => new HttpTransportPool({ endpoints: [{ id: 'a', url: 'https://a.example.com/' }], chain: 'evm', executor, ...options });

async function cpuPerCall(call: () => Promise<unknown>, ms: number): Promise<number> {
  const end = performance.now() + ms;
  const start = process.cpuUsage();
  let calls = 0;
  while (performance.now() < end) {
    for (let i = 0; i < 200; i++) await call();
    calls += 200;
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls;
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 1.5);
  const rounds = Number(process.argv[3] ?? 3);

  // 1. A hit: the stage alone (a call already classified), and a whole pool.request.
  const cache = new ReadCache(resolveCacheSettings({})!, { probeFinality: false, chainVerified: true }, systemClock, new PoolEvents(), {
    askBlock: () => Promise.resolve(null),
    askOtherOperator: () => undefined,
  });
  const stage = cacheStage(cache)(() => Promise.resolve(receipt(5)));
  const call = (method: string, params: unknown[]) => ({ method, params, retryClass: 'idempotent', body: createRequestBody(method, params), answeredBy: 'a' }) as unknown as CallContext;
  const small = call('eth_chainId', []);
  const block = call('eth_getBlockReceipts', [hex(5)]);
  cache.onAnswer(small.body.tail, 'eth_chainId', [], { rule: 'immutable' }, '0x1', 'a');
  cache.onAnswer(block.body.tail, 'eth_getBlockReceipts', [hex(5)], { rule: 'immutable' }, [receipt(5)], 'a');
  const hits = [await micro('hit, stage only: eth_chainId', () => stage(small, {})), await micro('hit, stage only: a receipts array (~300 B)', () => stage(block, {}))];
  const node = memoryNode();
  const warm = pool({}, node);
  await warm.request('eth_getBlockByNumber', ['finalized', false]);
  for (let i = 0; i < 3; i++) await warm.request('eth_getBlockReceipts', [hex(5)]);
  const before = node.requests;
  hits.push(await micro('hit, pool.request: eth_getBlockReceipts (finalized)', () => warm.request('eth_getBlockReceipts', [hex(5)]), 50_000));
  const hitRequests = node.requests - before;
  await warm.close();

  // 2. A miss on the everyday path: distinct eth_getBalance at latest (never kept), cache on (default) vs off.
  const ab: { on: number[]; off: number[] } = { on: [], off: [] };
  let address = 0;
  const balance = (p: HttpTransportPool) => () => p.request('eth_getBalance', [`0x${(address++).toString(16).padStart(40, '0')}`, 'latest']);
  for (let r = 0; r < rounds; r++) {
    for (const side of r % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
      const p = pool(side === 'on' ? {} : { cache: false }, memoryNode());
      await cpuPerCall(balance(p), 200);
      ab[side].push(await cpuPerCall(balance(p), seconds * 1000));
      await p.close();
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ratios = ab.on.map((on, i) => on / ab.off[i]!);

  // 3. An indexer-like replay: follow the tip (64 new blocks) while re-reading the last 1 000 finalized blocks' receipts and logs 3 times.
  const replay = async (options: Partial<HttpTransportPoolOptions>) => {
    const n = memoryNode();
    const p = pool(options, n);
    await p.request('eth_getBlockByNumber', ['finalized', false]);
    for (let pass = 0; pass < 3; pass++) {
      for (let b = FINALIZED - 999; b <= FINALIZED; b++) {
        await p.request('eth_getBlockReceipts', [hex(b)]);
        await p.request('eth_getLogs', [{ fromBlock: hex(b), toBlock: hex(b) }]);
      }
      for (let t = 0; t < 64; t++) await p.request('eth_getBlockByNumber', ['latest', false]);
    }
    await p.close();
    return n.requests;
  };
  const withCache = await replay({});
  const without = await replay({ cache: false });

  console.log(table(['case', 'time per op'], hits.map((h) => [h.name, formatNs(h.nsPerOp)])));
  console.log(`node requests during the pool.request hits: ${hitRequests}`);
  console.log(
    table(
      ['everyday miss (eth_getBalance at latest)', 'client CPU µs/call'],
      [
        ['cache on (default)', med(ab.on).toFixed(2)],
        ['cache: false', med(ab.off).toFixed(2)],
        ['on / off (median of rounds; min–max)', `${med(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)})`],
      ],
    ),
  );
  console.log(table(['indexer replay (6 000 reads + 192 tips)', 'node requests'], [['cache on (default)', withCache], ['cache: false', without]]));
}

await main();
