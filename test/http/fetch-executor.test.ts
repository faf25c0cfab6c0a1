import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFetchExecutor } from '../../src/http/fetch-executor.js';
import { call, closedAfterEach, expectError, startHttp, startStallingBody } from '../helpers/http-server.js';
import { describeExecutorContract } from './executor-contract.js';

type Options = Parameters<typeof createFetchExecutor>[0];

describeExecutorContract<Options>('createFetchExecutor', createFetchExecutor, {
  decodes: ['gzip', 'br'],
  codes: {},
  observeHeaders() {
    let headersArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (headersArrived = resolve));
    const observed: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      setImmediate(headersArrived); // after the executor has the response
      return response;
    };
    return { options: { fetch: observed }, arrived };
  },
});

const executor = closedAfterEach<Options>(createFetchExecutor);
afterEach(() => vi.unstubAllGlobals());

describe('createFetchExecutor', () => {
  it('looks up globalThis.fetch at call time, so interceptors installed later see the call', async () => {
    const e = executor();
    const intercepted = vi.fn(async () => new Response('{"result":1}', { status: 200 }));
    vi.stubGlobal('fetch', intercepted);

    const outcome = await e.execute(call('http://rpc.invalid/'));

    expect(outcome).toMatchObject({ type: 'response', status: 200, body: '{"result":1}' });
    expect(intercepted).toHaveBeenCalledTimes(1);
  });

  it('an unproven failure (no connect code) is conservatively dispatched', async () => {
    const failing = vi.fn(async () => Promise.reject(new TypeError('Failed to fetch')));

    const outcome = expectError(await executor({ fetch: failing }).execute(call('http://rpc.invalid/')));

    expect(outcome).toMatchObject({ kind: 'other', dispatched: true });
  });

  it.each([
    ['ECONNREFUSED', false],
    ['ENOTFOUND', false],
    ['EAI_AGAIN', false],
    ['UND_ERR_CONNECT_TIMEOUT', false],
    // Also raised on an established socket whose path died after the request was written.
    ['EHOSTUNREACH', true],
    ['ENETUNREACH', true],
  ])('a fetch failure caused by %s is dispatched: %s', async (code, dispatched) => {
    const failing = vi.fn(async () => Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) })));

    const outcome = expectError(await executor({ fetch: failing }).execute(call('http://rpc.invalid/')));

    expect(outcome).toMatchObject({ dispatched, code });
  });

  it('a reset right as the response headers arrive keeps the status, reported as socket and dispatched', async () => {
    const { url, socket } = await startStallingBody();
    const resetOnceHeadersArrived: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      socket()?.resetAndDestroy();
      return response;
    };

    const outcome = expectError(await executor({ fetch: resetOnceHeadersArrived }).execute(call(url)));

    expect(outcome).toMatchObject({ kind: 'socket', dispatched: true, status: 200, code: 'ECONNRESET' });
  });

  it('after close() calls are refused without reaching the server', async () => {
    const { seen, url } = await startHttp((_req, res) => res.end('{}'));
    const e = createFetchExecutor();
    expect(await e.execute(call(url))).toMatchObject({ type: 'response' });

    await e.close();
    await e.close();
    const after = expectError(await e.execute(call(url)));

    expect(after).toMatchObject({ kind: 'other', dispatched: false });
    expect(seen).toHaveLength(1);
  });
});
