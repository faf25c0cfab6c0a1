/**
 * One measured pairing of the everyday bench (everyday.bench.ts), in a fresh process: raw
 * undici (the reference) and one other client, side by side. An application holds one pool,
 * and pools of twelve shapes in one process would make every stage's call sites polymorphic
 * (and undici's, which the raw limit shares) — a cost of the bench, not of the pool; a fresh
 * process also starts with no connections left idle by the other clients' turns.
 *
 * The two take turns in short slices, the order flipped every slice, so both see the same
 * machine: on a shared VM the same client's cost per call moved from 23 to 156 µs within
 * minutes, and a ratio of two runs seconds apart read that, not the clients. The warm-up is
 * long enough for the JIT to finish with the pool (a pool measured after 600 ms ran at
 * 0.63–0.75× raw; the same pool after 2 s at 0.84–1.0×): applications run warm.
 *   argv: client names (JSON: the reference, then the client), the server's URLs (JSON),
 *         warm-up ms per client, slice ms at 64 in flight, slices, slice ms at 1 in flight (0: none),
 *         the first version's build directory ('' when not run)
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createEverydayClient, takeTurns, warmUp, type FirstVersionPool, type LoadResult } from './everyday-clients.js';

export interface EverydayRunResult {
  /** Per client (by name), its measured slices at 64 in flight, in the order they ran. */
  readonly concurrent: Record<string, LoadResult[]>;
  /** Per client, its slices at 1 in flight (empty when not asked). */
  readonly sequential: Record<string, LoadResult[]>;
}

const SEQUENTIAL_SLICES = 4;

const [namesJson, urlsJson, warmupMs, sliceMs, slices, sequentialMs, firstVersionDir] = process.argv.slice(2);
const urls = JSON.parse(urlsJson!) as string[];
const firstVersion = firstVersionDir
  ? ((await import(pathToFileURL(join(firstVersionDir, 'dist', 'index.js')).href)) as { HttpTransportPool: FirstVersionPool }).HttpTransportPool
  : undefined;
const made = (JSON.parse(namesJson!) as string[]).map((name) => createEverydayClient(urls, name, firstVersion));
const clients = made.map(({ client }) => client);

try {
  await warmUp(clients, Number(warmupMs));
  const concurrent = await takeTurns(clients, 64, Number(sliceMs), Number(slices));
  let sequential: Record<string, LoadResult[]> = {};
  if (Number(sequentialMs) > 0) {
    await takeTurns(clients, 1, 50, 1);
    sequential = await takeTurns(clients, 1, Number(sequentialMs), SEQUENTIAL_SLICES);
  }
  process.stdout.write(JSON.stringify({ concurrent, sequential } satisfies EverydayRunResult));
} finally {
  await Promise.all(made.map(({ close }) => close()));
}
