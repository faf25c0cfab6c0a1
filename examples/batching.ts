// An application imports these from 'sturdy-rpc' and 'sturdy-rpc/testing'.
/**
 * Fewer requests for the same work: coalescing, wire batches and micro-batching.
 *
 * - 10 tasks read the same balance at once: coalescing (on by default) makes that one
 *   request at the node, and every task gets its own copy of the exact u64.
 * - `pool.batch` sends 3 calls as one JSON-RPC batch and gives each its own result.
 * - With `batch: { waitMs: 0 }`, reads made in the same tick go as one batch by themselves.
 *
 * Runs offline: a fixture server on 127.0.0.1 acts as the node (it logs one entry per call,
 * batch items included). To use a real node, set SOLANA_RPC_URL.
 *
 *   node --import tsx examples/batching.ts
 */
import { fileURLToPath } from 'node:url';
import { HttpTransportPool, type EndpointConfig } from '../src/index.js';
import { createFixtureServer, loadFixtures, type FixtureServer } from '../src/testing/index.js';

const address = '83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a';
let server: FixtureServer | undefined;

async function endpoint(): Promise<EndpointConfig> {
  const rpcUrl = process.env.SOLANA_RPC_URL;
  if (rpcUrl) return { id: 'solana-rpc', url: rpcUrl, maxBatchSize: 10 };
  const dir = fileURLToPath(new URL('../fixtures/', import.meta.url));
  const fixtures = loadFixtures([`${dir}solana-getBalance-u64-max.json`, `${dir}solana-getHealth-ok.json`, `${dir}solana-getVersion.json`]);
  // A little latency, so the 10 reads are in flight together as they would be against a real node.
  server = await createFixtureServer({ fixtures, behaviours: [{ type: 'latency', ms: 50 }] });
  return { id: 'node', url: server.url, maxBatchSize: 10 };
}

/** HTTP requests the pool sent: one `attempt` event each (a batch is one request). */
function countRequests(pool: HttpTransportPool): () => number {
  let requests = 0;
  pool.on('attempt', () => requests++);
  return () => requests;
}

const node = await endpoint();
const pool = new HttpTransportPool({ endpoints: [node], chain: 'solana' });
const batching = new HttpTransportPool({ endpoints: [node], chain: 'solana', batch: { waitMs: 0 } });
try {
  const sent = countRequests(pool);
  const balances = (await Promise.all(Array.from({ length: 10 }, () => pool.request('getBalance', [address])))) as { value: bigint }[];
  console.log(`10 identical getBalance calls: ${sent()} request(s); every task got ${balances[0]!.value} lamports`);

  const before = sent();
  const results = await pool.batch([{ method: 'getBalance', params: [address] }, { method: 'getHealth' }, { method: 'getVersion' }]);
  console.log(`pool.batch of 3: ${sent() - before} request(s); ${results.map((r) => (r.ok ? 'ok' : r.error.code)).join(', ')}`);

  const batched = countRequests(batching);
  await Promise.all([batching.request('getBalance', [address]), batching.request('getHealth', []), batching.request('getVersion', [])]);
  console.log(`micro-batching, 3 reads in one tick: ${batched()} request(s)`);
} finally {
  await Promise.all([pool.close(), batching.close()]);
  await server?.close();
}
