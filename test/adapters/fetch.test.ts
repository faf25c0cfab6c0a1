import { setTimeout as sleep } from 'node:timers/promises';
import { createPublicClient, http, ProviderDisconnectedError } from 'viem';
import { anvil } from 'viem/chains';
import { afterEach, describe, expect, it } from 'vitest';
import { createPoolFetch } from '../../src/adapters/fetch.js';
import { eachItem, itemCount, itemsOf } from '../helpers/batch-server.js';
import { closeAllServers, hang, sendBody, sendResult, startRpcServer } from '../helpers/loopback.js';
import { closePools, createPool, rejectionOf, resetAfterReading, routeFixtures, SOLANA_SEND, twoTierPool } from './helpers.js';

/**
 * `createPoolFetch` against loopback servers with the real pool and undici executor: what
 * the caller reads from the `Response`, and what the servers received.
 */

afterEach(async () => {
  await closeAllServers();
  await closePools();
});

const ANY_URL = 'https://rpc.example.invalid/';
const post = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const rpc = (id: unknown, method: string, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params });

describe('createPoolFetch: single requests', () => {
  it("answers with the node's result under the caller's id, writing a u64 above 2^53 exactly", async () => {
    const node = await startRpcServer(routeFixtures({ getBalance: 'solana-getBalance-u64-max' }));
    const fetch = createPoolFetch(createPool({ endpoints: [{ url: node.url }] }));

    const response = await fetch(ANY_URL, post(rpc('caller-7', 'getBalance', ['83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a'])));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const text = await response.text();
    expect(text).toContain('"value":18446744073709551615');
    expect(JSON.parse(text)).toMatchObject({ jsonrpc: '2.0', id: 'caller-7', result: { context: { slot: 341197053 } } });
    // The node saw the pool's own id, not the caller's: ids are the adapter's business.
    expect(node.received.map((r) => r.method)).toEqual(['getBalance']);
  });

  it('accepts a Request object as input', async () => {
    const node = await startRpcServer((request, { res }) => sendResult(res, request.id, '42'));
    const fetch = createPoolFetch(createPool({ endpoints: [{ url: node.url }] }));
    const response = await fetch(new Request(ANY_URL, post(rpc(1, 'getSlot'))));
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: 42 });
  });

  it("returns a node's JSON-RPC error as the node sent it (code, message, data)", async () => {
    const node = await startRpcServer((request, { res }) =>
      sendBody(res, JSON.stringify({ jsonrpc: '2.0', id: request.id, error: { code: -32602, message: 'Invalid param: WrongSize', data: { hint: 'x' } } })),
    );
    const fetch = createPoolFetch(createPool({ endpoints: [{ url: node.url }] }));
    const response = await fetch(ANY_URL, post(rpc(3, 'getBalance', ['bad'])));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'Invalid param: WrongSize', data: { hint: 'x' } } });
    expect(node.count()).toBe(1);
  });

  it('answers an ambiguous send with code 4900, sturdyCode AMBIGUOUS_DISPATCH and the signature, and never resends it', async () => {
    const primary = await startRpcServer(resetAfterReading);
    const peer = await startRpcServer((request, { res }) => sendResult(res, request.id, JSON.stringify(SOLANA_SEND.signature)));
    const fetch = createPoolFetch(twoTierPool(primary.url, peer.url));

    const response = await fetch(ANY_URL, post(rpc(9, 'sendTransaction', [SOLANA_SEND.wire, { encoding: 'base64' }])));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { id: number; error: { code: number; message: string; data: unknown } };
    expect(body.id).toBe(9);
    expect(body.error.code).toBe(4900);
    expect(body.error.data).toEqual({ sturdyCode: 'AMBIGUOUS_DISPATCH', signature: SOLANA_SEND.signature });
    expect(body.error.message).toMatch(/^AMBIGUOUS_DISPATCH \(signature \w+\): .*not sent again/);
    expect([primary.count('sendTransaction'), peer.count()]).toEqual([1, 0]);
  });

  it('answers a call that outlived its deadline with code 4900 and sturdyCode DEADLINE_EXCEEDED', async () => {
    const node = await startRpcServer(hang);
    const fetch = createPoolFetch(createPool({ endpoints: [{ url: node.url }] }), { timeoutMs: 150 });
    const body = (await (await fetch(ANY_URL, post(rpc(1, 'getSlot')))).json()) as { error: { code: number; data: unknown } };
    expect(body.error).toMatchObject({ code: 4900, data: { sturdyCode: 'DEADLINE_EXCEEDED' } });
  });
});

describe('createPoolFetch: batches', () => {
  it('sends the batch as one HTTP request and answers one object per request, in request order with each id, though the node answered out of order; notifications get none', async () => {
    const node = await startRpcServer(eachItem((request, { res }) => sendResult(res, request.id, JSON.stringify(request.method)), (answers) => answers.reverse()));
    const fetch = createPoolFetch(createPool({ endpoints: [{ url: node.url }] }));

    const notification = { jsonrpc: '2.0', method: 'getEpochInfo', params: [] };
    const response = await fetch(ANY_URL, post([rpc('a', 'getSlot'), notification, rpc(2, 'getBlockHeight'), rpc(null, 'getEpochInfo')]));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([
      { jsonrpc: '2.0', id: 'a', result: 'getSlot' },
      { jsonrpc: '2.0', id: 2, result: 'getBlockHeight' },
      { jsonrpc: '2.0', id: null, result: 'getEpochInfo' },
    ]);
    // One JSON-RPC batch on the wire: one HTTP request holding the four calls, the notification included.
    expect(node.count()).toBe(1);
    expect(itemsOf(node)[0]!.map((item) => item.method)).toEqual(['getSlot', 'getEpochInfo', 'getBlockHeight', 'getEpochInfo']);
  });

  it('retries the reads of a batch without a send on the peer when the primary resets', async () => {
    const primary = await startRpcServer(resetAfterReading);
    const peer = await startRpcServer(eachItem((request, { res }) => sendResult(res, request.id, '5')));
    const fetch = createPoolFetch(twoTierPool(primary.url, peer.url));

    const body = await (await fetch(ANY_URL, post([rpc(1, 'getSlot'), rpc(2, 'getBlockHeight')]))).json();
    expect(body).toEqual([
      { jsonrpc: '2.0', id: 1, result: 5 },
      { jsonrpc: '2.0', id: 2, result: 5 },
    ]);
    expect([primary.count(), peer.count(), itemCount(peer)]).toEqual([1, 1, 2]);
  });

  it("judges batch items by the pool's own method classification (its `methods` option)", async () => {
    const primary = await startRpcServer(resetAfterReading);
    const peer = await startRpcServer(eachItem((request, { res }) => sendResult(res, request.id, '5')));
    // Unknown to the built-in table, but the pool was told it is an idempotent read.
    const pool = twoTierPool(primary.url, peer.url, { methods: { myIndexerRead: { kind: 'read', retryClass: 'idempotent' } } });
    const fetch = createPoolFetch(pool);

    const body = await (await fetch(ANY_URL, post([rpc(1, 'getSlot'), rpc(2, 'myIndexerRead')]))).json();
    expect(body).toEqual([
      { jsonrpc: '2.0', id: 1, result: 5 },
      { jsonrpc: '2.0', id: 2, result: 5 },
    ]);
    expect(itemCount(peer)).toBe(2);
  });

  it('sends the send of a batch in its own request (sends have their own endpoint roles) and never resends it; the read is retried alone on the peer', async () => {
    const primary = await startRpcServer(resetAfterReading);
    const peer = await startRpcServer(eachItem((request, { res }) => sendResult(res, request.id, '5')));
    const fetch = createPoolFetch(twoTierPool(primary.url, peer.url));

    const body = (await (await fetch(ANY_URL, post([rpc(1, 'getSlot'), rpc(2, 'sendTransaction', [SOLANA_SEND.wire, { encoding: 'base64' }])]))).json()) as {
      id: number;
      result?: unknown;
      error?: { code: number; data: { sturdyCode: string; signature?: string } };
    }[];
    expect(body[0]).toEqual({ jsonrpc: '2.0', id: 1, result: 5 });
    expect(body[1]).toMatchObject({ id: 2, error: { code: 4900, data: { sturdyCode: 'AMBIGUOUS_DISPATCH', signature: SOLANA_SEND.signature } } });
    // The primary read both requests (one per kind) and answered neither; only the read went to the peer.
    expect([primary.count(), itemCount(primary, 'sendTransaction')]).toEqual([2, 1]);
    expect(itemsOf(peer).flat().map((item) => item.method)).toEqual(['getSlot']);
  });

  it('answers 204 with no body to a payload of notifications only', async () => {
    const node = await startRpcServer((request, { res }) => sendResult(res, request.id, '1'));
    const fetch = createPoolFetch(createPool({ endpoints: [{ url: node.url }] }));
    const response = await fetch(ANY_URL, post({ jsonrpc: '2.0', method: 'getSlot', params: [] }));
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(node.count()).toBe(1);
  });
});

describe('createPoolFetch: what it refuses, and cancellation', () => {
  const refusals: [string, RequestInit | undefined, number][] = [
    ['a GET', undefined, -32600],
    ['a PUT', { method: 'PUT', body: JSON.stringify(rpc(1, 'getSlot')) }, -32600],
    ['a body that is not JSON', { method: 'POST', body: '<html>' }, -32700],
    ['an empty body', { method: 'POST' }, -32700],
    ['JSON that is not JSON-RPC', post({ hello: 'world' }), -32600],
    ['a request without jsonrpc "2.0"', post({ id: 1, method: 'getSlot', params: [] }), -32600],
    ['by-name params', post({ jsonrpc: '2.0', id: 1, method: 'getSlot', params: { commitment: 'finalized' } }), -32600],
    ['an empty batch', post([]), -32600],
    ['a batch with one invalid item', post([rpc(1, 'getSlot'), { jsonrpc: '2.0', id: 2 }]), -32600],
  ];

  it.each(refusals)('answers %s with 400 and a JSON-RPC error, sending nothing', async (_name, init, code) => {
    const node = await startRpcServer((request, { res }) => sendResult(res, request.id, '1'));
    const fetch = createPoolFetch(createPool({ endpoints: [{ url: node.url }] }));
    const response = await fetch(ANY_URL, init);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code } });
    expect(node.count()).toBe(0);
  });

  it('rejects with the abort reason when init.signal aborts a call in flight, like fetch', async () => {
    const node = await startRpcServer(hang);
    const fetch = createPoolFetch(createPool({ endpoints: [{ url: node.url }] }));
    const controller = new AbortController();
    const pending = fetch(ANY_URL, { ...post(rpc(1, 'getSlot')), signal: controller.signal });
    for (let i = 0; i < 100 && node.count() === 0; i++) await sleep(5);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(node.count()).toBe(1);
  });

  it('sends nothing for an already aborted signal', async () => {
    const node = await startRpcServer((request, { res }) => sendResult(res, request.id, '1'));
    const fetch = createPoolFetch(createPool({ endpoints: [{ url: node.url }] }));
    await expect(fetch(ANY_URL, { ...post(rpc(1, 'getSlot')), signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(node.count()).toBe(0);
  });
});

describe("createPoolFetch as viem http()'s fetchFn", () => {
  it("serves viem's batched reads, and viem's http retry does not resend an ambiguous send (code 4900)", async () => {
    const answers: Record<string, string> = { eth_chainId: '"0x7a69"', eth_blockNumber: '"0x2a"', eth_getBalance: '"0x1"' };
    const primary = await startRpcServer(
      eachItem((request, exchange) =>
        request.method === 'eth_sendRawTransaction' ? resetAfterReading(request, exchange) : sendResult(exchange.res, request.id, answers[request.method] ?? 'null'),
      ),
    );
    const peer = await startRpcServer(eachItem((request, { res }) => sendResult(res, request.id, answers[request.method] ?? 'null')));
    // viem's own retries left at their default (3): the 4900 answer is one viem never retries.
    const client = createPublicClient({ chain: anvil, transport: http(ANY_URL, { fetchFn: createPoolFetch(twoTierPool(primary.url, peer.url)), batch: true }) });

    const [chainId, blockNumber, balance] = await Promise.all([client.getChainId(), client.getBlockNumber(), client.getBalance({ address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266' })]);
    expect([chainId, blockNumber, balance]).toEqual([31_337, 42n, 1n]);
    // viem's batch of 3 reached the node as one JSON-RPC batch: one HTTP request.
    expect([primary.count(), itemsOf(primary)[0]!.map((item) => item.method)]).toEqual([1, ['eth_chainId', 'eth_blockNumber', 'eth_getBalance']]);
    const error = await rejectionOf(client.request({ method: 'eth_sendRawTransaction', params: ['0x02f0'] }));
    expect(error).toBeInstanceOf(ProviderDisconnectedError);
    expect(String(error)).toMatch(/AMBIGUOUS_DISPATCH/);
    expect(itemCount(primary, 'eth_sendRawTransaction') + itemCount(peer, 'eth_sendRawTransaction')).toBe(1);
  });
});
