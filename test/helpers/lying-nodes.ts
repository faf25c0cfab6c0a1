import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import type { FakeClock } from '../../src/testing/index.js';
import { createPool } from './pools.js';
import { sendBody, sendResult, startRpcServer, type RpcServer } from './loopback.js';

/**
 * Two honest nodes and one liar on loopback, each answering from a script of the method, its
 * params and the fake clock's time (so the chain they describe moves as the test drives the
 * clock). The liar is endpoint 0 of its own operator: it is the first endpoint any proof asks.
 */

export type NodeScript = (method: string, params: readonly unknown[], nowMs: number) => unknown;

/** Serves `script`; a script answer of `undefined` is a JSON-RPC "method not found" error. */
export async function scriptedServer(clock: FakeClock, script: NodeScript): Promise<RpcServer> {
  return startRpcServer((request, { res }) => {
    const result = script(request.method, Array.isArray(request.params) ? request.params : [], clock.now());
    if (result === undefined) {
      sendBody(res, JSON.stringify({ jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'Method not found' } }));
      return;
    }
    sendResult(res, request.id, JSON.stringify(result, (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)));
  });
}

export interface LyingFleet {
  readonly pool: HttpTransportPool;
  readonly liar: RpcServer;
  readonly honest: readonly [RpcServer, RpcServer];
}

/** A pool of three endpoints of three operators, one tier (admission rotates among them), on the fake clock with a seeded random. */
export async function lyingFleet(clock: FakeClock, honest: NodeScript, liar: NodeScript, chain: 'solana' | 'evm'): Promise<LyingFleet> {
  const servers = [await scriptedServer(clock, liar), await scriptedServer(clock, honest), await scriptedServer(clock, honest)] as const;
  let seed = 7;
  const pool = createPool({
    endpoints: servers.map((server, i) => ({ id: ['liar', 'honest-a', 'honest-b'][i]!, url: server.url, operator: ['liar.example', 'a.example', 'b.example'][i]! })),
    chain,
    clock,
    // A seeded random: the rotation among the three is the same on every run.
    random: () => ((seed = (seed * 16_807) % 2_147_483_647) - 1) / 2_147_483_646,
    retry: { maxRetries: 2, initialBackoffMs: 10, maxBackoffMs: 50 },
  });
  return { pool, liar: servers[0], honest: [servers[1], servers[2]] };
}

/** Moves the fake clock on in 100 ms steps, letting the loopback requests finish, until `promise` settles (bounded). */
export async function drive<T>(clock: FakeClock, promise: Promise<T>, maxSteps = 2_000): Promise<T> {
  let settled = false;
  const tracked = promise.finally(() => {
    settled = true;
  });
  for (let i = 0; i < maxSteps && !settled; i++) {
    await clock.advance(100);
    await sleep(1);
  }
  return tracked;
}
