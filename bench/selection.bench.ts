/**
 * Selection cost per admission through the pool (DESIGN §6: admission + selection + cap +
 * reputation ≤ 5 µs per call at 1 000 endpoints): `acquireForRequestKind('read')` +
 * `recordSuccess(1)` + `release()` — candidate filter, band order, operator cap, rotation,
 * token bucket, permit, and the reputation/breaker record of the outcome. Run via
 * `npm run bench` (or `npx tsx bench/selection.bench.ts` for this table alone).
 *
 * - fast path: endpoints spread evenly over up to 50 operators, cap 0.65 → no reshape
 *   (plain rotation).
 * - reshaping path: one operator owns half the endpoints, cap 0.3 → water-filled weights and
 *   the weighted rotation.
 * Each with reputation on (defaults) and `reputation: false`.
 */
import { pathToFileURL } from 'node:url';
import { createSeededRandom } from '../src/clock.js';
import type { EndpointConfig } from '../src/config/types.js';
import type { HttpExecutor } from '../src/http/executor.js';
import { HttpTransportPool } from '../src/pool/http-transport-pool.js';
import { formatNs, micro, table, type MicroResult } from './util.js';

const OPERATORS = 50;
const SIZES = [10, 100, 1_000] as const;
const TARGET_NS = 5_000;

/** Admission never reaches the executor in this benchmark. */
const idleExecutor: HttpExecutor = {
  execute: () => Promise.reject(new Error('the selection benchmark sends nothing')),
  close: () => Promise.resolve(),
};

type Path = 'fast' | 'reshaping';

export interface SelectionResult extends MicroResult {
  readonly path: Path;
  readonly endpoints: number;
  readonly operators: number;
  readonly reputation: boolean;
}

function endpointsFor(size: number, path: Path): EndpointConfig[] {
  const operators = Math.min(OPERATORS, size);
  return Array.from({ length: size }, (_, i) => ({
    id: `e${i}`,
    url: `https://rpc${i}.node.example/`,
    // Reshaping path: op0 runs the first half of the tier (plus its round-robin slots).
    operator: path === 'reshaping' && i < size / 2 ? 'op0' : `op${i % operators}`,
    kinds: ['read'],
    requestsPerSecond: 1e9,
    maxConcurrentRequests: 64,
  }));
}

/** Builds the pool and checks it is on the intended path (a reshape event exactly when reshaping). */
async function poolFor(size: number, path: Path, reputation: boolean): Promise<HttpTransportPool> {
  const pool = new HttpTransportPool({
    endpoints: endpointsFor(size, path),
    executor: idleExecutor,
    random: createSeededRandom(1),
    concentration: { maxOperatorShare: path === 'reshaping' ? 0.3 : 0.65 },
    ...(reputation ? {} : { reputation: false as const }),
  });
  let reshapes = 0;
  pool.on('reshape', () => reshapes++);
  await Promise.resolve();
  if (reshapes !== (path === 'reshaping' ? 1 : 0)) throw new Error(`bench pool (${path}, ${size}) is not on the intended path`);
  return pool;
}

export async function benchSelection(): Promise<{ results: SelectionResult[]; markdown: string }> {
  const results: SelectionResult[] = [];
  for (const reputation of [true, false]) {
    for (const path of ['fast', 'reshaping'] as const) {
      for (const size of SIZES) {
        const pool = await poolFor(size, path, reputation);
        const operators = new Set(pool.snapshot().endpoints.map((e) => e.operator)).size;
        const name = `${path}, ${size} endpoints / ${operators} operators, reputation ${reputation ? 'on' : 'off'}`;
        const result = await micro(name, async () => {
          const permit = await pool.acquireForRequestKind('read');
          permit.recordSuccess(1);
          permit.release();
        });
        results.push({ ...result, path, endpoints: size, operators, reputation });
        await pool.close();
      }
    }
  }
  const markdown = table(
    ['path', 'endpoints', 'operators', 'reputation', 'time/admission', 'bytes/op', `≤ ${formatNs(TARGET_NS)}`],
    results.map((r) => [
      r.path,
      r.endpoints,
      r.operators,
      r.reputation ? 'on' : 'off',
      formatNs(r.nsPerOp),
      r.bytesPerOp === undefined ? 'n/a' : r.bytesPerOp.toFixed(0),
      r.nsPerOp <= TARGET_NS ? 'yes' : 'NO',
    ]),
  );
  return { results, markdown };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log((await benchSelection()).markdown);
}
