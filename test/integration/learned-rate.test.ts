import { afterEach, expect, test } from 'vitest';
import { TokenBucket } from '../../src/admission/token-bucket.js';
import type { RateLearnedEvent } from '../../src/api/events.js';
import { createSeededRandom } from '../../src/clock.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { closeHttpServers, startHttp } from '../helpers/http-server.js';
import { closePools, createPool } from '../helpers/pools.js';

afterEach(async () => {
  await closePools();
  closeHttpServers();
});

const HIDDEN_LIMIT = 37;

/**
 * Over real loopback sockets: a node with a hidden limit of 37 req/s (a token bucket on the
 * test's fake clock, 429 with a JSON-RPC rate-limit error and no Retry-After above it), and
 * a pool with `requestsPerSecond: 'auto'` under demand well above it. Fake time advances in
 * 5 ms steps; between steps the sockets get to answer.
 */
test("an 'auto' role learns a hidden limit over real sockets: the node sees close to its limit, few 429s", async () => {
  const clock = createFakeClock();
  const hidden = new TokenBucket(HIDDEN_LIMIT, HIDDEN_LIMIT, clock.now());
  const perSecond = new Map<number, { ok: number; limited: number }>();
  const node = await startHttp((_req, res, body) => {
    const { id } = JSON.parse(body) as { id: number };
    const second = Math.floor(clock.now() / 1000);
    const tally = perSecond.get(second) ?? { ok: 0, limited: 0 };
    perSecond.set(second, tally);
    res.setHeader('content-type', 'application/json');
    if (hidden.tryTake(clock.now())) {
      tally.ok++;
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result: 1 }));
    } else {
      tally.limited++;
      res.statusCode = 429;
      res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32005, message: 'rate limit exceeded' } }));
    }
  });
  const lines: string[] = [];
  const logger = { debug: (_f: unknown, m: string) => lines.push(m), info: (_f: unknown, m: string) => lines.push(m), warn: () => undefined, error: () => undefined };
  const pool = createPool({
    endpoints: [{ id: 'node', url: node.url, requestsPerSecond: 'auto' }],
    clock,
    random: createSeededRandom(7),
    coalesce: false,
    retry: { maxRetries: 0 },
    timeoutMs: 2_000,
    logger,
  });
  const learned: RateLearnedEvent[] = [];
  pool.on('rate-learned', (event) => learned.push(event));

  // Demand: 80 callers, each sending again as soon as its call settles (bounded by fake time).
  let running = true;
  const caller = async () => {
    while (running) await pool.request('eth_blockNumber', []).catch(() => undefined);
  };
  const callers = Array.from({ length: 80 }, caller);
  for (let step = 0; step < 14_000 / 5; step++) {
    await clock.advance(5);
    // Let the sockets answer what this step admitted (bounded).
    for (let spin = 0; spin < 50 && pool.snapshot().roles.some((role) => role.inFlight > 0); spin++) await new Promise((resolve) => setImmediate(resolve));
  }
  const role = pool.snapshot().roles.find((r) => r.kind === 'read')!;
  running = false;
  await clock.advance(3_000);
  await Promise.all(callers);

  // What the node saw after the first 10 s: close to its limit accepted, few refused.
  const after = [10, 11, 12, 13].map((second) => perSecond.get(second) ?? { ok: 0, limited: 0 });
  const ok = after.reduce((sum, t) => sum + t.ok, 0);
  const limited = after.reduce((sum, t) => sum + t.limited, 0);
  expect(ok / after.length).toBeGreaterThanOrEqual(0.85 * HIDDEN_LIMIT);
  expect(limited / (ok + limited)).toBeLessThanOrEqual(0.03);
  expect(role.learnedRequestsPerSecond).toBeGreaterThanOrEqual(0.85 * HIDDEN_LIMIT);
  expect(learned.some((event) => event.endpointId === 'node' && event.reason === 'rate-limited')).toBe(true);
  expect(lines.some((line) => line.includes("endpoint 'node' (read) learned rate"))).toBe(true);
  // Secrets never leak: the node's URL is in no event and no line.
  expect(JSON.stringify(learned) + lines.join('\n')).not.toContain(node.url);
}, 60_000);
