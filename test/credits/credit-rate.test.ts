import { afterEach, expect, test } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { closeHttpServers, startHttp } from '../helpers/http-server.js';
import { closePools, createPool } from '../helpers/pools.js';

afterEach(async () => {
  await closePools();
  closeHttpServers();
});

const PLAN = 100;
const COST: Readonly<Record<string, number>> = { eth_getLogs: 75, eth_blockNumber: 10 };

/**
 * Over real loopback sockets, on the test's fake clock: a plan of 100 credits/s with
 * eth_getLogs at 75 and eth_blockNumber at 10, and demand far above it. The node prices
 * what it received by the same table: over any 1 s window it never sees more than the plan
 * plus one burst (one second of credits), and over the run it sees the plan's rate.
 */
test('a credit plan paces what the node receives by credits, not requests', async () => {
  const clock = createFakeClock();
  const received: { atMs: number; credits: number }[] = [];
  const node = await startHttp((_req, res, body) => {
    const { id, method } = JSON.parse(body) as { id: number; method: string };
    received.push({ atMs: clock.now(), credits: COST[method]! });
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ jsonrpc: '2.0', id, result: method === 'eth_getLogs' ? [] : '0x10' }));
  });
  const pool = createPool({
    endpoints: [{ id: 'metered', url: node.url, plan: { creditsPerSecond: PLAN }, cost: COST }],
    clock,
    random: createSeededRandom(3),
    coalesce: false,
    cache: false,
    retry: { maxRetries: 0 },
    timeoutMs: 60_000,
  });
  // Demand: 40 callers, alternating a log query and a head read, each going again once answered.
  let running = true;
  const caller = async (index: number) => {
    for (let call = index; running; call++) {
      const method = call % 2 === 0 ? 'eth_getLogs' : 'eth_blockNumber';
      await pool.request(method, method === 'eth_getLogs' ? [{ fromBlock: '0x1', toBlock: '0x2' }] : []).catch(() => undefined);
    }
  };
  const callers = Array.from({ length: 40 }, (_, index) => caller(index));
  const RUN_MS = 8_000;
  for (let step = 0; step < RUN_MS / 5; step++) {
    await clock.advance(5);
    for (let spin = 0; spin < 50 && pool.snapshot().roles.some((role) => role.inFlight > 0); spin++) await new Promise((resolve) => setImmediate(resolve));
  }
  running = false;
  await clock.advance(60_000);
  await Promise.all(callers);

  // Every 1 s window, starting at each arrival: at most the plan plus one burst.
  const sent = received.filter((r) => r.atMs <= RUN_MS);
  let worst = 0;
  for (let i = 0, j = 0, sum = 0; i < sent.length; i++) {
    while (j < sent.length && sent[j]!.atMs < sent[i]!.atMs + 1_000) sum += sent[j++]!.credits;
    worst = Math.max(worst, sum);
    sum -= sent[i]!.credits;
  }
  expect(worst).toBeLessThanOrEqual(PLAN + PLAN);
  // And the plan is used, not starved: over the run, the burst plus close to 100 credits per second.
  const total = sent.reduce((sum, r) => sum + r.credits, 0);
  expect(total).toBeGreaterThanOrEqual(0.9 * PLAN * (RUN_MS / 1_000));
  expect(total).toBeLessThanOrEqual(PLAN * (RUN_MS / 1_000) + PLAN);
  // Both methods got through: a dear call waits for its credits, it is not starved by cheap ones.
  expect(sent.filter((r) => r.credits === 75).length).toBeGreaterThan(5);
  expect(sent.filter((r) => r.credits === 10).length).toBeGreaterThan(5);
});
