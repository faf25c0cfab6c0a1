/**
 * One process of the multi-process fleet test (`fleet-processes.test.ts`), forked with tsx:
 * its own ioredis client, its own fleet member and its own pool, driving the parent's
 * loopback server. Commands arrive over IPC; fleet events and results go back the same way.
 */
import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRedisFleet } from '../../src/fleet/index.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import { isTransportError } from '../../src/errors/transport-error.js';
import type { EndpointConfig } from '../../src/config/types.js';

export type WorkerCommand =
  | { readonly type: 'run'; readonly endpoints: EndpointConfig[]; readonly concurrency: number; readonly pauseMs: number }
  | { readonly type: 'stop' }
  | { readonly type: 'exit' };

export type WorkerMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'fleet'; readonly mode?: string; readonly reason?: string; readonly topic?: string; readonly endpointIds?: readonly string[] }
  | { readonly type: 'stopped'; readonly ok: number; readonly failures: readonly string[]; readonly learnedRps?: number | undefined };

const [redisUrl, namespace, worker] = process.argv.slice(2) as [string, string, string];
const redis = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 100 });
// ioredis reports connection trouble as 'error' events: the fleet copes, the test must not crash.
redis.on('error', () => undefined);
const fleet = createRedisFleet({ redis, namespace, commandTimeoutMs: 100, memberId: `worker-${worker}` });
const send = (message: WorkerMessage) => process.send?.(message);

let pool: HttpTransportPool | undefined;
let running: Promise<{ ok: number; failures: string[] }> | undefined;
let stopping = false;

async function run(command: Extract<WorkerCommand, { type: 'run' }>) {
  const endpoints = command.endpoints.map((e) => ({ ...e, headers: { 'x-worker': worker } }));
  pool = new HttpTransportPool({ endpoints, fleet, hedge: false, coalesce: false, retry: { maxRetries: 2, initialBackoffMs: 10, maxBackoffMs: 50 } });
  pool.on('fleet', (event) => send(event.type === 'mode' ? { type: 'fleet', mode: event.mode, reason: event.reason } : { type: 'fleet', topic: event.topic, endpointIds: event.endpointIds }));
  stopping = false;
  let ok = 0;
  const failures: string[] = [];
  const loops = Array.from({ length: command.concurrency }, async () => {
    while (!stopping) {
      try {
        await pool!.request('getSlot', [], { timeoutMs: 4_000 });
        ok++;
      } catch (error) {
        failures.push(isTransportError(error) ? error.code : String(error));
        await sleep(20);
      }
      if (command.pauseMs > 0) await sleep(command.pauseMs);
    }
  });
  running = Promise.all(loops).then(() => ({ ok, failures }));
}

process.on('message', (command: WorkerCommand) => {
  if (command.type === 'run') void run(command);
  else if (command.type === 'stop') {
    stopping = true;
    const finished = running ?? Promise.resolve({ ok: 0, failures: [] });
    running = undefined;
    void finished.then(async (result) => {
      // The rate this worker's pool learned (or was told by the fleet's tuner), before it closes.
      const learnedRps = pool?.snapshot().roles[0]?.learnedRequestsPerSecond;
      await pool?.close();
      send({ type: 'stopped', ...result, learnedRps });
    });
  } else {
    void fleet.close().then(() => {
      redis.disconnect();
      process.disconnect?.();
    });
  }
});

redis.once('ready', () => send({ type: 'ready' }));
