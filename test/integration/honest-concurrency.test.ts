import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAllServers, sendResult, startRpcServer, type RpcServer } from '../helpers/loopback.js';
import { closePools, createPool } from '../helpers/pools.js';

/**
 * Admission sees every wait: `maxConcurrentRequests` is one limit per endpoint, shared by
 * its roles, and the executor always has a connection for every permit admission grants,
 * so what the pool counts as in flight is what the node has in progress — never a queue
 * hidden inside undici, where an attempt's clock would run unseen.
 */

// Every test here counts concurrent identical reads at the node: coalescing is off (\`coalesce: false\`).
afterEach(async () => {
  await closeAllServers();
  await closePools();
});

/** A server that holds every request until the test releases it, counting those in progress. */
async function holdingServer(): Promise<{ server: RpcServer; inProgress: () => number; releaseOne: () => boolean }> {
  const held: { res: http.ServerResponse; id: unknown }[] = [];
  const server = await startRpcServer((request, { res }) => {
    held.push({ res, id: request.id });
  });
  return {
    server,
    inProgress: () => held.length,
    releaseOne: () => {
      const next = held.shift();
      if (next) sendResult(next.res, next.id, '1');
      return next !== undefined;
    },
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** Waits (bounded) until `read()` has stayed the same for a few ticks, and returns it. */
async function settled(read: () => number): Promise<number> {
  let last = read();
  let same = 0;
  for (let i = 0; i < 200 && same < 4; i++) {
    await tick();
    const now = read();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  return last;
}

describe('one concurrency limit per endpoint, shared by its roles', () => {
  it('with maxConcurrentRequests: 2, reads and submits together: the snapshot’s in-flight count always equals the requests in progress at the server', async () => {
    const node = await holdingServer();
    const pool = createPool({ endpoints: [{ id: 'a', url: node.server.url, maxConcurrentRequests: 2 }], retry: { maxRetries: 0 }, coalesce: false });
    const inFlight = () => pool.snapshot().endpoints[0]!.inFlight;
    const calls = [
      ...Array.from({ length: 5 }, () => pool.request('getSlot', [], { timeoutMs: 10_000 })),
      ...Array.from({ length: 3 }, () => pool.request('getSlot', [], { timeoutMs: 10_000, kind: 'submit' })),
    ];
    const seen: [number, number][] = [];
    for (let remaining = calls.length; remaining > 0; remaining--) {
      const atServer = await settled(node.inProgress);
      seen.push([inFlight(), atServer]);
      expect(node.releaseOne()).toBe(true);
    }
    await Promise.all(calls);
    expect(seen.every(([pool, server]) => pool === server)).toBe(true);
    expect(seen.slice(0, 7).every(([, server]) => server === 2)).toBe(true);
    expect(node.server.count()).toBe(8);
    expect(inFlight()).toBe(0);
  });

  it('a role may set a lower limit of its own inside the endpoint’s', async () => {
    const node = await holdingServer();
    const pool = createPool({ endpoints: [{ id: 'a', url: node.server.url, maxConcurrentRequests: 3, roles: { submit: { maxConcurrentRequests: 1 } } }], coalesce: false });
    const submits = Array.from({ length: 3 }, () => pool.request('getSlot', [], { timeoutMs: 10_000, kind: 'submit' }));
    expect(await settled(node.inProgress)).toBe(1);
    const reads = Array.from({ length: 3 }, () => pool.request('getSlot', [], { timeoutMs: 10_000 }));
    expect(await settled(node.inProgress)).toBe(3);
    expect(pool.snapshot().roles.find((r) => r.kind === 'submit')).toMatchObject({ maxConcurrentRequests: 1, inFlight: 1 });
    for (let i = 0; i < 6; i++) {
      await settled(node.inProgress);
      node.releaseOne();
    }
    await Promise.all([...submits, ...reads]);
  });

  it('two endpoints on one origin (2 + 3 permits): the node sees 5 requests in progress, none queued unseen in the client', async () => {
    const node = await holdingServer();
    const pool = createPool({
      endpoints: [
        { id: 'a', url: `${node.server.url}/key-a`, maxConcurrentRequests: 2 },
        { id: 'b', url: `${node.server.url}/key-b`, maxConcurrentRequests: 3 },
      ],
      coalesce: false,
    });
    const calls = Array.from({ length: 8 }, () => pool.request('getSlot', [], { timeoutMs: 10_000 }));
    expect(await settled(node.inProgress)).toBe(5);
    const snapshot = pool.snapshot();
    expect(snapshot.endpoints.map((e) => e.inFlight)).toEqual([2, 3]);
    for (let i = 0; i < 8; i++) {
      await settled(node.inProgress);
      node.releaseOne();
    }
    await Promise.all(calls);
  });
});
