import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import type { EndpointConfig, HttpTransportPoolOptions } from '../../src/config/types.js';
import type { HttpExecutor, RawOutcome } from '../../src/http/executor.js';
import { HttpTransportPool } from '../../src/pool/http-transport-pool.js';
import type { ReputationEvent } from '../../src/api/events.js';
import { createFakeClock, type FakeClock } from '../../src/testing/fake-clock.js';
import { closeAllServers, sendBody, sendResult, startRpcServer, type RpcHandler, type RpcServer } from '../helpers/loopback.js';
import { createScriptedExecutor } from '../helpers/scripted-executor.js';

/**
 * Four endpoints, one misbehaving, 1 000 sequential reads: the first 200 are the warm-up,
 * the bad endpoint's share is measured over the next 800 (requests it received / calls).
 */
const CALLS = 1_000;
const WARM_UP = 200;
const MEASURED = CALLS - WARM_UP;

interface Run {
  /** Calls that resolved with a result, of all `CALLS`. */
  readonly successRate: number;
  /** Requests each endpoint received after the warm-up, divided by the calls made after it. */
  readonly shareAfterWarmUp: Record<string, number>;
  /** Endpoint of every successful call, in call order. */
  readonly served: readonly string[];
}

/**
 * Runs `CALLS` sequential `getSlot` calls. `requestsOf` reads what each endpoint received so
 * far (server-side counts); `between` runs after every call (e.g. to move a fake clock).
 */
async function run(
  pool: HttpTransportPool,
  requestsOf: () => Record<string, number>,
  between: () => Promise<void> = async () => undefined,
): Promise<Run> {
  const served: string[] = [];
  pool.on('success', (e) => served.push(e.endpointId));
  let succeeded = 0;
  let atWarmUp: Record<string, number> = {};
  for (let call = 0; call < CALLS; call++) {
    if (call === WARM_UP) atWarmUp = requestsOf();
    try {
      await pool.request('getSlot');
      succeeded++;
    } catch {
      // counted as a failed call
    }
    await between();
  }
  const atEnd = requestsOf();
  const shareAfterWarmUp = Object.fromEntries(Object.entries(atEnd).map(([id, n]) => [id, (n - (atWarmUp[id] ?? 0)) / MEASURED]));
  return { successRate: succeeded / CALLS, shareAfterWarmUp, served };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const shares = (r: Record<string, number>): string =>
  Object.entries(r)
    .map(([id, s]) => `${id} ${pct(s)}`)
    .join(', ');

/** Four loopback servers; endpoint i is `e<i>` on server i. */
async function servers(handlers: readonly RpcHandler[]): Promise<RpcServer[]> {
  return Promise.all(handlers.map((handler) => startRpcServer(handler)));
}
const healthy: RpcHandler = (request, { res }) => sendResult(res, request.id, '4242');
const receivedBy = (list: readonly RpcServer[]) => () => Object.fromEntries(list.map((s, i) => [`e${i}`, s.received.length]));

/** A pool on the scripted executor and a fake clock, endpoints `e0`…`e3` on separate hosts of one operator. */
function scriptedPool(clock: FakeClock, executor: HttpExecutor, options: Partial<HttpTransportPoolOptions> = {}): HttpTransportPool {
  const endpoints: EndpointConfig[] = [0, 1, 2, 3].map((i) => ({ id: `e${i}`, url: `https://node${i}.example.com/` }));
  return new HttpTransportPool({ endpoints, clock, random: createSeededRandom(7), executor, ...options });
}

afterEach(async () => {
  await closeAllServers();
});

describe('reputation scenarios (four endpoints, 1 000 reads)', () => {
  it('(a) moves traffic off an endpoint answering 40% of reads with HTTP 500, and keeps ≥ 99% of reads succeeding', async () => {
    // Deterministic 40%: of every five requests it receives, the 1st and 3rd get a 500.
    const flaky: RpcHandler = (request, { res, index }) => {
      if (index % 5 === 0 || index % 5 === 2) sendBody(res, 'Internal Server Error', 500, { 'content-type': 'text/plain' });
      else sendResult(res, request.id, '4242');
    };
    const list = await servers([flaky, healthy, healthy, healthy]);
    const endpoints = list.map((s, i) => ({ id: `e${i}`, url: s.url }));
    const pool = new HttpTransportPool({ endpoints, random: createSeededRandom(7) });
    const result = await run(pool, receivedBy(list));
    await pool.close();
    const bad = list[0]!;
    const failedOnBad = bad.received.filter((_, i) => i % 5 === 0 || i % 5 === 2).length;
    console.log(
      `(a) 40% HTTP 500 on e0 (loopback): success ${pct(result.successRate)}, e0 received ${bad.received.length} in all ` +
        `(${failedOnBad} answered 500), share after warm-up: ${shares(result.shareAfterWarmUp)}, e0 score ${JSON.stringify(
          pool.snapshot().endpoints[0]?.reputation,
        )}`,
    );
    expect(result.shareAfterWarmUp['e0']).toBeLessThan(0.05);
    expect(result.successRate).toBeGreaterThanOrEqual(0.99);
  });

  it('(b) benches an endpoint answering HTML with status 200: share after warm-up below 5%', async () => {
    const html: RawOutcome = { type: 'response', status: 200, headers: { 'content-type': 'text/html' }, body: '<html>Bad gateway</html>' };
    const outcomes: string[] = [];
    for (const [label, reputation] of [
      ['default bands', {}],
      ['bands flattened (detectors only)', { bands: { good: 0, fair: 0 }, eligibleScore: 0 }],
    ] as const) {
      const clock = createFakeClock();
      const executor = createScriptedExecutor({ e0: [html] });
      // Reputation alone: the bench loop's probes (which also reach e0) are measured in test/health.
      const pool = scriptedPool(clock, executor, { reputation, health: false });
      const trips: ReputationEvent[] = [];
      pool.on('reputation', (e) => trips.push(e));
      // One read per second: 1 000 s in all, long enough for cooldowns and recovery to matter.
      const result = await run(
        pool,
        () => Object.fromEntries([0, 1, 2, 3].map((i) => [`e${i}`, executor.countFor(`e${i}`)])),
        () => clock.advance(1_000),
      );
      const detectors = trips.filter((e) => e.change === 'cooldown-start').map((e) => `${e.detector}@${e.atMs / 1000}s`);
      outcomes.push(
        `${label}: success ${pct(result.successRate)}, e0 received ${executor.countFor('e0')}, share after warm-up ${pct(
          result.shareAfterWarmUp['e0'] ?? 0,
        )}, cooldowns [${detectors.join(' ')}], band changes ${trips.filter((e) => e.change === 'band').length}`,
      );
      expect(result.shareAfterWarmUp['e0']).toBeLessThan(0.05);
      expect(result.successRate).toBe(1);
      if (label !== 'default bands') expect(detectors[0]).toMatch(/^strikes@/);
    }
    console.log(`(b) HTML with status 200 on e0 (scripted, 1 read/s): ${outcomes.join(' | ')}`);
  });

  it.each([
    ['reputation alone (balance: false, hedge: false)', { balance: false, hedge: false }, true],
    ['latency-aware choice and hedging (the defaults)', {}, false],
  ] as const)('(c) moves traffic off a laggard answering in 2 000 ms (Solana profile) while the others answer in 50 ms: %s', async (label, extra, reputationDemotes) => {
    const clock = createFakeClock();
    const inner = createScriptedExecutor();
    // Latency on the fake clock: the answer comes after the clock has moved.
    const executor: HttpExecutor = {
      async execute(request) {
        await clock.advance(request.target.endpointId === 'e0' ? 2_000 : 50);
        return inner.execute(request);
      },
      close: () => inner.close(),
    };
    const pool = scriptedPool(clock, executor, { chain: 'solana', ...extra });
    const bands: string[] = [];
    pool.on('reputation', (e) => {
      if (e.endpointId === 'e0' && e.change === 'band') bands.push(`${e.band}@${e.score}`);
    });
    const result = await run(pool, () => Object.fromEntries([0, 1, 2, 3].map((i) => [`e${i}`, inner.countFor(`e${i}`)])));
    const reputation = pool.snapshot().endpoints[0]?.reputation;
    console.log(
      `(c) ${label}: laggard e0 at 2 000 ms vs 50 ms (solana profile): success ${pct(result.successRate)}, e0 received ${inner.countFor('e0')}, ` +
        `share after warm-up: ${shares(result.shareAfterWarmUp)}, e0 band changes [${bands.join(' ')}], final ${reputation?.band} ${reputation?.score}`,
    );
    // Reputation demotes the laggard when it keeps its share of traffic; latency-aware choice
    // takes the traffic off it so early that reputation never has to.
    if (reputationDemotes) {
      expect(reputation?.band).not.toBe('good');
      expect(bands.length).toBeGreaterThan(0);
    }
    expect(result.shareAfterWarmUp['e0']).toBeLessThan(reputationDemotes ? 0.1 : 0.05);
    expect(result.successRate).toBe(1);
  });

  it('(d) holds an operator with three of four endpoints under the 0.65 cap, a ceiling on every prefix (loopback servers, operators by config)', async () => {
    const list = await servers([healthy, healthy, healthy, healthy]);
    const operators = ['alpha-rpc.com', 'alpha-rpc.com', 'alpha-rpc.com', 'beta-node.net'];
    const endpoints = list.map((s, i) => ({ id: `e${i}`, url: s.url, operator: operators[i]! }));
    // A clock that stands still: the four servers are equally fast, and a scheduler stall on a loaded machine
    // must not make one of them a latency outlier (the cap yields to those, by design).
    const pool = new HttpTransportPool({ endpoints, clock: createFakeClock(), random: createSeededRandom(7), concentration: { maxOperatorShare: 0.65 } });
    const reshapes: unknown[] = [];
    pool.on('reshape', (e) => reshapes.push(e));
    const result = await run(pool, receivedBy(list));
    await pool.close();
    const alpha = result.served.filter((id) => id !== 'e3').length;
    // The cap is a ceiling (latency decides below it): how far alpha ever got above 0.65 of a prefix.
    let worst = 0;
    let taken = 0;
    result.served.forEach((id, i) => {
      if (id !== 'e3') taken++;
      worst = Math.max(worst, taken - 0.65 * (i + 1));
    });
    const perServer = list.map((s, i) => `e${i} ${s.received.length}`).join(', ');
    console.log(
      `(d) cap 0.65, alpha-rpc.com ×3 + beta-node.net ×1 (loopback): alpha share ${pct(alpha / CALLS)} (${alpha}/${CALLS}), ` +
        `most above the cap on a prefix ${worst.toFixed(2)} requests, servers received: ${perServer}, reshape events ${reshapes.length}`,
    );
    expect(result.successRate).toBe(1);
    expect(alpha).toBeLessThanOrEqual(651);
    expect(worst).toBeLessThanOrEqual(1 + 1e-9);
    expect(reshapes.length).toBe(2); // one per kind (read, submit) of the reshaped tier
  });
});
