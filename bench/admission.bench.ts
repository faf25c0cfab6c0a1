/**
 * Admission cost: acquire + release through the pool at 10 / 100 / 1 000 endpoints in one
 * tier, and the raw token bucket for comparison. Run via `npm run bench`.
 */
import { TokenBucket } from '../src/admission/token-bucket.js';
import { HttpTransportPool } from '../src/pool/http-transport-pool.js';
import { createSeededRandom } from '../src/clock.js';
import type { HttpExecutor } from '../src/http/executor.js';
import { formatNs, micro, table, type MicroResult } from './util.js';

const idleExecutor: HttpExecutor = {
  execute: () => Promise.reject(new Error('not used')),
  close: () => Promise.resolve(),
};

export async function benchAdmission(): Promise<{ results: MicroResult[]; markdown: string }> {
  const results: MicroResult[] = [];
  let now = 0;
  const bucket = new TokenBucket(1e12, 1e12, 0);
  results.push(await micro('raw TokenBucket.tryTake', () => bucket.tryTake(now++)));

  for (const size of [10, 100, 1_000]) {
    const endpoints = Array.from({ length: size }, (_, i) => ({
      id: `e${i}`,
      url: `https://rpc${i % 50}.operator${i % 50}.example/`,
      operator: `op${i % 50}`,
      requestsPerSecond: 1e9,
      maxConcurrentRequests: 64,
    }));
    const pool = new HttpTransportPool({ endpoints, executor: idleExecutor, random: createSeededRandom(1), concentration: { maxOperatorShare: 0 } });
    results.push(
      await micro(`pool acquire+release, ${size} endpoints, 1 tier`, async () => {
        const permit = await pool.acquireForRequestKind('read');
        permit.release();
      }),
    );
    await pool.close();
  }
  const markdown = table(
    ['case', 'time/op', 'bytes/op'],
    results.map((r) => [r.name, formatNs(r.nsPerOp), r.bytesPerOp === undefined ? 'n/a' : r.bytesPerOp.toFixed(0)]),
  );
  return { results, markdown };
}
