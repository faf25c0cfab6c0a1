import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import { TransportError } from '../../src/errors/transport-error.js';
import type { RawOutcome } from '../../src/http/executor.js';
import { SOLANA_GENESIS_HASHES } from '../../src/solana/clusters.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { closePools, createPool } from '../helpers/pools.js';
import { createScriptedExecutor, ok } from '../helpers/scripted-executor.js';
import { track } from './pool-fixtures.js';

/**
 * A call that times out in admission (`DEADLINE_EXCEEDED`, no attempt made) says what it was
 * waiting for: `context.waitingFor` names every candidate endpoint and what kept it out, and
 * the message says the same in words — endpoint ids only, never a URL or key.
 */

afterEach(closePools);

const connectRefused: RawOutcome = { type: 'error', kind: 'connect', dispatched: false, code: 'ECONNREFUSED' };
/** URLs hiding keys in the subdomain, path, query and userinfo: none may reach an error. */
const SECRET_URLS = {
  primary: 'https://user:pa55word@sk-live-0123456789abcdef.rpc.example.com/v2/KEYPATH9876543210?api-key=QUERYKEY55555',
  backup: 'https://backup.example.org/apikey/BACKUPKEY000111222',
};
const SECRETS = ['pa55word', 'sk-live-0123456789abcdef', 'KEYPATH9876543210', 'QUERYKEY55555', 'BACKUPKEY000111222'];

function expectNoSecret(error: TransportError): void {
  const visible = JSON.stringify({ message: error.message, context: error.context, attempts: error.attempts });
  for (const secret of SECRETS) expect(visible).not.toContain(secret);
}

describe('DEADLINE_EXCEEDED while waiting for admission says why', () => {
  it('names a chain check that cannot connect, with its last cause, after 10 s and 0 attempts', async () => {
    const clock = createFakeClock();
    const executor = createScriptedExecutor({ primary: [connectRefused] });
    const pool = createPool({
      endpoints: [{ id: 'primary', url: SECRET_URLS.primary }],
      expectedChain: { genesisHash: SOLANA_GENESIS_HASHES['mainnet-beta'] },
      executor,
      clock,
      random: createSeededRandom(1),
    });
    const call = track(pool.request('getSlot', [], { timeoutMs: 10_000 }), clock);
    await clock.advance(10_000);
    // Checks at 0, 1 s, 3 s and 7 s all fail; the next is due at 15 s, past the deadline: it fails at once, at 7 s.
    expect(call.atMs).toBe(7_000);

    const error = call.error as TransportError<'DEADLINE_EXCEEDED'>;
    expect(error).toBeInstanceOf(TransportError);
    expect(error.code).toBe('DEADLINE_EXCEEDED');
    expect(error.attempts).toEqual([]);
    expect(executor.countFor('primary', 'getSlot')).toBe(0);
    expect(executor.countFor('primary', 'getGenesisHash')).toBe(4);
    expect(error.context.waitingFor).toEqual([{ endpointId: 'primary', reason: 'chain-check', lastCause: 'connection', remainingMs: 8_000 }]);
    expect(error.context.timeoutMs).toBe(10_000);
    expect(error.message).toBe("No endpoint can admit a 'read' call within 10000 ms; waiting for primary: chain check not passed (last: connection), 8000 ms left");
    expectNoSecret(error);
  });

  it('names a benched endpoint, a rate-limit cooldown, a full concurrency limit, a spent RPS budget and an open breaker', async () => {
    const clock = createFakeClock();
    const executor = createScriptedExecutor({});
    const pool = createPool({
      endpoints: [
        { id: 'benched', url: SECRET_URLS.primary, tier: 0 },
        { id: 'cooling', url: SECRET_URLS.backup, tier: 0, pauseAfterRateLimitMs: 60_000 },
        { id: 'busy', url: 'https://busy.example.net/', tier: 1, maxConcurrentRequests: 1 },
        { id: 'metered', url: 'https://metered.example.io/', tier: 1, requestsPerSecond: 0.01, burstCapacity: 1 },
        { id: 'broken', url: 'https://broken.example.dev/', tier: 2 },
      ],
      executor,
      clock,
      random: createSeededRandom(1),
    });
    // Five critical failures: the consecutive-strikes detector benches `benched` for 5 min.
    for (let i = 0; i < 5; i++) (await pool.acquireForMethod('getSlot', { endpoint: 'benched' })).recordFailure('invalid-response');
    (await pool.acquireForMethod('getSlot', { endpoint: 'cooling' })).recordRateLimited(60_000);
    const held = await pool.acquireForMethod('getSlot', { endpoint: 'busy' });
    (await pool.acquireForMethod('getSlot', { endpoint: 'metered' })).recordSuccess(1);
    // Five connection failures (major, no strike): its host's breaker opens for 1 min; the score (30) stays eligible.
    for (let i = 0; i < 5; i++) (await pool.acquireForMethod('getSlot', { endpoint: 'broken' })).recordFailure('connection');

    const call = track(pool.request('getSlot', [], { timeoutMs: 1_000 }), clock);
    await clock.advance(1_000);
    const error = call.error as TransportError<'DEADLINE_EXCEEDED'>;
    expect(error.code).toBe('DEADLINE_EXCEEDED');
    expect(error.attempts).toEqual([]);
    expect(error.context.waitingFor).toEqual([
      { endpointId: 'benched', reason: 'benched', lastCause: 'invalid-response', remainingMs: 299_000 },
      { endpointId: 'cooling', reason: 'cooldown', lastCause: 'rate-limited', remainingMs: 59_000 },
      { endpointId: 'busy', reason: 'concurrency' },
      { endpointId: 'metered', reason: 'rate', remainingMs: 99_000 },
      { endpointId: 'broken', reason: 'breaker', lastCause: 'connection', remainingMs: 59_000 },
    ]);
    expect(error.message).toBe(
      "No endpoint could admit a 'read' call within 1000 ms; waiting for benched: benched by reputation (last: invalid-response), 299000 ms left; " +
        'cooling: rate-limit cooldown, 59000 ms left; busy: all maxConcurrentRequests permits in use; metered: requestsPerSecond budget spent, 99000 ms left; ' +
        'broken: host breaker open (last: connection), 59000 ms left',
    );
    expect(executor.received).toEqual([]);
    expectNoSecret(error);
    held.release();
  });

  it('after a failed attempt, a retry that cannot be admitted in time keeps the reasons and the attempt', async () => {
    const clock = createFakeClock();
    const http503: RawOutcome = { type: 'response', status: 503, headers: {}, body: '<html>503</html>' };
    const executor = createScriptedExecutor({ first: [http503] });
    const pool = createPool({
      endpoints: [
        { id: 'first', url: 'https://first.example.com/', tier: 0 },
        { id: 'second', url: 'https://second.example.org/', tier: 1, maxConcurrentRequests: 1 },
      ],
      retry: { maxRetries: 3, initialBackoffMs: 5_000, maxBackoffMs: 5_000 },
      hedge: false,
      executor,
      clock,
      random: createSeededRandom(1),
    });
    const held = await pool.acquireForMethod('getSlot', { endpoint: 'second' });
    const call = track(pool.request('getSlot', [], { timeoutMs: 1_000 }), clock);
    await clock.advance(1_000);
    const error = call.error as TransportError<'DEADLINE_EXCEEDED'>;
    expect(error.code).toBe('DEADLINE_EXCEEDED');
    expect(error.attempts).toMatchObject([{ endpointId: 'first', cause: 'temporary-http', status: 503 }]);
    expect(error.context).toEqual({
      timeoutMs: 1_000,
      waitingFor: [
        { endpointId: 'first', reason: 'backoff', lastCause: 'temporary-http', remainingMs: 4_000 },
        { endpointId: 'second', reason: 'concurrency' },
      ],
    });
    expect(error.message).toBe(
      'getSlot did not complete within 1000 ms; waiting for first: retry backoff (last: temporary-http), 4000 ms left; ' +
        'second: all maxConcurrentRequests permits in use [attempts: first: temporary-http 503]',
    );
    expect(executor.countFor('first')).toBe(1);
    held.release();
  });

  it('a pinned call names only its endpoint', async () => {
    const clock = createFakeClock();
    const executor = createScriptedExecutor({ a: [(_request, id) => ok(1, id)] });
    const pool = createPool({
      endpoints: [
        { id: 'a', url: 'https://a.example.com/', maxConcurrentRequests: 1 },
        { id: 'b', url: 'https://b.example.com/' },
      ],
      executor,
      clock,
      random: createSeededRandom(1),
    });
    const held = await pool.acquireForMethod('getSlot', { endpoint: 'a' });
    const call = track(pool.request('getSlot', [], { timeoutMs: 500, endpoint: 'a' }), clock);
    await clock.advance(500);
    expect((call.error as TransportError<'DEADLINE_EXCEEDED'>).context.waitingFor).toEqual([{ endpointId: 'a', reason: 'concurrency' }]);
    held.release();
  });
});
