import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import { isTransportError } from '../../src/errors/transport-error.js';
import { createSolanaClient } from '../../src/solana/client.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { call, closeAll, fixtureNamed, healthyFixtures, poolFor, rejection, startServer } from './helpers.js';

/** Each failure behaviour of the fixture server, proven by what a client observes. */

afterEach(closeAll);

describe('429 rate limits', () => {
  it('answers 429 with Retry-After in seconds on every Nth call, which the pool reports', async () => {
    const clock = createFakeClock();
    const server = await startServer({
      fixtures: healthyFixtures(),
      clock,
      behaviours: [{ type: 'rate-limit', everyNth: 3, retryAfterSeconds: 7 }],
    });
    const sol = createSolanaClient(poolFor(server.url, { clock, random: createSeededRandom(1) }));
    const outcomes: string[] = [];
    for (let i = 0; i < 6; i++) {
      try {
        await sol.getHealth();
        outcomes.push('ok');
      } catch (error) {
        if (!isTransportError(error)) throw error;
        outcomes.push(`${error.code}:${JSON.stringify(error.context)}`);
        // The endpoint cools down for the announced 7 s; let that pass on the shared fake clock.
        await clock.advance(7000);
      }
    }
    expect(outcomes).toEqual(['ok', 'ok', 'RATE_LIMITED:{"retryAfterMs":7000}', 'ok', 'ok', 'RATE_LIMITED:{"retryAfterMs":7000}']);
    expect(server.count('getHealth')).toBe(6);
  });

  it('writes Retry-After as an HTTP-date on the server’s wall clock', async () => {
    const clock = createFakeClock({ wallStartMs: 1_700_000_000_000 });
    const server = await startServer({
      fixtures: healthyFixtures(),
      clock,
      behaviours: [{ type: 'rate-limit', retryAfter: 'http-date', retryAfterSeconds: 5 }],
    });
    const raw = await call(server.url, 'getHealth', [], 8);
    expect(raw.status).toBe(429);
    expect(raw.headers.get('date')).toBe('Tue, 14 Nov 2023 22:13:20 GMT');
    expect(raw.headers.get('retry-after')).toBe('Tue, 14 Nov 2023 22:13:25 GMT');
    expect(JSON.parse(raw.body)).toEqual({ jsonrpc: '2.0', id: 8, error: { code: 429, message: 'Too many requests' } });

    const error = await rejection(createSolanaClient(poolFor(server.url, { clock })).getHealth());
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.context).toEqual({ retryAfterMs: 5000 });
  });

  it('answers 429 above a request rate, in a one-second window on the injected clock', async () => {
    const clock = createFakeClock();
    const server = await startServer({
      fixtures: healthyFixtures(),
      clock,
      behaviours: { getHealth: [{ type: 'rate-limit', requestsPerSecond: 2, body: 'text' }] },
    });
    const statuses = async (n: number, method = 'getHealth') => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await call(server.url, method)).status);
      return out;
    };
    expect(await statuses(3)).toEqual([200, 200, 429]);
    expect(await statuses(2, 'getVersion')).toEqual([200, 200]); // the limit is per method here
    await clock.advance(999);
    expect(await statuses(1)).toEqual([429]);
    await clock.advance(1);
    expect(await statuses(3)).toEqual([200, 200, 429]);
    expect(server.count('getHealth')).toBe(7);
  });
});

describe('HTTP errors and bad bodies', () => {
  it('answers a 5xx with an HTML page, which the pool reports as a temporary HTTP failure', async () => {
    const server = await startServer({ fixtures: healthyFixtures(), behaviours: [{ type: 'http-error', status: 502 }] });
    const error = await rejection(createSolanaClient(poolFor(server.url)).getVersion());
    expect(error.attempts).toEqual([expect.objectContaining({ status: 502, cause: 'temporary-http' })]);
    const raw = await call(server.url, 'getVersion');
    expect(raw.headers.get('content-type')).toBe('text/html');
    expect(raw.body).toContain('<title>502 Bad Gateway</title>');
  });

  it('answers a 5xx with a JSON-RPC error body carrying the request id', async () => {
    const server = await startServer({ fixtures: healthyFixtures(), behaviours: [{ type: 'http-error', status: 500, body: 'json' }] });
    const raw = await call(server.url, 'getVersion', [], 31);
    expect(raw.status).toBe(500);
    expect(JSON.parse(raw.body)).toEqual({ jsonrpc: '2.0', id: 31, error: { code: -32603, message: 'Internal Server Error' } });
  });

  it('answers an HTML page with status 200, which the pool reports as INVALID_RESPONSE', async () => {
    const server = await startServer({ fixtures: healthyFixtures(), behaviours: [{ type: 'html' }] });
    const error = await rejection(createSolanaClient(poolFor(server.url)).getHealth());
    expect(error.code).toBe('INVALID_RESPONSE');
    expect(error.attempts).toEqual([expect.objectContaining({ status: 200, cause: 'invalid-response' })]);
  });

  it('truncates the JSON answer to a prefix of the real one, which the pool reports as INVALID_RESPONSE', async () => {
    const server = await startServer({ fixtures: healthyFixtures(), behaviours: { getBalance: [{ type: 'truncate', keepRatio: 0.6 }] } });
    const params = fixtureNamed('solana-getBalance').request.params as unknown[];
    const full = fixtureNamed('solana-getBalance').response.body;
    const raw = await call(server.url, 'getBalance', params);
    expect(raw.status).toBe(200);
    expect(raw.body).toBe(full.slice(0, Math.floor(full.length * 0.6)));
    const error = await rejection(poolFor(server.url).request('getBalance', params));
    expect(error.code).toBe('INVALID_RESPONSE');
    // Other methods are untouched.
    expect((await call(server.url, 'getHealth')).body).toBe('{"jsonrpc":"2.0","result":"ok","id":1}');
  });
});

describe('connections that end without an answer', () => {
  it('resets after reading a send: the pool reports AMBIGUOUS_DISPATCH and the node saw it exactly once', async () => {
    const send = fixtureNamed('solana-sendTransaction');
    const server = await startServer({ fixtures: healthyFixtures(), behaviours: { sendTransaction: [{ type: 'reset' }] } });
    const peer = await startServer({ fixtures: healthyFixtures() });
    const pool = poolFor(server.url, {
      endpoints: [
        { id: 'resetting', url: server.url, tier: 0 },
        { id: 'peer', url: peer.url, tier: 1 },
      ],
      retry: { maxRetries: 3, initialBackoffMs: 1, maxBackoffMs: 1 },
    });
    const sol = createSolanaClient(pool);
    const error = await rejection(sol.sendTransaction(send.request.params[0] as string));
    expect(error.code).toBe('AMBIGUOUS_DISPATCH');
    expect(error.signature).toBe(send.expect?.['signature']);
    expect(server.count('sendTransaction')).toBe(1);
    expect(peer.count('sendTransaction')).toBe(0);
    // Reads on the same server are answered normally.
    await expect(sol.getHealth({ endpoint: 'resetting' })).resolves.toEqual({ healthy: true });
  });

  it('closes the connection before responding: the read fails as a connection failure after dispatch', async () => {
    const server = await startServer({ fixtures: healthyFixtures(), behaviours: [{ type: 'close' }] });
    const error = await rejection(createSolanaClient(poolFor(server.url)).getHealth());
    expect(error.attempts).toEqual([expect.objectContaining({ cause: 'connection', dispatch: 'dispatched-ambiguous' })]);
    expect(error.attempts[0]?.status).toBeUndefined();
    expect(server.count('getHealth')).toBe(1);
  });

  it('hangs until close(), which resolves promptly and ends the hanging call', async () => {
    const server = await startServer({ fixtures: healthyFixtures(), behaviours: [{ type: 'hang' }] });
    const pending = rejection(createSolanaClient(poolFor(server.url)).getHealth({ timeoutMs: 60_000 }));
    await server.waitForRequests(1);
    const started = performance.now();
    await server.close();
    const error = await pending;
    expect(performance.now() - started).toBeLessThan(2000);
    expect(error.attempts).toEqual([expect.objectContaining({ cause: 'connection', dispatch: 'dispatched-ambiguous' })]);
  });
});
