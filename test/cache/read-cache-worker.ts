/**
 * One process of the shared read cache test (`fleet-read-cache.test.ts`), forked with tsx: its
 * own ioredis client, fleet member and pool (Solana, one endpoint whose URL and header carry
 * secrets), reading `getBlock` at `finalized` from the parent's loopback node on command.
 */
import { Redis } from 'ioredis';
import { createRedisFleet } from '../../src/fleet/index.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { isTransportError } from '../../src/errors/transport-error.js';

export type ReadWorkerCommand =
  | { readonly type: 'read'; readonly id: number; readonly slots: readonly number[]; readonly parallel: boolean }
  | { readonly type: 'exit' };

export interface ReadWorkerResult {
  readonly type: 'done';
  readonly id: number;
  /** The distinct answers, as JSON. */
  readonly answers: readonly string[];
  readonly latenciesMs: readonly number[];
  readonly failures: readonly string[];
  readonly sharedHits: number;
}

export type ReadWorkerMessage = { readonly type: 'ready' } | ReadWorkerResult;

const [redisUrl, namespace, worker, nodeUrl, commandTimeoutMs] = process.argv.slice(2) as [string, string, string, string, string];
const redis = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 100 });
// ioredis reports connection trouble as 'error' events: the fleet copes, the process must not crash.
redis.on('error', () => undefined);
const fleet = createRedisFleet({ redis, namespace, commandTimeoutMs: Number(commandTimeoutMs), memberId: `reader-${worker}` });
const pool = new HttpTransportPool({
  endpoints: [{ id: 'node', url: `${nodeUrl}/v2/KEY-IN-PATH-123`, headers: { 'x-api-key': 'HEADER-SECRET-456', 'x-worker': worker } }],
  chain: 'solana',
  fleet,
  hedge: false,
  health: false,
  retry: { maxRetries: 1, initialBackoffMs: 10, maxBackoffMs: 20 },
});
const send = (message: ReadWorkerMessage) => process.send?.(message);

async function read(command: Extract<ReadWorkerCommand, { type: 'read' }>): Promise<void> {
  const answers = new Set<string>();
  const latenciesMs: number[] = [];
  const failures: string[] = [];
  const one = async (slot: number) => {
    const startedAt = performance.now();
    try {
      answers.add(JSON.stringify(await pool.request('getBlock', [slot, { commitment: 'finalized' }], { timeoutMs: 5_000 })));
    } catch (error) {
      failures.push(isTransportError(error) ? error.code : String(error));
    }
    latenciesMs.push(performance.now() - startedAt);
  };
  if (command.parallel) await Promise.all(command.slots.map(one));
  else for (const slot of command.slots) await one(slot);
  send({ type: 'done', id: command.id, answers: [...answers], latenciesMs, failures, sharedHits: pool.snapshot().cache?.sharedHits ?? 0 });
}

process.on('message', (command: ReadWorkerCommand) => {
  if (command.type === 'read') void read(command);
  else
    void pool
      .close()
      .then(() => fleet.close())
      .then(() => {
        redis.disconnect();
        process.disconnect?.();
      });
});

// Ready once the fleet is shared (it starts local while the client connects).
const readyCheck = setInterval(() => {
  if (fleet.status().mode !== 'shared') return;
  clearInterval(readyCheck);
  send({ type: 'ready' });
}, 20);
