import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithBinary } from '../helpers/system-binary.js';
import { sendResult, startRpcServer, type RpcServer } from '../helpers/loopback.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { until } from '../helpers/until.js';
import { forkWorker, killWorkers } from '../helpers/worker-processes.js';
import type { ReadWorkerCommand, ReadWorkerMessage, ReadWorkerResult } from './read-cache-worker.js';

/**
 * The read cache shared by a fleet as users run it: two processes (`child_process.fork`), each
 * with its own ioredis client and pool, on one real `redis-server`, reading finalized Solana
 * blocks from one loopback node that counts what arrives. Real time by nature; bounds leave
 * room for a loaded 2-core machine, the node request counts are exact.
 */

const WORKER_FILE = fileURLToPath(new URL('./read-cache-worker.ts', import.meta.url));
const NAMESPACE = 'read-cache';
const COMMAND_TIMEOUT_MS = 100;

describeWithBinary('redis-server', 'apt-get install -y redis-server', 'read cache shared across 2 processes on a real redis-server', (binary) => {
  let redis: RedisServer;
  let node: RpcServer;
  /** getBlock requests the node received, per slot. */
  const requests = new Map<number, number>();
  /** How long the node takes to answer, in ms. */
  let delayMs = 0;
  const workers: { child: ChildProcess; results: ReadWorkerResult[]; ready: boolean }[] = [];
  let nextId = 0;

  beforeAll(async () => {
    redis = await startRedisServer(binary);
    node = await startRpcServer((request, { res }) => {
      const slot = (request.params as [number])[0];
      requests.set(slot, (requests.get(slot) ?? 0) + 1);
      setTimeout(() => sendResult(res, request.id, JSON.stringify({ blockHeight: slot, blockhash: `hash-${slot}` })), delayMs);
    });
    const nodeUrl = node.url;
    for (let i = 0; i < 2; i++) {
      const child = forkWorker(WORKER_FILE, [redis.url, NAMESPACE, String(i), nodeUrl, String(COMMAND_TIMEOUT_MS)]);
      const entry = { child, results: [] as ReadWorkerResult[], ready: false };
      child.on('message', (message: ReadWorkerMessage) => (message.type === 'ready' ? (entry.ready = true) : entry.results.push(message)));
      workers.push(entry);
    }
    await until(() => workers.every((w) => w.ready), 20_000, 'workers ready');
  }, 40_000);

  afterAll(async () => {
    killWorkers(workers.map((w) => w.child));
    await node?.close();
    await redis?.stop();
  });

  /** Has worker `w` read `slots` (all at once with `parallel`); resolves with its result. */
  async function read(w: number, slots: readonly number[], parallel = false): Promise<ReadWorkerResult> {
    const id = nextId++;
    workers[w]!.child.send({ type: 'read', id, slots, parallel } satisfies ReadWorkerCommand);
    await until(() => workers[w]!.results.some((r) => r.id === id), 20_000, `worker ${w} read`);
    return workers[w]!.results.find((r) => r.id === id)!;
  }

  it('serves a finalized block one process fetched to the other with 0 node requests', async () => {
    const first = await read(0, [100]);
    expect([first.answers, first.failures, requests.get(100)]).toEqual([[JSON.stringify({ blockHeight: 100, blockhash: 'hash-100' })], [], 1]);
    // The answer reaches the store after the caller has it: give the write its round trip.
    await sleep(200);
    const second = await read(1, [100]);
    expect([second.answers, second.failures, second.sharedHits]).toEqual([first.answers, [], 1]);
    expect(requests.get(100)).toBe(1);
  }, 30_000);

  it('makes 1 node request for 50 concurrent misses across the two processes', async () => {
    delayMs = 300;
    const [a, b] = await Promise.all([read(0, Array.from({ length: 25 }, () => 200), true), read(1, Array.from({ length: 25 }, () => 200), true)]);
    delayMs = 0;
    expect(requests.get(200)).toBe(1);
    for (const result of [a, b]) expect([result.answers, result.failures]).toEqual([[JSON.stringify({ blockHeight: 200, blockhash: 'hash-200' })], []]);
  }, 30_000);

  it('puts no URL, header or key in any Redis key or value', async () => {
    const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    await client.connect();
    try {
      const keys = await client.keys('*');
      let stored = keys.join('\n');
      for (const key of keys) {
        const type = await client.type(key);
        if (type === 'string') stored += await client.get(key);
        else if (type === 'zset') stored += (await client.zrange(key, 0, -1)).join('\n');
        else if (type === 'hash') stored += JSON.stringify(await client.hgetall(key));
        else if (type === 'stream') stored += JSON.stringify(await client.xrange(key, '-', '+'));
        else stored += `unexpected ${type}`;
      }
      // Shared reads are there, under hashed keys…
      expect(keys.filter((key) => key.startsWith(`sturdy-rpc:{${NAMESPACE}}:read:`)).length).toBe(2);
      // …and no address, key or header value anywhere.
      for (const secret of ['KEY-IN-PATH-123', 'HEADER-SECRET-456', '127.0.0.1', 'x-api-key', 'http']) expect(stored).not.toContain(secret);
    } finally {
      client.disconnect();
    }
  });

  it('holds no call past one command timeout while redis-server is frozen (SIGSTOP), then serves them from the node', async () => {
    redis.pause();
    try {
      const results = await Promise.all([read(0, [400, 401, 402, 403, 404]), read(1, [405, 406, 407, 408, 409])]);
      for (const result of results) {
        expect([result.answers.length, result.failures]).toEqual([5, []]);
        expect(Math.max(...result.latenciesMs)).toBeLessThan(COMMAND_TIMEOUT_MS + 150);
      }
      for (let slot = 400; slot < 410; slot++) expect(requests.get(slot)).toBe(1);
    } finally {
      redis.resume();
    }
  }, 30_000);

  it('serves calls from the node at once when redis-server is killed: none waits past the command timeout', async () => {
    await redis.kill();
    const results = await Promise.all([read(0, [300, 301, 302, 303, 304]), read(1, [305, 306, 307, 308, 309])]);
    for (const result of results) {
      expect([result.answers.length, result.failures]).toEqual([5, []]);
      // The node answers at once over loopback: a call's time is at most one store command's timeout, plus a loaded machine's slack.
      expect(Math.max(...result.latenciesMs)).toBeLessThan(COMMAND_TIMEOUT_MS + 150);
    }
    for (let slot = 300; slot < 310; slot++) expect(requests.get(slot)).toBe(1);
  }, 30_000);
});
