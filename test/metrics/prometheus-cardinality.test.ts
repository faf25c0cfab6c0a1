import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import { isTransportError } from '../../src/errors/transport-error.js';
import type { RawOutcome } from '../../src/http/executor.js';
import { registerPrometheusMetrics } from '../../src/metrics/prometheus.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { closePools, createPool } from '../helpers/pools.js';
import { createScriptedExecutor, hangUntilAborted, ok, type Script } from '../helpers/scripted-executor.js';

/**
 * The PATH lesson as a test: series are bounded by the labels' value sets, which the
 * configuration fixes. 10 000 calls with distinct unknown method names, every failure
 * cause, 20 endpoints; then a simulated hour of the same; the registry must hold exactly
 * the number of series the formula below gives, and never one more.
 */

const E = 20; // endpoints
const KINDS = ['read', 'submit'] as const;
const K = KINDS.length;
const B = 12; // default duration buckets

const rpcError = (code: number, message: string): Script => (_req, id) => ({
  type: 'response',
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }),
});
const response = (status: number, body: string, headers: Record<string, string> = {}): RawOutcome => ({ type: 'response', status, headers, body });

/** One scripted answer per fault: every failure cause the classifier knows, and a success. */
const FAULTS: readonly { readonly name: string; readonly script: Script }[] = [
  { name: 'success', script: (_req, id) => ok(42, id) },
  { name: 'refused', script: { type: 'error', kind: 'connect', dispatched: false } },
  { name: 'reset-after-write', script: { type: 'error', kind: 'socket', dispatched: true, code: 'ECONNRESET' } },
  { name: 'headers-timeout', script: { type: 'error', kind: 'other', dispatched: true, code: 'UND_ERR_HEADERS_TIMEOUT' } },
  { name: 'http-429', script: response(429, 'slow down', { 'retry-after': '1' }) },
  { name: 'http-502', script: response(502, 'bad gateway') },
  { name: 'http-401', script: response(401, 'invalid api key') },
  { name: 'http-413', script: response(413, 'request entity too large') },
  { name: 'invalid-params', script: rpcError(-32602, 'invalid params') },
  { name: 'html-body', script: response(200, '<html>oops</html>', { 'content-type': 'text/html' }) },
  { name: 'pruned', script: rpcError(-32010, 'excluded from account secondary indexes') },
  { name: 'caller-abort', script: hangUntilAborted },
];
const F = FAULTS.length;

function faultOf(method: string): Script {
  return FAULTS[Number(method.split('_')[1])]!.script;
}

async function seriesCount(registry: Registry): Promise<number> {
  const metrics = await registry.getMetricsAsJSON();
  return metrics.reduce((sum, metric) => sum + metric.values.length, 0);
}

afterEach(closePools);

describe('Prometheus series are bounded by configuration, not traffic', () => {
  it('10 000 calls with distinct unknown methods, every failure cause and 20 endpoints, then a simulated hour: exactly the formula', async () => {
    const clock = createFakeClock();
    const executor = createScriptedExecutor();
    const endpoints = Array.from({ length: E }, (_, i) => ({
      id: `e${i}`,
      // A key in the subdomain, the path, the query and the userinfo: none may reach a label.
      url: `https://user:pw-${i}@k${i}-sk-live.example${i}.com/v2/sk-live-${i}?api-key=sk-live-${i}`,
      requestsPerSecond: 1_000_000,
    }));
    for (const { id } of endpoints) {
      executor.script(id, (request, rpcId) => {
        const script = faultOf((JSON.parse(request.body) as { method: string }).method);
        return typeof script === 'function' ? script(request, rpcId) : script;
      });
    }
    const pool = createPool({ endpoints, clock, random: createSeededRandom(3), executor, retry: { maxRetries: 0 } });
    const registry = new Registry();
    registerPrometheusMetrics(pool, { registry });

    const shapes = new Set<string>(); // distinct (cause, dispatch) of attempts, success included
    const causes = new Set<string>();
    pool.on('success', () => shapes.add('none/completed'));
    pool.on('failure', (e) => {
      shapes.add(`${e.cause}/${e.dispatch}`);
      causes.add(e.cause);
    });
    const codes = new Set<string>(); // outcome codes callers saw
    let sequence = 0;

    /** One pinned call per (endpoint, kind, fault) in turn, so every combination occurs. */
    const drive = async (calls: number, stepMs: number) => {
      for (let n = 0; n < calls; n++, sequence++) {
        const endpoint = `e${sequence % E}`;
        const kind = KINDS[Math.floor(sequence / E) % K]!;
        const fault = Math.floor(sequence / (E * K)) % F;
        const controller = new AbortController();
        let settled = false;
        const call = pool
          .request(`custom_${fault}_${sequence}`, [], { endpoint, kind, timeoutMs: 60_000, signal: controller.signal })
          .then(
            () => codes.add('ok'),
            (error: unknown) => codes.add(isTransportError(error) ? error.code : 'not-a-transport-error'),
          )
          .finally(() => (settled = true));
        await clock.flush();
        if (FAULTS[fault]!.name === 'caller-abort') controller.abort();
        // A cooldown (429) holds the next pinned call until it ends: let time pass.
        while (!settled) await clock.advance(250);
        await call;
        if (stepMs > 0) await clock.advance(stepMs);
      }
    };

    // Series fixed by configuration alone (created at registration):
    const eventCounters = E /* rate_limits */ + E /* cooldowns */ + E /* breaker_opens */ + E /* benches */ + 3 * E /* hedges × phase */ + 3 * E /* chain_checks × status */ + 2 * E /* lag_changes × state */ + 3 * E /* probes × outcome */ + 2; /* reconciles × found */
    const gauges = 5 * E /* score, benched, breaker, in_flight, excluded */ + 4 * E /* endpoint_health × state */ + 3 * E * K /* role_state */ + 2 * E * K /* tokens, cooldown */ + K /* retry budget */ + 6 + 3 + 1 /* read cache: outcomes, classes, bytes (no per-method series: the calls use no method of its table) */ + 6; /* consensus reads × outcome */
    const histograms = (B + 3) * (K /* call duration by kind */ + E); /* attempt duration by endpoint */
    const retries = E;
    const atRegistration = eventCounters + gauges + histograms + retries;
    expect(await seriesCount(registry)).toBe(atRegistration);

    await drive(10_000, 0);
    expect(causes.size, [...causes].join()).toBe(10); // every failure cause
    // Series that traffic creates, each bounded by a value set: calls by kind × one method label
    // (every unknown method is `other`) × outcome code; attempts by endpoint × kind × (cause, dispatch).
    // endpoint_lag: one series per endpoint whose head is known (at most E).
    const withHead = () => pool.snapshot().endpoints.filter((e) => e.head?.lag !== undefined).length;
    const formula = () => atRegistration + K * 1 * codes.size + E * K * shapes.size + withHead();
    const afterBurst = await seriesCount(registry);
    expect(afterBurst).toBe(formula());
    // Unknown methods are never resent after dispatch: an ambiguous failure (reset, timeout, 502, caller abort after write) ends AMBIGUOUS_DISPATCH.
    expect([...codes].sort()).toEqual(['AMBIGUOUS_DISPATCH', 'HTTP_ERROR', 'RATE_LIMITED', 'RETRIES_EXHAUSTED', 'RPC_ERROR', 'ok']);

    // A simulated hour of the same traffic with new method names: not one series more.
    await drive(10_000, 360);
    expect(clock.now()).toBeGreaterThan(3_600_000);
    expect(await seriesCount(registry)).toBe(afterBurst);
    expect(await seriesCount(registry)).toBe(formula());

    const text = await registry.metrics();
    expect(text).not.toMatch(/custom_\d|sk-live|example\d|pw-|user:/);
  }, 120_000);
});
