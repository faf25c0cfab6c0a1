/**
 * One measured run of one everyday client, in a fresh process (everyday.bench.ts): an
 * application holds one pool, and pools of twelve shapes in one process would make every
 * stage's call sites polymorphic (and undici's, which the raw limit shares) — a cost of the
 * bench, not of the pool; a fresh process also starts with no connections left idle by the
 * other clients' turns. Warms up (JIT, connections, the pool's latency estimates), runs at 64
 * in flight, then — for the sequential rows — at 1 in flight, and prints both results as JSON.
 *   argv: client name, the server's URLs (JSON), warm-up ms, 64-in-flight ms, 1-in-flight ms (0: none)
 */
import { createEverydayClient, runLoad, type LoadResult } from './everyday-clients.js';

export interface EverydayRunResult {
  readonly concurrent: LoadResult;
  readonly sequential: LoadResult | undefined;
}

const [name, urlsJson, warmupMs, concurrentMs, sequentialMs] = process.argv.slice(2);
const { client, close } = createEverydayClient(JSON.parse(urlsJson!) as string[], name!);
try {
  await runLoad(client, 64, Number(warmupMs));
  const concurrent = await runLoad(client, 64, Number(concurrentMs));
  let sequential: LoadResult | undefined;
  if (Number(sequentialMs) > 0) {
    await runLoad(client, 1, Math.min(Number(warmupMs), 50));
    sequential = await runLoad(client, 1, Number(sequentialMs));
  }
  process.stdout.write(JSON.stringify({ concurrent, sequential } satisfies EverydayRunResult));
} finally {
  await close();
}
