import type http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAllServers, sendResult, startRpcServer } from '../helpers/loopback.js';
import { closePools, createPool } from '../helpers/pools.js';
import { signatureOf, wireTransaction } from '../helpers/solana-wire.js';

/**
 * Coalescing of identical reads, observed at a loopback node: how many requests arrive,
 * what each caller gets, and when the node sees a request cancelled.
 */

afterEach(async () => {
  await closeAllServers();
  await closePools();
});

const ACCOUNT = '83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a';
const BALANCE = '{"context":{"slot":341197053},"value":18446744073709551615}';

/** Bounded wait until `condition()` holds (real sockets: the node's view arrives asynchronously). */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i++) await sleep(5);
  expect(condition()).toBe(true);
}

/** A node that holds every request until `release()`, and records requests whose connection closed unanswered. */
async function holdingNode(resultJson: string) {
  const held: { res: http.ServerResponse; id: unknown }[] = [];
  let cancelled = 0;
  const server = await startRpcServer((request, { res }) => {
    held.push({ res, id: request.id });
    res.on('close', () => {
      if (!res.writableFinished) cancelled++;
    });
  });
  return {
    server,
    held: () => held.length,
    cancelled: () => cancelled,
    release: () => {
      for (const { res, id } of held.splice(0)) sendResult(res, id, resultJson);
    },
  };
}

describe('coalescing identical reads', () => {
  it('100 concurrent identical getBalance calls make 1 arrival; every caller gets the exact u64, in its own copy', async () => {
    const node = await holdingNode(BALANCE);
    const pool = createPool({ endpoints: [{ id: 'a', url: node.server.url }] });
    const calls = Array.from({ length: 100 }, () => pool.request('getBalance', [ACCOUNT, { commitment: 'confirmed' }]));
    await until(() => node.held() === 1);
    node.release();
    const results = (await Promise.all(calls)) as { value: bigint; context: { slot: number } }[];
    expect(node.server.count()).toBe(1);
    expect(results.every((r) => r.value === 18_446_744_073_709_551_615n)).toBe(true);
    // A caller that mutates what it got changes nobody else's result.
    results[1]!.context.slot = 0;
    expect(results.filter((r) => r.context.slot === 341197053)).toHaveLength(99);
  });

  it('100 concurrent identical sends make 100 arrivals: distinct sends are never coalesced', async () => {
    const wire = wireTransaction(7);
    const server = await startRpcServer((request, { res }) => sendResult(res, request.id, JSON.stringify(signatureOf(wire))));
    const pool = createPool({ endpoints: [{ id: 'a', url: server.url }] });
    const results = await Promise.all(Array.from({ length: 100 }, () => pool.request('sendTransaction', [wire, { encoding: 'base64' }])));
    expect(results.every((r) => r === signatureOf(wire))).toBe(true);
    expect(server.count('sendTransaction')).toBe(100);
  });

  it('never coalesces filter polls or unknown methods, and keeps different params, commitments, pins and timeouts apart', async () => {
    const node = await holdingNode('"0x1"');
    const pool = createPool({ endpoints: [{ id: 'a', url: node.server.url }, { id: 'b', url: node.server.url + '/b' }] });
    const calls = [
      ...Array.from({ length: 3 }, () => pool.request('eth_getFilterChanges', ['0x7'])),
      ...Array.from({ length: 3 }, () => pool.request('myIndexerRead', [])),
      pool.request('getBalance', [ACCOUNT, { commitment: 'confirmed' }]),
      pool.request('getBalance', [ACCOUNT, { commitment: 'finalized' }]),
      pool.request('getBalance', [ACCOUNT], { endpoint: 'a' }),
      pool.request('getBalance', [ACCOUNT], { endpoint: 'a' }),
      pool.request('getBalance', [ACCOUNT], { endpoint: 'b' }),
      // The same read with the pool's deadline, 9 000 ms (twice: those two share) and 8 000 ms: three requests.
      pool.request('getBalance', [ACCOUNT]),
      pool.request('getBalance', [ACCOUNT], { timeoutMs: 9_000 }),
      pool.request('getBalance', [ACCOUNT], { timeoutMs: 9_000 }),
      pool.request('getBalance', [ACCOUNT], { timeoutMs: 8_000 }),
    ];
    await until(() => node.held() === 3 + 3 + 2 + 1 + 1 + 3);
    await sleep(20);
    node.release();
    await Promise.all(calls);
    expect(node.server.count()).toBe(13);
  });

  it('coalesce: false (per call, or for the pool) sends each call', async () => {
    const node = await holdingNode('1');
    const pool = createPool({ endpoints: [{ id: 'a', url: node.server.url }] });
    const off = createPool({ endpoints: [{ id: 'a', url: node.server.url }], coalesce: false });
    const calls = [...Array.from({ length: 3 }, () => pool.request('getSlot', [], { coalesce: false })), ...Array.from({ length: 3 }, () => off.request('getSlot', []))];
    await until(() => node.held() === 6);
    node.release();
    await Promise.all(calls);
    expect(node.server.count()).toBe(6);
  });

  it('a caller that aborts leaves alone: it gets ABORTED at once, the others their answer from the one request', async () => {
    const node = await holdingNode('42');
    const pool = createPool({ endpoints: [{ id: 'a', url: node.server.url }] });
    const leaving = new AbortController();
    const first = pool.request('getSlot', [], { signal: leaving.signal });
    const others = Array.from({ length: 4 }, () => pool.request('getSlot', []));
    const withSignal = pool.request('getSlot', [], { signal: new AbortController().signal });
    await until(() => node.held() === 1);
    leaving.abort();
    await expect(first).rejects.toMatchObject({ code: 'ABORTED', method: 'getSlot' });
    node.release();
    expect(await Promise.all([...others, withSignal])).toEqual([42, 42, 42, 42, 42]);
    expect([node.server.count(), node.cancelled()]).toEqual([1, 0]);
  });

  it('when every caller has left, the request is cancelled at the node; a new call then sends afresh', async () => {
    const node = await holdingNode('42');
    const pool = createPool({ endpoints: [{ id: 'a', url: node.server.url }] });
    const controllers = Array.from({ length: 3 }, () => new AbortController());
    const calls = controllers.map((c) => pool.request('getSlot', [], { signal: c.signal }).catch((error: unknown) => error));
    await until(() => node.held() === 1);
    controllers[0]!.abort();
    controllers[1]!.abort();
    await sleep(20);
    expect(node.cancelled()).toBe(0);
    controllers[2]!.abort();
    for (const call of calls) expect(await call).toMatchObject({ code: 'ABORTED' });
    await until(() => node.cancelled() === 1);
    const again = pool.request('getSlot', []);
    await until(() => node.held() === 2);
    node.release();
    expect(await again).toBe(42);
    expect(node.server.count()).toBe(2);
  });

  it('after a joiner with a signal leaves a request whose first caller has none, a new identical call still joins it', async () => {
    const node = await holdingNode('9');
    const pool = createPool({ endpoints: [{ id: 'a', url: node.server.url }] });
    const first = pool.request('getSlot', []);
    const controller = new AbortController();
    const leaving = pool.request('getSlot', [], { signal: controller.signal });
    await until(() => node.held() === 1);
    controller.abort();
    await expect(leaving).rejects.toMatchObject({ code: 'ABORTED' });
    const third = pool.request('getSlot', []);
    await sleep(20);
    node.release();
    expect(await Promise.all([first, third])).toEqual([9, 9]);
    expect([node.server.count(), node.cancelled()]).toEqual([1, 0]);
  });

  it('a read made after an identical one settled is sent afresh', async () => {
    const server = await startRpcServer((request, { res }) => sendResult(res, request.id, String(server.count())));
    const pool = createPool({ endpoints: [{ id: 'a', url: server.url }] });
    expect(await pool.request('getSlot', [])).toBe(1);
    expect(await pool.request('getSlot', [])).toBe(2);
  });

  it('a caller without a signal keeps the request alive when the callers with signals leave', async () => {
    const node = await holdingNode('7');
    const pool = createPool({ endpoints: [{ id: 'a', url: node.server.url }] });
    const controller = new AbortController();
    const leaving = pool.request('getSlot', [], { signal: controller.signal });
    const staying = pool.request('getSlot', []);
    await until(() => node.held() === 1);
    controller.abort();
    await expect(leaving).rejects.toMatchObject({ code: 'ABORTED' });
    await sleep(20);
    node.release();
    expect(await staying).toBe(7);
    expect(node.cancelled()).toBe(0);
  });
});

