import { context, metrics, SpanStatusCode, TraceFlags, trace } from '@opentelemetry/api';
import { MeterProvider, MetricReader, type MetricData } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/clock.js';
import { instrumentOpenTelemetry } from '../../src/otel/index.js';
import { createFakeClock } from '../../src/testing/fake-clock.js';
import { installContextManager } from '../helpers/otel.js';
import { closePools, createPool, rejection } from '../helpers/pools.js';
import { createScriptedExecutor, ok } from '../helpers/scripted-executor.js';

/** URLs that hide a key in the subdomain, the path, the query and the userinfo (as the secrecy tests do). */
const SECRET = 'sk-live-0123456789abcdef';
const URLS = [
  `https://${SECRET}.rpc.example.com/`,
  `https://rpc.example.org/v2/${SECRET}`,
  `https://rpc.example.net/?api-key=${SECRET}`,
  `https://user:${SECRET}@rpc.example.io/`,
];
const LEAKS = [SECRET, 'example.com', 'example.org', 'example.net', 'example.io', 'https://', 'user:'];

class TestReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

let uninstallContext: () => void;
beforeAll(() => (uninstallContext = installContextManager()));
afterAll(() => uninstallContext());
afterEach(closePools);

function setup(extra: { methods?: Record<string, { kind: 'read' | 'submit'; retryClass: 'idempotent' }> } = {}) {
  const clock = createFakeClock();
  const executor = createScriptedExecutor();
  const pool = createPool({
    endpoints: URLS.map((url, i) => ({ id: `node-${i}`, url, tier: i, headers: { authorization: `Bearer ${SECRET}` } })),
    clock,
    random: createSeededRandom(1),
    executor,
    hedge: false,
    retry: { maxRetries: 3, initialBackoffMs: 10, maxBackoffMs: 10 },
    ...extra,
  });
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const uninstrument = instrumentOpenTelemetry(pool, { tracerProvider, meterProvider });
  const collect = async (): Promise<MetricData[]> => (await reader.collect()).resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
  return { clock, executor, pool, exporter, tracerProvider, uninstrument, collect };
}

const callSpans = (spans: readonly ReadableSpan[]) => spans.filter((s) => s.attributes['rpc.system'] === 'jsonrpc');
const attemptSpans = (spans: readonly ReadableSpan[]) => spans.filter((s) => s.attributes['http.request.method'] === 'POST');

describe('instrumentOpenTelemetry', () => {
  it("makes one CLIENT span per call under the caller's active span, with one child span per attempt", async () => {
    const { executor, pool, exporter, tracerProvider } = setup();
    executor.script('node-0', { type: 'error', kind: 'connect', dispatched: false });
    executor.script('node-1', (_r, id) => ok(7, id));
    const caller = tracerProvider.getTracer('app').startSpan('handle-request');
    const result = await context.with(trace.setSpan(context.active(), caller), () => pool.request('getSlot', []));
    caller.end();
    expect(result).toBe(7);

    const spans = exporter.getFinishedSpans();
    const [call] = callSpans(spans);
    expect(callSpans(spans)).toHaveLength(1);
    expect(call!.name).toBe('getSlot');
    expect(call!.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
    expect(call!.spanContext().traceId).toBe(caller.spanContext().traceId);
    expect(call!.kind).toBe(2); // CLIENT
    expect(call!.attributes).toMatchObject({ 'rpc.system': 'jsonrpc', 'rpc.system.name': 'jsonrpc', 'rpc.method': 'getSlot', 'sturdy_rpc.kind': 'read' });
    expect(call!.status.code).toBe(SpanStatusCode.UNSET);

    const attempts = attemptSpans(spans);
    expect(attempts.map((s) => s.parentSpanContext?.spanId)).toEqual([call!.spanContext().spanId, call!.spanContext().spanId]);
    expect(attempts.map((s) => s.attributes)).toEqual([
      expect.objectContaining({ 'sturdy_rpc.endpoint': 'node-0', 'sturdy_rpc.attempt': 1, 'http.request.resend_count': 0, 'sturdy_rpc.outcome': 'failure', 'sturdy_rpc.cause': 'connection', 'sturdy_rpc.dispatch': 'not-dispatched', 'error.type': 'connection' }),
      expect.objectContaining({ 'sturdy_rpc.endpoint': 'node-1', 'sturdy_rpc.attempt': 2, 'http.request.resend_count': 1, 'sturdy_rpc.outcome': 'success', 'sturdy_rpc.dispatch': 'completed', 'http.response.status_code': 200 }),
    ]);
    expect(attempts[0]!.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('marks a failed call ERROR with the error code as error.type and the node code as rpc.response.status_code', async () => {
    const { executor, pool, exporter } = setup();
    for (const id of ['node-0', 'node-1', 'node-2', 'node-3']) {
      executor.script(id, (_r, rpcId) => ({ type: 'response', status: 200, headers: {}, body: JSON.stringify({ jsonrpc: '2.0', id: rpcId, error: { code: -32602, message: `bad ${SECRET}` } }) }));
    }
    const error = await rejection(pool.request('getBalance', ['x']));
    expect(error.code).toBe('RPC_ERROR');
    const [call] = callSpans(exporter.getFinishedSpans());
    expect(call!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'RPC_ERROR' });
    expect(call!.attributes).toMatchObject({ 'error.type': 'RPC_ERROR', 'rpc.response.status_code': '-32602' });
    expect(JSON.stringify(exporter.getFinishedSpans().map((s) => [s.name, s.attributes, s.status, s.events]))).not.toContain(SECRET);
  });

  it('bounds rpc.method: unknown names and prefix families are _OTHER, user-classified methods keep their name', async () => {
    const { pool, exporter } = setup({ methods: { myBundleStatus: { kind: 'read', retryClass: 'idempotent' } } });
    await pool.request('myBundleStatus', []);
    await pool.request('custom_8f3a1c', []);
    await pool.request('debug_traceAnything_42', []);
    expect(callSpans(exporter.getFinishedSpans()).map((s) => [s.name, s.attributes['rpc.method']])).toEqual([
      ['myBundleStatus', 'myBundleStatus'],
      ['_OTHER', '_OTHER'],
      ['_OTHER', '_OTHER'],
    ]);
  });

  it('never puts a URL, host, header value or key in a span name, attribute, status or metric attribute', async () => {
    const { executor, pool, exporter, collect } = setup();
    executor.script('node-0', { type: 'response', status: 429, headers: { 'retry-after': '1' }, body: 'slow' });
    executor.script('node-1', { type: 'response', status: 401, headers: {}, body: `invalid api key ${SECRET}` });
    executor.script('node-2', { type: 'error', kind: 'socket', dispatched: false, code: 'ECONNRESET' });
    await pool.request('getSlot', []).catch(() => undefined);
    await pool.request('sendTransaction', ['AQ==']).catch(() => undefined);
    const text = JSON.stringify([
      exporter.getFinishedSpans().map((s) => [s.name, s.attributes, s.status, s.events, s.links]),
      await collect(),
    ]);
    expect(text).toContain('node-0');
    for (const leak of LEAKS) expect(text, leak).not.toContain(leak);
  });

  it('puts no server.*, url.*, client.* or network.peer.* attribute key on a span or metric, whatever its value', async () => {
    const { executor, pool, exporter, collect } = setup();
    executor.script('node-0', { type: 'error', kind: 'connect', dispatched: false });
    executor.script('node-1', { type: 'response', status: 503, headers: {}, body: 'down' });
    await pool.request('getSlot', []);
    await pool.request('sendTransaction', ['AQ==']).catch(() => undefined);
    const spans = exporter.getFinishedSpans();
    expect(attemptSpans(spans).length).toBeGreaterThanOrEqual(3);
    const keys = new Set([
      ...spans.flatMap((s) => [s.attributes, ...s.events.map((e) => e.attributes ?? {}), ...s.links.map((l) => l.attributes ?? {})]).flatMap(Object.keys),
      ...(await collect()).flatMap((m) => m.dataPoints.flatMap((p) => Object.keys(p.attributes))),
    ]);
    expect(keys).toContain('sturdy_rpc.endpoint');
    // The conventions' keys for where a request went: even an id-valued one names a host to a reader.
    const located = [...keys].filter((key) => /^(server|url|network\.peer|client)\./.test(key) || key === 'http.url' || key === 'net.peer.name');
    expect(located).toEqual([]);
  });

  it('records metrics under the same label rules: calls by kind/method/outcome, histograms by kind or endpoint only, gauges from the snapshot', async () => {
    const { executor, pool, collect } = setup();
    executor.script('node-0', { type: 'response', status: 502, headers: {}, body: 'bad gateway' });
    await pool.request('getSlot', []);
    await pool.request('made_up_method', []).catch(() => undefined);
    const data = await collect();
    const byName = new Map(data.map((m) => [m.descriptor.name, m]));
    const points = (name: string) => byName.get(name)!.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value }));
    expect(points('sturdy_rpc.calls')).toEqual(
      expect.arrayContaining([
        { attributes: { kind: 'read', method: 'getSlot', outcome_code: 'ok' }, value: 1 },
        // An unknown method is never resent after a 502 (it may have reached the node).
        { attributes: { kind: 'read', method: 'other', outcome_code: 'AMBIGUOUS_DISPATCH' }, value: 1 },
      ]),
    );
    expect(points('sturdy_rpc.calls')).toHaveLength(2);
    expect(points('sturdy_rpc.attempts')).toEqual(
      expect.arrayContaining([
        { attributes: { endpoint: 'node-0', kind: 'read', cause: 'temporary-http', dispatch: 'dispatched-ambiguous' }, value: 2 },
        { attributes: { endpoint: 'node-1', kind: 'read', cause: 'none', dispatch: 'completed' }, value: 1 },
      ]),
    );
    expect(new Set(byName.get('sturdy_rpc.call.duration')!.dataPoints.map((p) => Object.keys(p.attributes).join()))).toEqual(new Set(['kind']));
    expect(new Set(byName.get('sturdy_rpc.attempt.duration')!.dataPoints.map((p) => Object.keys(p.attributes).join()))).toEqual(new Set(['endpoint']));
    expect(byName.get('sturdy_rpc.call.duration')!.descriptor.unit).toBe('s');
    // Second buckets, as the Prometheus exporter's (an SDK's defaults are milliseconds): a 5 ms answer is not in the first bucket of 5 s.
    for (const name of ['sturdy_rpc.call.duration', 'sturdy_rpc.attempt.duration']) {
      const value = byName.get(name)!.dataPoints[0]!.value as { buckets: { boundaries: number[] } };
      expect(value.buckets.boundaries).toEqual([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]);
    }
    expect(points('sturdy_rpc.endpoint_in_flight')).toHaveLength(4);
    expect(points('sturdy_rpc.role_state')).toContainEqual({ attributes: { endpoint: 'node-0', kind: 'read', state: 'degraded' }, value: 1 });
    expect(points('sturdy_rpc.rate_limits')).toEqual(URLS.map((_, i) => ({ attributes: { endpoint: `node-${i}` }, value: 0 })));
  });

  it('exports consensus reads from the snapshot, one call counted once however many operators answered it', async () => {
    const { pool, collect } = setup();
    await pool.request('getBalance', ['address'], { consensus: { operators: 2 } });
    const data = await collect();
    const byName = new Map(data.map((m) => [m.descriptor.name, m]));
    const points = (name: string) => byName.get(name)!.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value }));
    expect(points('sturdy_rpc.consensus_reads')).toEqual(
      expect.arrayContaining([
        { attributes: { consensus_outcome: 'call' }, value: 1 },
        { attributes: { consensus_outcome: 'agreed' }, value: 1 },
        { attributes: { consensus_outcome: 'disagreed' }, value: 0 },
      ]),
    );
    expect(points('sturdy_rpc.calls')).toEqual([{ attributes: { kind: 'read', method: 'getBalance', outcome_code: 'ok' }, value: 1 }]);
    expect(points('sturdy_rpc.attempts').reduce((sum, point) => sum + Number(point.value), 0)).toBe(2);
  });

  it('makes no span under an unsampled parent, not even for a retried call, and counts and times that call as any other', async () => {
    const { executor, pool, exporter, collect } = setup();
    executor.script('node-0', { type: 'error', kind: 'connect', dispatched: false });
    executor.script('node-1', (_r, id) => ok(7, id));
    const unsampled = trace.wrapSpanContext({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: TraceFlags.NONE });
    expect(await context.with(trace.setSpan(context.active(), unsampled), () => pool.request('getSlot', []))).toBe(7);
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    // A sampled call after it has its spans: the unsampled calls' shared state is never written to.
    expect(await pool.request('getSlot', [])).toBe(7);
    expect(callSpans(exporter.getFinishedSpans())).toHaveLength(1);
    expect(attemptSpans(exporter.getFinishedSpans())).toHaveLength(2);

    const data = await collect();
    const metric = (name: string) => data.find((m) => m.descriptor.name === name)!;
    const total = (name: string) => metric(name).dataPoints.reduce((sum, p) => sum + (typeof p.value === 'number' ? p.value : (p.value as { count: number }).count), 0);
    expect(total('sturdy_rpc.calls')).toBe(2);
    expect(total('sturdy_rpc.attempts')).toBe(4);
    expect(total('sturdy_rpc.retries')).toBe(2);
    expect(total('sturdy_rpc.call.duration')).toBe(2);
    expect(total('sturdy_rpc.attempt.duration')).toBe(4);
  });

  it('stops after uninstrument: no span, no metric change', async () => {
    const { pool, exporter, uninstrument, collect } = setup();
    await pool.request('getSlot', []);
    expect((await collect()).find((m) => m.descriptor.name === 'sturdy_rpc.calls')!.dataPoints.map((p) => p.value)).toEqual([1]);
    uninstrument();
    uninstrument(); // idempotent
    await pool.request('getSlot', []);
    expect(callSpans(exporter.getFinishedSpans())).toHaveLength(1);
    const data = await collect();
    // Not one more call counted, in the counter or in the duration histogram.
    expect(data.find((m) => m.descriptor.name === 'sturdy_rpc.calls')!.dataPoints.map((p) => p.value)).toEqual([1]);
    const durations = data.find((m) => m.descriptor.name === 'sturdy_rpc.call.duration')!;
    expect(durations.dataPoints.map((p) => (p.value as { count: number }).count)).toEqual([1]);
  });

  it('is a no-op without an SDK, and follows the global providers once an application registers them', async () => {
    const clock = createFakeClock();
    const executor = createScriptedExecutor();
    const pool = createPool({ endpoints: [{ id: 'a', url: URLS[0]! }], clock, executor });
    instrumentOpenTelemetry(pool); // global providers: no SDK registered yet
    await expect(pool.request('getSlot', [])).resolves.toBe('default');

    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
    try {
      await pool.request('getSlot', []);
      expect(callSpans(exporter.getFinishedSpans()).map((s) => s.name)).toEqual(['getSlot']);
    } finally {
      trace.disable();
      metrics.disable();
    }
  });
});
