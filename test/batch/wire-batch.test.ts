import { afterEach, describe, expect, it } from 'vitest';
import type { BatchItemResult } from '../../src/batch/types.js';
import { eachItem, itemsOf } from '../helpers/batch-server.js';
import { closeAllServers, refusedPort, sendBody, sendResult, startRpcServer, type RpcHandler } from '../helpers/loopback.js';
import { closePools, createPool, twoTierPool } from '../helpers/pools.js';
import { signatureOf, wireTransaction } from '../helpers/solana-wire.js';

/**
 * `pool.batch` against loopback servers with the real undici executor: what each caller
 * gets per item, and what the servers received — HTTP requests and the items inside them.
 */

afterEach(async () => {
  await closeAllServers();
  await closePools();
});

/** Answers each item with its own method name as the result. */
const echoMethod: RpcHandler = (request, { res }) => sendResult(res, request.id, JSON.stringify(request.method));

/** Answers a batch body with `build(items)` as raw JSON text. */
function answerBatch(build: (items: { id: number; method: string; params: unknown[] }[]) => unknown): RpcHandler {
  return (_request, { res, body }) => sendBody(res, JSON.stringify(build(JSON.parse(body) as { id: number; method: string; params: unknown[] }[])));
}

const values = (results: readonly BatchItemResult[]) => results.map((r) => (r.ok ? r.result : r.error.code));
const slot = (n: number) => ({ method: 'getBlockHeight', params: [{ minContextSlot: n }] });

describe('pool.batch: one JSON-RPC batch per HTTP request', () => {
  it('sends 3 calls as one HTTP request and gives each its own result, in call order', async () => {
    const node = await startRpcServer(eachItem(echoMethod, (answers) => answers.reverse()));
    const pool = createPool({ endpoints: [{ id: 'a', url: node.url }] });
    const results = await pool.batch([{ method: 'getSlot' }, { method: 'getBlockHeight', params: [] }, { method: 'getEpochInfo' }]);
    expect(results).toEqual([
      { ok: true, result: 'getSlot', endpointId: 'a' },
      { ok: true, result: 'getBlockHeight', endpointId: 'a' },
      { ok: true, result: 'getEpochInfo', endpointId: 'a' },
    ]);
    expect(node.count()).toBe(1);
    expect(node.received[0]!.body.startsWith('[')).toBe(true);
  });

  it('splits above the endpoint’s maxBatchSize: 5 calls with maxBatchSize 2 are 3 requests of 2, 2 and 1', async () => {
    const node = await startRpcServer(eachItem(echoMethod));
    const pool = createPool({ endpoints: [{ id: 'a', url: node.url, maxBatchSize: 2 }] });
    const results = await pool.batch(Array.from({ length: 5 }, (_, i) => slot(i)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(itemsOf(node).map((items) => items.length).sort()).toEqual([1, 2, 2]);
    expect(itemsOf(node).flat().map((item) => (item.params as [{ minContextSlot: number }])[0].minContextSlot).sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('refuses bad input with INVALID_INPUT and sends nothing', async () => {
    const node = await startRpcServer(eachItem(echoMethod));
    const pool = createPool({ endpoints: [{ id: 'a', url: node.url }] });
    await expect(pool.batch([{ method: 'getSlot' }, { method: '' }])).rejects.toMatchObject({ code: 'INVALID_INPUT', context: { field: 'calls[1].method' } });
    await expect(pool.batch([{ method: 'getSlot', params: 'x' as never }])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(pool.batch('getSlot' as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await pool.batch([])).toEqual([]);
    expect(node.count()).toBe(0);
  });
});

describe('pool.batch: per-item attribution of a bad batch answer', () => {
  it('a single error object with id null (a gateway rate limit) is every item’s answer: all retried together on the peer', async () => {
    const primary = await startRpcServer((_r, { res }) => sendBody(res, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32005, message: 'project ID request rate exceeded' } })));
    const peer = await startRpcServer(eachItem(echoMethod));
    const pool = twoTierPool(primary.url, peer.url);
    const results = await pool.batch([{ method: 'getSlot' }, { method: 'getEpochInfo' }, { method: 'getBlockHeight' }]);
    expect(values(results)).toEqual(['getSlot', 'getEpochInfo', 'getBlockHeight']);
    expect([primary.count(), peer.count()]).toEqual([1, 1]);
    expect(pool.snapshot().roles.find((r) => r.endpointId === 'primary' && r.kind === 'read')?.availability).toBe('rate-limited');
  });

  it('a node without batch support (-32600 to an array) gets the items one by one, and later batches too', async () => {
    const node = await startRpcServer((request, exchange) =>
      exchange.body.startsWith('[') ? sendBody(exchange.res, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } })) : echoMethod(request, exchange),
    );
    const pool = createPool({ endpoints: [{ id: 'a', url: node.url }] });
    expect(values(await pool.batch([{ method: 'getSlot' }, { method: 'getEpochInfo' }]))).toEqual(['getSlot', 'getEpochInfo']);
    expect(values(await pool.batch([{ method: 'getSlot' }, { method: 'getEpochInfo' }]))).toEqual(['getSlot', 'getEpochInfo']);
    // One refused array, then single requests only.
    expect(itemsOf(node).map((items) => items.length)).toEqual([2, 1, 1, 1, 1]);
    expect(node.received.filter((r) => r.body.startsWith('['))).toHaveLength(1);
  });

  it('"batch too large" halves the endpoint’s batch size: a batch of 4 to a node capped at 2 is answered in full', async () => {
    const capped: RpcHandler = (request, exchange) => {
      const items = JSON.parse(exchange.body) as unknown;
      if (Array.isArray(items) && items.length > 2) {
        sendBody(exchange.res, JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch size too large: max 2' } }));
        return;
      }
      return eachItem(echoMethod)(request, exchange);
    };
    const limited = await startRpcServer(capped);
    const results = await createPool({ endpoints: [{ id: 'a', url: limited.url }] }).batch(Array.from({ length: 4 }, (_, i) => slot(i)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(itemsOf(limited).map((items) => items.length)).toEqual([4, 2, 2]);
  });

  it('a wrong length: the item the answer left out is retried alone on the peer; the answered ones are never resent', async () => {
    const primary = await startRpcServer(answerBatch((items) => items.slice(0, 2).map((item) => ({ jsonrpc: '2.0', id: item.id, result: item.method }))));
    const peer = await startRpcServer(eachItem(echoMethod));
    const results = await twoTierPool(primary.url, peer.url).batch([{ method: 'getSlot' }, { method: 'getEpochInfo' }, { method: 'getBlockHeight' }]);
    expect(values(results)).toEqual(['getSlot', 'getEpochInfo', 'getBlockHeight']);
    expect(results.map((r) => r.ok && r.endpointId)).toEqual(['primary', 'primary', 'peer']);
    expect(itemsOf(peer).flat().map((item) => item.method)).toEqual(['getBlockHeight']);
  });

  it('answers without ids are missing items: every item is retried, on the peer', async () => {
    const primary = await startRpcServer(answerBatch((items) => items.map((item) => ({ jsonrpc: '2.0', result: item.method }))));
    const peer = await startRpcServer(eachItem(echoMethod));
    const results = await twoTierPool(primary.url, peer.url).batch([{ method: 'getSlot' }, { method: 'getEpochInfo' }]);
    expect(results.map((r) => r.ok && r.endpointId)).toEqual(['peer', 'peer']);
    expect([primary.count(), peer.count()]).toEqual([1, 1]);
  });

  it('an id answered twice is ambiguous for that item (retried alone); the others keep their answers', async () => {
    const primary = await startRpcServer(
      answerBatch((items) => [...items.map((item) => ({ jsonrpc: '2.0', id: item.id, result: item.method })), { jsonrpc: '2.0', id: items[0]!.id, result: 'again' }]),
    );
    const peer = await startRpcServer(eachItem(echoMethod));
    const results = await twoTierPool(primary.url, peer.url).batch([{ method: 'getSlot' }, { method: 'getEpochInfo' }]);
    expect(results.map((r) => r.ok && [r.result, r.endpointId])).toEqual([
      ['getSlot', 'peer'],
      ['getEpochInfo', 'primary'],
    ]);
    expect(itemsOf(peer).flat().map((item) => item.method)).toEqual(['getSlot']);
  });

  it('an answer that is no array (one result object) fails the request as a whole: the reads are retried on the peer', async () => {
    const primary = await startRpcServer((_r, { res }) => sendResult(res, 999_999, '"x"'));
    const peer = await startRpcServer(eachItem(echoMethod));
    const results = await twoTierPool(primary.url, peer.url).batch([{ method: 'getSlot' }, { method: 'getEpochInfo' }]);
    expect(results.map((r) => r.ok && r.endpointId)).toEqual(['peer', 'peer']);
  });

  it('mixed item answers: a result stays, a node error is final, a per-item rate limit is retried alone (QuickNode counts batch items)', async () => {
    const primary = await startRpcServer(
      answerBatch((items) => [
        { jsonrpc: '2.0', id: items[0]!.id, result: 'ok' },
        { jsonrpc: '2.0', id: items[1]!.id, error: { code: -32602, message: 'Invalid param: WrongSize' } },
        { jsonrpc: '2.0', id: items[2]!.id, error: { code: -32007, message: 'request limit reached' } },
      ]),
    );
    const peer = await startRpcServer(eachItem(echoMethod));
    const pool = twoTierPool(primary.url, peer.url);
    const results = await pool.batch([{ method: 'getSlot' }, { method: 'getBalance', params: ['bad'] }, { method: 'getEpochInfo' }]);
    expect(results[0]).toEqual({ ok: true, result: 'ok', endpointId: 'primary' });
    expect(results[1]).toMatchObject({ ok: false, error: { code: 'RPC_ERROR', rpcCode: -32602 } });
    expect(results[2]).toEqual({ ok: true, result: 'getEpochInfo', endpointId: 'peer' });
    // Only the rate-limited item went again; the primary cools down.
    expect(itemsOf(peer).flat().map((item) => item.method)).toEqual(['getEpochInfo']);
    expect(pool.snapshot().roles.find((r) => r.endpointId === 'primary' && r.kind === 'read')?.availability).toBe('rate-limited');
  });
});

describe('pool.batch: the send rule', () => {
  const send = (n: number) => ({ method: 'sendTransaction', params: [wireTransaction(n), { encoding: 'base64' }] });

  it('a request holding sends that may have reached the node is never resent: each send fails AMBIGUOUS_DISPATCH with its own signature', async () => {
    const primary = await startRpcServer((_r, { socket }) => socket.resetAndDestroy());
    const peer = await startRpcServer(eachItem((request, { res }) => sendResult(res, request.id, JSON.stringify(signatureOf((request.params as string[])[0]!)))));
    const results = await twoTierPool(primary.url, peer.url).batch([send(1), send(2)]);
    expect(results.map((r) => !r.ok && [r.error.code, r.error.signature])).toEqual([
      ['AMBIGUOUS_DISPATCH', signatureOf(wireTransaction(1))],
      ['AMBIGUOUS_DISPATCH', signatureOf(wireTransaction(2))],
    ]);
    expect([primary.count(), peer.count()]).toEqual([1, 0]);
  });

  it('a read in the same request as a filter poll follows the send rule too: neither is sent again after a reset', async () => {
    const primary = await startRpcServer((_r, { socket }) => socket.resetAndDestroy());
    const peer = await startRpcServer(eachItem(echoMethod));
    const results = await twoTierPool(primary.url, peer.url).batch([{ method: 'eth_getFilterChanges', params: ['0x1'] }, { method: 'eth_blockNumber' }]);
    expect(results.map((r) => !r.ok && r.error.code)).toEqual(['AMBIGUOUS_DISPATCH', 'AMBIGUOUS_DISPATCH']);
    expect([primary.count(), peer.count()]).toEqual([1, 0]);
  });

  it('a request of sends that provably never left (connection refused) is sent again, once, to the peer', async () => {
    const peer = await startRpcServer(eachItem((request, { res }) => sendResult(res, request.id, JSON.stringify(signatureOf((request.params as string[])[0]!)))));
    const results = await twoTierPool(`http://127.0.0.1:${await refusedPort()}`, peer.url).batch([send(3), send(4)]);
    expect(values(results)).toEqual([signatureOf(wireTransaction(3)), signatureOf(wireTransaction(4))]);
    expect(peer.count()).toBe(1);
  });

  it('a send the answer left out is ambiguous and not resent; the answered send keeps its signature', async () => {
    const primary = await startRpcServer(answerBatch((items) => [{ jsonrpc: '2.0', id: items[0]!.id, result: signatureOf(wireTransaction(5)) }]));
    const peer = await startRpcServer(eachItem(echoMethod));
    const results = await twoTierPool(primary.url, peer.url).batch([send(5), send(6)]);
    expect(results[0]).toEqual({ ok: true, result: signatureOf(wireTransaction(5)), endpointId: 'primary' });
    expect(results[1]).toMatchObject({ ok: false, error: { code: 'AMBIGUOUS_DISPATCH', signature: signatureOf(wireTransaction(6)) } });
    expect(peer.count()).toBe(0);
  });
});
