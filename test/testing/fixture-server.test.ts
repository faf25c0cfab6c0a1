import { afterEach, describe, expect, it } from 'vitest';
import { createEvmClient } from '../../src/evm/client.js';
import { createSolanaClient } from '../../src/solana/client.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { allFixtures, call, closeAll, fixtureNamed, healthyFixtures, poolFor, post, rejection, startServer } from './helpers.js';

/** The fixture server without behaviours: answers, ids, counts, batches, lifecycle. */

afterEach(closeAll);

const ADDRESS = '83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a';

describe('answering from fixtures', () => {
  it('answers typed Solana and EVM calls through the pool with the fixtures’ values', async () => {
    const server = await startServer({ fixtures: healthyFixtures() });
    const sol = createSolanaClient(poolFor(server.url, { chain: 'solana' }));
    const evm = createEvmClient(poolFor(server.url, { chain: 'evm' }));

    await expect(sol.getHealth()).resolves.toEqual({ healthy: true });
    await expect(sol.getVersion()).resolves.toEqual({ solanaCore: '1.16.7', featureSet: 2891131721 });
    await expect(sol.getGenesisHash()).resolves.toBe('5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d');
    await expect(evm.getBalance('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')).resolves.toBe(10_000n * 10n ** 18n);
    await expect(evm.getChainId()).resolves.toBe(1);
  });

  it('prefers the fixture whose params deep-equal the request’s, else the first of the method', async () => {
    const server = await startServer({ fixtures: healthyFixtures() });
    const sol = createSolanaClient(poolFor(server.url, { chain: 'solana' }));
    // solana-getBalance has [address, { commitment: 'confirmed' }]; solana-getBalance-u64-max has [address].
    await expect(sol.getBalance(ADDRESS, { commitment: 'confirmed' })).resolves.toEqual({ slot: 341197053n, value: 2039280n });
    await expect(sol.getBalance(ADDRESS)).resolves.toEqual({ slot: 341197053n, value: 18446744073709551615n });
    // No fixture has these params: the first getBalance fixture (by file name) answers.
    await expect(sol.getBalance(ADDRESS, { commitment: 'finalized' })).resolves.toEqual({ slot: 341197053n, value: 18446744073709551615n });
  });

  it('substitutes the request id (numbers and strings) and keeps the rest of the body byte for byte', async () => {
    const server = await startServer({ fixtures: healthyFixtures() });
    const original = fixtureNamed('solana-getBalance-u64-max').response.body;
    const byNumber = await call(server.url, 'getBalance', [ADDRESS], 4242);
    expect(byNumber.body).toBe(original.replace('"id":1', '"id":4242'));
    const byString = await call(server.url, 'getBalance', [ADDRESS], 'req-7');
    expect(byString.body).toBe(original.replace('"id":1', '"id":"req-7"'));
    expect(byString.headers.get('content-type')).toBe('application/json');
  });

  it('replays a fixture’s status, headers and non-JSON body as recorded', async () => {
    const server = await startServer({ fixtures: [fixtureNamed('fault-429-retry-after-seconds')] });
    const reply = await call(server.url, 'getBalance', [ADDRESS]);
    expect(reply).toMatchObject({ status: 429, body: 'Too Many Requests' });
    expect(reply.headers.get('retry-after')).toBe('2');
  });

  it('answers an unknown method with JSON-RPC -32601 carrying the request id', async () => {
    const server = await startServer({ fixtures: healthyFixtures() });
    const raw = await call(server.url, 'getNoSuchThing', [], 99);
    expect(raw.status).toBe(200);
    expect(JSON.parse(raw.body)).toEqual({ jsonrpc: '2.0', id: 99, error: { code: -32601, message: 'Method not found' } });

    const error = await rejection(poolFor(server.url).request('getNoSuchThing', []));
    expect(error.code).toBe('RPC_ERROR');
    expect(error.rpcCode).toBe(-32601);
  });

  it('answers a batch per item, in order, skipping notifications', async () => {
    const server = await startServer({ fixtures: healthyFixtures() });
    const raw = await post(
      server.url,
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'getHealth' },
        { jsonrpc: '2.0', method: 'getHealth' },
        { jsonrpc: '2.0', id: 'b', method: 'nope' },
        { jsonrpc: '2.0', id: 3, method: 'getBalance', params: [ADDRESS] },
      ]),
    );
    expect(raw.status).toBe(200);
    expect(raw.body).toBe(
      '[{"jsonrpc":"2.0","result":"ok","id":1},' +
        '{"jsonrpc":"2.0","id":"b","error":{"code":-32601,"message":"Method not found"}},' +
        '{"jsonrpc":"2.0","result":{"context":{"apiVersion":"2.2.1","slot":341197053},"value":18446744073709551615},"id":3}]',
    );
    expect(server.countByMethod()).toEqual({ getHealth: 2, nope: 1, getBalance: 1 });
  });

  it('answers a body that is not JSON with -32700 and id null', async () => {
    const server = await startServer({ fixtures: healthyFixtures() });
    const raw = await post(server.url, '{"jsonrpc":');
    expect(JSON.parse(raw.body)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    expect(server.requests).toEqual([expect.objectContaining({ method: '' })]);
  });
});

describe('request log', () => {
  it('counts every call per method, so a send is seen to arrive exactly once', async () => {
    const clock = createFakeClock({ startMs: 500 });
    const server = await startServer({ fixtures: healthyFixtures(), clock });
    const send = fixtureNamed('solana-sendTransaction');
    const sol = createSolanaClient(poolFor(server.url, { chain: 'solana' }));

    await sol.getHealth();
    await sol.getHealth();
    await expect(sol.sendTransaction(send.request.params[0] as string)).resolves.toBe(send.expect?.['signature']);

    expect(server.count('sendTransaction')).toBe(1);
    expect(server.count('getHealth')).toBe(2);
    expect(server.count()).toBe(3);
    expect(server.countByMethod()).toEqual({ getHealth: 2, sendTransaction: 1 });
    expect(server.requests[2]).toMatchObject({ method: 'sendTransaction', params: send.request.params, atMs: 500 });
    expect(typeof server.requests[2]?.id).toBe('number');
  });

  it('reset() clears the log; waitForRequests resolves when the count is reached', async () => {
    const server = await startServer({ fixtures: healthyFixtures() });
    await call(server.url, 'getHealth');
    server.reset();
    expect(server.count()).toBe(0);
    const waiting = server.waitForRequests(2, 'getVersion');
    await call(server.url, 'getVersion');
    await call(server.url, 'getHealth');
    await call(server.url, 'getVersion');
    await expect(waiting).resolves.toBeUndefined();
    expect(server.count()).toBe(3);
  });
});

describe('lifecycle', () => {
  it('close() is idempotent, refuses new connections and rejects pending waits', async () => {
    const server = await startServer({ fixtures: allFixtures(), port: 0, host: '127.0.0.1' });
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    const waiting = server.waitForRequests(1);
    const first = server.close();
    expect(server.close()).toBe(first);
    await first;
    await expect(waiting).rejects.toThrow(/closed/);
    await expect(call(server.url, 'getHealth')).rejects.toThrow();
  });
});
