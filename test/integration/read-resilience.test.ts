import { once } from 'node:events';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { EndpointConfig, HttpTransportPoolOptions } from '../../src/config/types.js';
import { createSolanaClient } from '../../src/solana/client.js';
import {
  answer,
  closeAllServers,
  hang,
  loadFixture,
  sendBody,
  sendResult,
  serveFixture,
  startRpcServer,
  type RpcHandler,
} from '../helpers/loopback.js';
import { closePools, createPool, rejection } from '../helpers/pools.js';

/**
 * Reads on real sockets: a failing endpoint costs one attempt, the read succeeds on the
 * peer, and every wait stays inside the call's one deadline.
 */

afterEach(async () => {
  await closeAllServers();
  await closePools();
});

const healthy = answer('12345');

/** A misbehaving `bad` endpoint on tier 0 (always tried first) and a healthy `good` one on tier 1. */
async function badThenGood(misbehave: RpcHandler, badSettings: Partial<EndpointConfig> = {}, pool: Partial<HttpTransportPoolOptions> = {}) {
  const bad = await startRpcServer(misbehave);
  const good = await startRpcServer(healthy);
  const p = createPool({
    endpoints: [{ id: 'bad', url: bad.url, tier: 0, ...badSettings }, { id: 'good', url: good.url, tier: 1 }],
    ...pool,
  });
  const failures: string[] = [];
  p.on('failure', (e) => failures.push(`${e.endpointId}:${e.cause}`));
  return { bad, good, pool: p, failures };
}

const html502 = '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body><center><h1>502 Bad Gateway</h1></center></body>\r\n</html>\r\n';

describe('a failed read is retried on another endpoint and succeeds', () => {
  it.each([500, 502, 504])('HTTP %i: the bad server got exactly one request', async (status) => {
    const t = await badThenGood((_, { res }) => sendBody(res, 'upstream trouble', status, { 'content-type': 'text/plain' }));
    await expect(t.pool.request('getSlot', [])).resolves.toBe(12345);
    expect(t.bad.count('getSlot')).toBe(1);
    expect(t.good.count('getSlot')).toBe(1);
    expect(t.failures).toEqual(['bad:temporary-http']);
  });

  it.each<[string, RpcHandler]>([
    ['an HTML 502 page with status 200', (_, { res }) => sendBody(res, html502, 200, { 'content-type': 'text/html' })],
    ['a truncated JSON body', (r, { res }) => sendBody(res, `{"jsonrpc":"2.0","id":${JSON.stringify(r.id)},"result":{"context":{"slot":34119`)],
    ['a body answering another id', (r, { res }) => sendResult(res, Number(r.id) + 1000, '999')],
  ])('%s is an invalid response: retried elsewhere', async (_, misbehave) => {
    const t = await badThenGood(misbehave);
    await expect(t.pool.request('getSlot', [])).resolves.toBe(12345);
    expect([t.bad.count(), t.good.count()]).toEqual([1, 1]);
    expect(t.failures).toEqual(['bad:invalid-response']);
  });

  it.each<[string, RpcHandler]>([
    ['never sends headers', hang],
    ['sends headers, then stalls the body', (_, { res }) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"jsonrpc":"2.0",');
    }],
  ])('an endpoint that %s times out after its requestTimeoutMs (300) and the read succeeds on the peer in < 2 s', async (_, misbehave) => {
    const t = await badThenGood(misbehave, { requestTimeoutMs: 300 });
    const started = performance.now();
    await expect(t.pool.request('getSlot', [], { timeoutMs: 5_000 })).resolves.toBe(12345);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(2_000);
    expect([t.bad.count(), t.good.count()]).toEqual([1, 1]);
    expect(t.failures).toEqual(['bad:timeout']);
  });
});

describe('one deadline per call', () => {
  it('with every server hanging, timeoutMs 400 rejects DEADLINE_EXCEEDED within [400, 550] ms', async () => {
    const a = await startRpcServer(hang);
    const b = await startRpcServer(hang);
    const pool = createPool({ endpoints: [{ id: 'a', url: a.url }, { id: 'b', url: b.url }] });
    const started = performance.now();
    // A plain 400 ms timer started alongside: how late the event loop runs timers (CPU load from parallel files).
    const referenceFired = new Promise<number>((resolve) => setTimeout(() => resolve(performance.now()), 400));
    const error = await rejection(pool.request('getSlot', [], { timeoutMs: 400 }));
    const elapsed = performance.now() - started;
    const timerLatenessMs = Math.max(0, (await referenceFired) - started - 400);
    expect(error.code).toBe('DEADLINE_EXCEEDED');
    expect(elapsed).toBeGreaterThanOrEqual(399);
    // [400, 400 + 150] ms; widened only by the lateness of that plain timer, never by the pool.
    expect(elapsed).toBeLessThanOrEqual(550 + timerLatenessMs);
    expect(a.count() + b.count()).toBeGreaterThanOrEqual(1);
  });

  it('an abort after the server received the request rejects ABORTED within 200 ms, and the server sees the connection close', async () => {
    // Wrapped in an object: resolving with a bare promise would wait for the close itself.
    let arrived: (value: { socketClosed: Promise<unknown> }) => void = () => undefined;
    const arrival = new Promise<{ socketClosed: Promise<unknown> }>((resolve) => (arrived = resolve));
    const server = await startRpcServer((_, { socket }) => arrived({ socketClosed: once(socket, 'close') }));
    const pool = createPool({ endpoints: [{ id: 'a', url: server.url }] });
    const controller = new AbortController();
    const call = rejection(pool.request('getSlot', [], { signal: controller.signal, timeoutMs: 10_000 }));

    const { socketClosed } = await arrival;
    const abortedAt = performance.now();
    controller.abort();
    const error = await call;
    expect(performance.now() - abortedAt).toBeLessThan(200);
    expect(error.code).toBe('ABORTED');
    await socketClosed;
    expect(performance.now() - abortedAt).toBeLessThan(1_000);
    expect(server.count()).toBe(1);
  });
});

describe('response bodies', () => {
  const bigResult = JSON.stringify('x'.repeat(64 * 1024));
  it.each<[string, RpcHandler]>([
    ['with content-length', (r, { res }) => sendResult(res, r.id, bigResult)],
    ['chunked, no content-length', (r, { res }) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(r.id)},"result":`);
      res.end(`${bigResult}}`);
    }],
  ])('a 64 KiB body over maxResponseBytes 1024 (%s) is not accepted: the read goes to the peer', async (_, oversized) => {
    const t = await badThenGood(oversized, {}, { maxResponseBytes: 1024 });
    await expect(t.pool.request('getSlot', [])).resolves.toBe(12345);
    expect([t.bad.count(), t.good.count()]).toEqual([1, 1]);
    expect(t.failures).toEqual(['bad:invalid-response']);
  });

  it('a 64 KiB body over maxResponseBytes 1024 on the only endpoint fails without a result', async () => {
    const server = await startRpcServer((r, { res }) => sendResult(res, r.id, bigResult));
    const pool = createPool({ endpoints: [{ id: 'only', url: server.url }], maxResponseBytes: 1024, retry: { maxRetries: 0 } });
    const error = await rejection(pool.request('getSlot', []));
    expect(['INVALID_RESPONSE', 'RETRIES_EXHAUSTED']).toContain(error.code);
    expect(error.attempts).toEqual([expect.objectContaining({ cause: 'invalid-response' })]);
  });

  it('a gzip-compressed response is decoded', async () => {
    const server = await startRpcServer((r, { res }) => {
      const body = gzipSync(`{"jsonrpc":"2.0","id":${JSON.stringify(r.id)},"result":{"answer":[1,2,3]}}`);
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': body.length });
      res.end(body);
    });
    const pool = createPool({ endpoints: [{ id: 'gz', url: server.url }] });
    await expect(pool.request('getSlot', [])).resolves.toEqual({ answer: [1, 2, 3] });
    expect(server.received[0]?.headers['accept-encoding']).toMatch(/gzip/);
  });

  it('a u64-max balance arrives exact through createSolanaClient(pool).getBalance', async () => {
    const fixture = loadFixture('solana-getBalance-u64-max');
    const server = await startRpcServer(serveFixture(fixture));
    const sol = createSolanaClient(createPool({ endpoints: [{ id: 'sol', url: server.url }] }));
    const address = fixture.request.params[0] as string;
    await expect(sol.getBalance(address)).resolves.toEqual({ slot: 341197053n, value: 18446744073709551615n });
    expect(server.received[0]?.params).toEqual(fixture.request.params);
  });
});

describe('what reaches the server', () => {
  it('the endpoint headers, URL path and query arrive, and the request is one JSON-RPC POST body', async () => {
    const server = await startRpcServer(healthy);
    const pool = createPool({
      endpoints: [{ id: 'keyed', url: `${server.url}/v2/secret-key?api-key=abc&x=1`, headers: { 'x-api-key': 'k-123', Authorization: 'Bearer t' } }],
    });
    await expect(pool.request('getBalance', ['83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a'])).resolves.toBe(12345);
    const [received] = server.received;
    expect(received?.path).toBe('/v2/secret-key?api-key=abc&x=1');
    expect(received?.headers['x-api-key']).toBe('k-123');
    expect(received?.headers['authorization']).toBe('Bearer t');
    expect(received?.headers['content-type']).toBe('application/json');
    expect(received).toMatchObject({ method: 'getBalance', params: ['83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a'] });
    expect(JSON.parse(received?.body ?? '')).toMatchObject({ jsonrpc: '2.0', id: received?.id });
  });
});
