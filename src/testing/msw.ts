/**
 * `sturdy-rpc/testing/msw`: msw@2 request handlers that answer JSON-RPC calls from
 * fixtures. A separate entry point so that `sturdy-rpc/testing` never imports msw (an
 * optional peer dependency). No Node APIs: the handlers also work with `msw/browser`.
 *
 * @module sturdy-rpc/testing/msw
 */
import { http, HttpResponse, type HttpHandler } from 'msw';
import type { Fixture } from './fixtures.js';
import { answerBody, answerCall, callsOf, parseRequestBody } from './replay.js';

/** One JSON-RPC call a handler answered (a batch reports one per item). */
export interface FixtureHandlerCall {
  /** `''` when the body was not JSON or the item had no string method. */
  readonly method: string;
  readonly params: unknown;
  readonly id: unknown;
  /** The request URL (for your assertions; never stored by sturdy-rpc). */
  readonly url: string;
}

export interface FixtureHandlersOptions {
  /**
   * Which POST requests to answer: an absolute URL, an msw path pattern
   * (`'https://rpc.test/*'`), a RegExp, or several of them.
   * @default '*' (every POST request)
   */
  readonly url?: string | RegExp | readonly (string | RegExp)[];
  /** Called with every call answered, in arrival order (e.g. to assert "sent exactly once"). */
  readonly onRequest?: (call: FixtureHandlerCall) => void;
}

/**
 * msw handlers answering the same way as the fixture server without behaviours: a method is
 * matched by name (among several fixtures of one method, the first whose params deep-equal
 * the request's, else the first); the fixture's status, headers and exact body are replayed
 * with the request id substituted; unknown methods get JSON-RPC -32601; batches are
 * answered per item.
 *
 * msw intercepts `fetch`, so give the pool the fetch executor (the default undici executor
 * bypasses msw).
 *
 * Vitest recipe:
 *
 * ```ts
 * import { setupServer } from 'msw/node';
 * import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
 * import { HttpTransportPool, createFetchExecutor } from 'sturdy-rpc';
 * import { createSolanaClient, solanaClusterOf } from 'sturdy-rpc/solana';
 * import { loadFixtures } from 'sturdy-rpc/testing';
 * import { fixtureHandlers } from 'sturdy-rpc/testing/msw';
 *
 * // Your recordings of a healthy node (see fixtures/README.md for how a method is matched).
 * const calls: string[] = [];
 * const server = setupServer(
 *   ...fixtureHandlers(loadFixtures('test/fixtures/healthy'), {
 *     url: 'https://rpc.test/*',
 *     onRequest: (call) => calls.push(call.method),
 *   }),
 * );
 * beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
 * afterEach(() => {
 *   server.resetHandlers();
 *   calls.length = 0;
 * });
 * afterAll(() => server.close());
 *
 * it('checks the node is on mainnet before trading', async () => {
 *   const pool = new HttpTransportPool({
 *     endpoints: [{ id: 'test', url: 'https://rpc.test/my-key' }],
 *     executor: createFetchExecutor(),
 *   });
 *   const sol = createSolanaClient(pool);
 *   expect(solanaClusterOf(await sol.getGenesisHash())).toBe('mainnet-beta');
 *   expect(calls).toEqual(['getGenesisHash']);
 *   await pool.close();
 * });
 * ```
 */
export function fixtureHandlers(fixtures: readonly Fixture[], options: FixtureHandlersOptions = {}): HttpHandler[] {
  const patterns: readonly (string | RegExp)[] =
    options.url === undefined ? ['*'] : typeof options.url === 'string' || options.url instanceof RegExp ? [options.url] : options.url;
  const onRequest = options.onRequest;
  return patterns.map((pattern) =>
    http.post(pattern, async ({ request }) => {
      const parsed = parseRequestBody(await request.text());
      if (onRequest !== undefined) {
        const calls = callsOf(parsed);
        if (calls.length === 0) onRequest({ method: '', params: undefined, id: null, url: request.url });
        for (const call of calls) onRequest({ method: call.method, params: call.params, id: call.id, url: request.url });
      }
      const answer = answerBody(parsed, (call) => answerCall(fixtures, call));
      return new HttpResponse(answer.status === 204 ? null : answer.body, { status: answer.status, headers: { ...answer.headers } });
    }),
  );
}
