// An application imports these from 'sturdy-rpc' and 'sturdy-rpc/testing'.
/**
 * The bot's behaviour when a node misbehaves, proven against real HTTP fixture servers on
 * 127.0.0.1 and a fake clock shared by the pool, the servers and the bot: time moves only
 * on `clock.advance()`, so deadlines and cooldowns are asserted to the millisecond.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom, HttpTransportPool, type EndpointConfig, type RateLimitedEvent, type RpcRequester } from '../../src/index.js';
import { createFakeClock, createFixtureServer, type FakeClock, type Fixture, type FixtureServer, type FixtureServerBehaviours } from '../../src/testing/index.js';
import { createBalanceBot } from './bot.js';

const POOR = '83astBRguLMdt2h5U1Tpdq5tjFoJ6noeGwaoBRRS3w5a';
const RICH = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const MIN_LAMPORTS = 1_000_000n;

/** What a node answers to `getBalance(wallet, { commitment: 'confirmed' })`. */
function balance(wallet: string, lamports: bigint): Fixture {
  const body = `{"jsonrpc":"2.0","id":1,"result":{"context":{"slot":341197053},"value":${lamports}}}`;
  const request = { method: 'getBalance', params: [wallet, { commitment: 'confirmed' }] };
  return { name: `balance-${wallet}`, source: 'bot.test.ts', chain: 'solana', request, response: { status: 200, headers: {}, body } };
}
const fixtures = [balance(POOR, 500_000n), balance(RICH, 18_446_744_073_709_551_615n)];

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function node(clock: FakeClock, behaviours: FixtureServerBehaviours = []): Promise<FixtureServer> {
  const server = await createFixtureServer({ fixtures, behaviours, clock });
  cleanups.push(() => server.close());
  return server;
}

/** A pool on the fake clock; one endpoint `node` on `target` unless endpoints are given. */
function pool(clock: FakeClock, target: FixtureServer | EndpointConfig[]): HttpTransportPool {
  const endpoints = Array.isArray(target) ? target : [{ id: 'node', url: target.url }];
  const created = new HttpTransportPool({ endpoints, clock, random: createSeededRandom(1), chain: 'solana' });
  cleanups.push(() => created.close());
  return created;
}

const botOn = (rpc: RpcRequester, clock: FakeClock, wallets = [POOR]) =>
  createBalanceBot({ rpc, wallets, minLamports: MIN_LAMPORTS, readTimeoutMs: 2_000, clock });

/** Tracks whether a promise has settled, so a test can assert "not yet" at a given instant. */
function track<T>(promise: Promise<T>): { readonly settled: () => boolean; readonly promise: Promise<T> } {
  let settled = false;
  void promise.finally(() => (settled = true)).catch(() => undefined);
  return { settled: () => settled, promise };
}

describe('the balance bot', () => {
  it('tops up a wallet below the minimum and holds one above it, reading u64 balances exactly', async () => {
    const clock = createFakeClock();
    const server = await node(clock);
    const bot = botOn(pool(clock, server), clock, [POOR, RICH]);

    await expect(bot.checkOnce()).resolves.toEqual([
      { wallet: POOR, action: 'top-up', lamports: 500_000n, atMs: 0 },
      { wallet: RICH, action: 'hold', lamports: 18_446_744_073_709_551_615n, atMs: 0 },
    ]);
    expect(server.count('getBalance')).toBe(2);
  });

  it('skips a wallet (never tops up) when the only node hangs, deciding exactly at the read deadline', async () => {
    const clock = createFakeClock();
    const server = await node(clock, [{ type: 'hang' }]);
    const bot = botOn(pool(clock, server), clock);

    const check = track(bot.checkOnce());
    await server.waitForRequests(1, 'getBalance');
    await clock.advance(1_999);
    expect(check.settled()).toBe(false);
    await clock.advance(1);
    await expect(check.promise).resolves.toEqual([{ wallet: POOR, action: 'skip', reason: 'DEADLINE_EXCEEDED', atMs: 2_000 }]);
    expect(server.count('getBalance')).toBe(1);
  });

  it('decides from the backup when the primary hangs, exactly one attempt timeout later', async () => {
    const clock = createFakeClock();
    const primary = await node(clock, [{ type: 'hang' }]);
    const backup = await node(clock);
    const rpc = pool(clock, [
      { id: 'primary', url: primary.url, tier: 0, requestTimeoutMs: 500 },
      { id: 'backup', url: backup.url, tier: 1, requestTimeoutMs: 500 },
    ]);
    const bot = botOn(rpc, clock);

    const check = track(bot.checkOnce());
    await primary.waitForRequests(1, 'getBalance');
    await clock.advance(499);
    expect(check.settled()).toBe(false);
    expect(backup.count()).toBe(0);
    await clock.advance(1);
    await expect(check.promise).resolves.toEqual([{ wallet: POOR, action: 'top-up', lamports: 500_000n, atMs: 500 }]);
    expect(backup.requests.map((r) => r.atMs)).toEqual([500]);
  });

  it('honours Retry-After: the node gets no request during its 5 s cooldown, and the first poll after it is served', async () => {
    const clock = createFakeClock();
    const server = await node(clock, [{ type: 'rate-limit', retryAfterSeconds: 5 }]);
    const rpc = pool(clock, server);
    const bot = botOn(rpc, clock);
    const rateLimited = new Promise<RateLimitedEvent>((resolve) => rpc.on('rate-limited', resolve));

    // t = 0: answered 429 + Retry-After: 5 (the pool has read it before time moves). No endpoint
    // can take the read before its 2 s deadline, so the pool says RATE_LIMITED at once.
    const first = track(bot.checkOnce());
    await expect(rateLimited).resolves.toMatchObject({ atMs: 0, providerDelayMs: 5_000, cooldownMs: 5_000 });
    server.setBehaviours([]);
    await clock.advance(0);
    await expect(first.promise).resolves.toEqual([{ wallet: POOR, action: 'skip', reason: 'RATE_LIMITED', atMs: 0 }]);

    // t = 2000: still cooling down for 3 s, past this read's deadline: nothing is sent, it fails at once.
    await clock.advance(2_000);
    const second = track(bot.checkOnce());
    await clock.advance(0);
    await expect(second.promise).resolves.toEqual([{ wallet: POOR, action: 'skip', reason: 'RATE_LIMITED', atMs: 2_000 }]);
    await clock.advance(2_000);

    // t = 4000: the cooldown ends at 5000, within this read's deadline.
    const third = track(bot.checkOnce());
    await clock.advance(1_000);
    await expect(third.promise).resolves.toEqual([{ wallet: POOR, action: 'top-up', lamports: 500_000n, atMs: 5_000 }]);
    expect(server.requests.map((r) => r.atMs)).toEqual([0, 5_000]);
  });

  it('polls every intervalMs on its clock until aborted', async () => {
    const clock = createFakeClock();
    const server = await node(clock);
    const inner = pool(clock, server);
    // Records the instant the bot starts each read (the server logs arrivals, which follow real I/O).
    const readsAtMs: number[] = [];
    const rpc: RpcRequester = { request: (method, params, options) => (readsAtMs.push(clock.now()), inner.request(method, params, options)) };
    const bot = botOn(rpc, clock, [RICH]);
    const stop = new AbortController();
    let wake = () => {};
    const polled = () => new Promise<void>((resolve) => (wake = resolve));
    let next = polled();
    const running = bot.run({ intervalMs: 1_000, signal: stop.signal, onDecisions: () => wake() });

    for (let i = 0; i < 2; i++) {
      await next;
      next = polled();
      await clock.advance(1_000);
    }
    await next;
    stop.abort();
    await running;
    expect(readsAtMs).toEqual([0, 1_000, 2_000]);
    expect(server.count('getBalance')).toBe(3);
    expect(clock.pendingTimers).toBe(0);
  });
});
