import { register as globalRegistry, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import { registerPrometheusMetrics } from '../../src/metrics/prometheus.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { closePools, createPool } from '../helpers/pools.js';
import { answerAfter, createScriptedExecutor } from '../helpers/scripted-executor.js';

const SECRET = 'sk-live-0123456789abcdef';

afterEach(closePools);

function setup() {
  const clock = createFakeClock();
  const executor = createScriptedExecutor();
  const pool = createPool({
    endpoints: [
      { id: 'main', url: `https://${SECRET}.rpc.example.com/`, requestsPerSecond: 10, headers: { authorization: `Bearer ${SECRET}` } },
      { id: 'backup', url: `https://user:${SECRET}@rpc.example.org/v2/${SECRET}?key=${SECRET}`, tier: 1 },
    ],
    clock,
    random: createSeededRandom(4),
    executor,
    hedge: false,
    methods: { myBundleStatus: { kind: 'read', retryClass: 'idempotent' } },
  });
  return { clock, executor, pool };
}

/** The value of one sample line of the exposition text, e.g. `sturdy_rpc_calls_total{kind="read",...}`. */
function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

async function drive(clock: ReturnType<typeof createFakeClock>, call: () => Promise<unknown>): Promise<void> {
  let settled = false;
  void call()
    .catch(() => undefined)
    .finally(() => (settled = true));
  while (!settled) await clock.advance(5);
}

describe('registerPrometheusMetrics', () => {
  it('counts calls by kind, bounded method and outcome, attempts by endpoint/cause/dispatch, and histograms by kind or endpoint only', async () => {
    const { clock, executor, pool } = setup();
    const registry = new Registry();
    registerPrometheusMetrics(pool, { registry });
    executor.script('main', { type: 'response', status: 429, headers: { 'retry-after': '2' }, body: '' }, answerAfter(clock, 30));
    executor.script('backup', answerAfter(clock, 120));
    await drive(clock, () => pool.request('getSlot', [])); // 429 on main, then backup answers after 120 ms
    await drive(clock, () => pool.request('myBundleStatus', [])); // main cools down: backup, 120 ms
    await drive(clock, () => pool.request('custom_a1', []));
    await drive(clock, () => pool.request('debug_traceSomething_42', []));
    const text = await registry.metrics();

    expect(sample(text, 'sturdy_rpc_calls_total{kind="read",method="getSlot",outcome_code="ok"}')).toBe(1);
    expect(sample(text, 'sturdy_rpc_calls_total{kind="read",method="myBundleStatus",outcome_code="ok"}')).toBe(1);
    expect(sample(text, 'sturdy_rpc_calls_total{kind="read",method="other",outcome_code="ok"}')).toBe(2);
    expect(text.match(/^sturdy_rpc_calls_total\{/gm)).toHaveLength(3);
    expect(sample(text, 'sturdy_rpc_attempts_total{endpoint="main",kind="read",cause="rate-limited",dispatch="rejected"}')).toBe(1);
    expect(sample(text, 'sturdy_rpc_attempts_total{endpoint="backup",kind="read",cause="none",dispatch="completed"}')).toBe(4);
    expect(sample(text, 'sturdy_rpc_rate_limits_total{endpoint="main"}')).toBe(1);
    expect(sample(text, 'sturdy_rpc_rate_limits_total{endpoint="backup"}')).toBe(0);
    expect(sample(text, 'sturdy_rpc_cooldowns_total{endpoint="main"}')).toBe(1);
    expect(sample(text, 'sturdy_rpc_retries_total{endpoint="backup"}')).toBe(1);

    // Histograms: cumulative buckets; attempt duration by endpoint, call duration by kind.
    expect(sample(text, 'sturdy_rpc_attempt_duration_seconds_bucket{endpoint="backup",le="0.1"}')).toBe(0);
    expect(sample(text, 'sturdy_rpc_attempt_duration_seconds_bucket{endpoint="backup",le="0.25"}')).toBe(4);
    expect(sample(text, 'sturdy_rpc_attempt_duration_seconds_bucket{endpoint="backup",le="+Inf"}')).toBe(4);
    expect(sample(text, 'sturdy_rpc_attempt_duration_seconds_count{endpoint="backup"}')).toBe(4);
    expect(sample(text, 'sturdy_rpc_attempt_duration_seconds_sum{endpoint="backup"}')).toBeCloseTo(0.48, 6);
    expect(sample(text, 'sturdy_rpc_call_duration_seconds_count{kind="read"}')).toBe(4);
    expect(text).toMatch(/# TYPE sturdy_rpc_call_duration_seconds histogram/);
    expect(text).toMatch(/# TYPE sturdy_rpc_calls_total counter/);
    for (const line of text.split('\n').filter((l) => l.startsWith('sturdy_rpc_') && l.includes('_duration_seconds'))) {
      expect(line).not.toMatch(/method=|cause=|outcome_code=|dispatch=/);
    }

    // Gauges come from the snapshot at scrape time.
    expect(sample(text, 'sturdy_rpc_role_state{endpoint="main",kind="read",state="rate-limited"}')).toBe(1);
    expect(sample(text, 'sturdy_rpc_role_cooldown_seconds{endpoint="main",kind="read"}')).toBeGreaterThan(1);
    expect(sample(text, 'sturdy_rpc_role_tokens{endpoint="main",kind="read"}')).toBeGreaterThan(0);
    expect(sample(text, 'sturdy_rpc_endpoint_score{endpoint="main"}')).toBeGreaterThan(0);
    await clock.advance(3_000);
    expect(sample(await registry.metrics(), 'sturdy_rpc_role_cooldown_seconds{endpoint="main",kind="read"}')).toBe(0);
  });

  it('counts a hedged read: the hedge on the first endpoint, the cancelled loser as hedge-lost, no retry', async () => {
    const clock = createFakeClock();
    const executor = createScriptedExecutor();
    const pool = createPool({
      endpoints: [
        { id: 'slow', url: 'https://a.example.com/', operator: 'a' },
        { id: 'fast', url: 'https://b.example.org/', operator: 'b', tier: 1 },
      ],
      clock,
      random: createSeededRandom(4),
      executor,
      hedge: { delayMs: 50 },
    });
    executor.script('slow', answerAfter(clock, 500));
    executor.script('fast', answerAfter(clock, 10));
    const registry = new Registry();
    registerPrometheusMetrics(pool, { registry });
    await drive(clock, () => pool.request('getSlot', []));
    const text = await registry.metrics();
    expect(sample(text, 'sturdy_rpc_hedges_total{endpoint="slow",phase="started"}')).toBe(1);
    expect(sample(text, 'sturdy_rpc_hedges_total{endpoint="slow",phase="won"}')).toBe(1);
    expect(sample(text, 'sturdy_rpc_attempts_total{endpoint="fast",kind="read",cause="none",dispatch="completed"}')).toBe(1);
    expect(text).toMatch(/^sturdy_rpc_attempts_total\{endpoint="slow",kind="read",cause="hedge-lost",dispatch="[a-z-]+"\} 1$/m);
    expect(sample(text, 'sturdy_rpc_retries_total{endpoint="fast"}')).toBe(0);
    expect(sample(text, 'sturdy_rpc_calls_total{kind="read",method="getSlot",outcome_code="ok"}')).toBe(1);
  });

  it('never puts a URL, host, header value or key in a name, label or help text', async () => {
    const { clock, executor, pool } = setup();
    const registry = new Registry();
    registerPrometheusMetrics(pool, { registry });
    executor.script('main', { type: 'response', status: 401, headers: {}, body: `invalid api key ${SECRET}` });
    await drive(clock, () => pool.request('getSlot', []));
    const text = await registry.metrics();
    for (const leak of [SECRET, 'example.com', 'example.org', 'https://', 'user:']) expect(text, leak).not.toContain(leak);
  });

  it('uses the global registry and the prefix given; unregister removes every metric and stops counting', async () => {
    const { clock, pool } = setup();
    const unregister = registerPrometheusMetrics(pool, { prefix: 'app_rpc_' });
    try {
      await drive(clock, () => pool.request('getSlot', []));
      expect(sample(await globalRegistry.metrics(), 'app_rpc_calls_total{kind="read",method="getSlot",outcome_code="ok"}')).toBe(1);
    } finally {
      unregister();
      unregister();
    }
    expect(await globalRegistry.metrics()).not.toContain('app_rpc_');
  });

  it('a second registration with the same names throws and leaves the first one intact', async () => {
    const { clock, pool } = setup();
    const registry = new Registry();
    registerPrometheusMetrics(pool, { registry });
    const before = (await registry.getMetricsAsJSON()).length;
    expect(() => registerPrometheusMetrics(pool, { registry })).toThrow(/already been registered/);
    await drive(clock, () => pool.request('getSlot', []));
    expect((await registry.getMetricsAsJSON()).length).toBe(before);
    expect(sample(await registry.metrics(), 'sturdy_rpc_calls_total{kind="read",method="getSlot",outcome_code="ok"}')).toBe(1);
  });

  it('resetMetrics() zeroes the tallies but keeps the configured series', async () => {
    const { clock, pool } = setup();
    const registry = new Registry();
    registerPrometheusMetrics(pool, { registry });
    await drive(clock, () => pool.request('getSlot', []));
    registry.resetMetrics();
    const text = await registry.metrics();
    expect(sample(text, 'sturdy_rpc_calls_total{kind="read",method="getSlot",outcome_code="ok"}')).toBe(0);
    expect(sample(text, 'sturdy_rpc_rate_limits_total{endpoint="main"}')).toBe(0);
  });
});

describe('Prometheus: endpoint health', () => {
  it('exports lag, the health state set and the lag change of an endpoint that falls 200 slots behind', async () => {
    const clock = createFakeClock();
    const executor = createScriptedExecutor();
    const heads: Record<string, number> = { a: 5_000, b: 5_000, c: 4_800 };
    for (const id of Object.keys(heads)) executor.script(id, (_request, rpcId) => ({ type: 'response', status: 200, headers: {}, body: JSON.stringify({ jsonrpc: '2.0', id: rpcId, result: heads[id] }) }));
    const pool = createPool({
      endpoints: Object.keys(heads).map((id) => ({ id, url: `https://${id}-${SECRET}.example-rpc.com/` })),
      chain: 'solana',
      clock,
      random: createSeededRandom(4),
      executor,
      concentration: { maxOperatorShare: 0 },
    });
    const registry = new Registry();
    registerPrometheusMetrics(pool, { registry });
    for (const id of Object.keys(heads)) await drive(clock, () => pool.request('getSlot', [], { endpoint: id }));
    const text = await registry.metrics();
    expect(sample(text, 'sturdy_rpc_endpoint_lag{endpoint="c"}')).toBe(200);
    expect(sample(text, 'sturdy_rpc_endpoint_lag{endpoint="a"}')).toBe(0);
    expect(sample(text, 'sturdy_rpc_endpoint_health{endpoint="c",health="lagging"}')).toBe(1);
    expect(sample(text, 'sturdy_rpc_endpoint_health{endpoint="c",health="fresh"}')).toBe(0);
    expect(sample(text, 'sturdy_rpc_endpoint_health{endpoint="a",health="fresh"}')).toBe(1);
    expect(sample(text, 'sturdy_rpc_lag_changes_total{endpoint="c",lag_state="lagging"}')).toBe(1);
    expect(text).not.toContain(SECRET);
  });
});
